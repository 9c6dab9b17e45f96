// Load generator: the same frontier work against crawl-frontier or against a
// scrapy-redis style frontier on redis-server, through our RespClient.
//
//   frontier_load --target crawlfront|redis --port P --phase add|lease
//                 [--urls N] [--dup-pct D] [--hosts H] [--threads T]
//                 [--workers W] [--batch B] [--tag S] [--seed S]
//
// add:   T threads send N URLs in batches of B, D% of each batch repeats a URL
//        the thread sent before. crawlfront: one FRONTIER.ADD per batch.
//        redis (scrapy-redis): a pipeline of SADD <seen> <fingerprint>, then
//        a pipeline of ZADD <queue> 0 <url> for the new ones.
// lease: W simulated workers drain the queue. crawlfront: FRONTIER.LEASE w B,
//        then a pipeline of FRONTIER.DONE w id fetched STATUS 200. redis:
//        ZPOPMIN <queue> B, HSET <inflight> url w..., then a pipeline of HDEL.
//
// Prints one line of key=value pairs (scripts parse it), e.g.
//   target=redis phase=add urls=100000 new=90000 expected_new=90000 seconds=1.2
//   urls_per_s=83333 client_cpu_us_per_url=4.10
// (the generator's own CPU, user + system, per URL: on a machine the client
// and the server share, it bounds what any server speed-up can show).
// Exit status 0 on success, 1 on a server or network error (message on
// stderr), 2 on bad flags. Every loop is bounded by the URL count.

#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

#include "crawlfront/common/resp.h"
#include "crawlfront/common/resp_client.h"
#include "crawlfront/common/status.h"
#include "crawlfront/common/url.h"

namespace crawlfront {
namespace {

namespace po = boost::program_options;

struct LoadOptions {
  std::string target;  // "crawlfront" or "redis"
  uint16_t port = 0;
  std::string phase;  // "add" or "lease"
  int64_t urls = 100000;
  int dup_pct = 10;
  int64_t hosts = 1000;
  int threads = 4;
  int workers = 8;
  int batch = 100;
  std::string tag = "a";  // keeps URLs of separate add runs apart
  uint64_t seed = 1;
};

// Deterministic and cheap; the standard distributions differ across libraries.
uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The URLs of one add thread: new ones numbered 0, 1, ...; a duplicate
// re-creates an earlier number, so nothing is stored.
class UrlSource {
 public:
  UrlSource(const LoadOptions& o, int thread)
      : o_(o), thread_(thread), rng_(o.seed * 1000003 + thread) {}

  // Appends the next URL to *batch; returns true when it is new.
  bool Next(std::vector<std::string>* batch) {
    bool dup = made_ > 0 && static_cast<int>(SplitMix64(&rng_) % 100) < o_.dup_pct;
    uint64_t n = dup ? SplitMix64(&rng_) % made_ : made_++;
    batch->push_back(UrlOf(n));
    return !dup;
  }

 private:
  std::string UrlOf(uint64_t n) const {
    uint64_t mix = n * 0x9e3779b97f4a7c15ULL + thread_;
    uint64_t host = SplitMix64(&mix) % o_.hosts;
    return "http://h" + std::to_string(host) + ".load.test/" + o_.tag + "/t" +
           std::to_string(thread_) + "/p" + std::to_string(n);
  }

  const LoadOptions& o_;
  int thread_;
  uint64_t rng_;
  uint64_t made_ = 0;
};

// Turns an error reply or a reply of the wrong shape into a Status.
Status Expect(const RespValue& v, bool aggregate, const char* what) {
  if (v.is_error()) return Status::Internal(std::string(what) + ": " + v.str);
  if (aggregate != v.is_aggregate()) {
    return Status::Corruption(std::string(what) + ": unexpected reply " +
                              v.ToDebugString());
  }
  return Status::Ok();
}

Status CheckAll(const Result<std::vector<RespValue>>& replies, const char* what) {
  if (!replies.ok()) return replies.status();
  for (const RespValue& v : *replies) {
    if (v.is_error()) return Status::Internal(std::string(what) + ": " + v.str);
  }
  return Status::Ok();
}

// Sends one encoded command and returns its reply.
Result<RespValue> One(RespClient* c, std::string_view command) {
  Result<std::vector<RespValue>> r = c->PipelineEncoded(command, 1);
  if (!r.ok()) return r.status();
  return std::move((*r)[0]);
}

// One connection speaking one target's commands. Not thread-safe.
class Backend {
 public:
  virtual ~Backend() = default;
  // Adds the URLs; returns how many the server reported new.
  virtual Result<int64_t> Add(const std::vector<std::string>& urls) = 0;
  // Leases up to `count` URLs and reports each done; returns how many (0
  // when the queue was empty).
  virtual Result<int64_t> LeaseAndDone(const std::string& worker, int count) = 0;
};

// Commands are written straight into one buffer per round trip (RespWriter),
// on both targets alike: a vector of strings per command was most of the
// generator's allocations, and its CPU is taken from the server's cores.
class CrawlfrontBackend : public Backend {
 public:
  explicit CrawlfrontBackend(std::unique_ptr<RespClient> c) : c_(std::move(c)) {}

  Result<int64_t> Add(const std::vector<std::string>& urls) override {
    buf_.clear();
    w_.ArrayHeader(urls.size() + 1);
    w_.Bulk("FRONTIER.ADD");
    for (const std::string& u : urls) w_.Bulk(u);
    Result<RespValue> r = One(c_.get(), buf_);
    if (!r.ok()) return r.status();
    CRAWLFRONT_RETURN_IF_ERROR(Expect(*r, true, "FRONTIER.ADD"));
    int64_t fresh = 0;
    for (const RespValue& e : r->elements) {
      if (e.type != RespType::kInteger) return Status::Internal("rejected: " + e.str);
      fresh += e.integer;
    }
    return fresh;
  }

  Result<int64_t> LeaseAndDone(const std::string& worker, int count) override {
    buf_.clear();
    w_.BulkArray({"FRONTIER.LEASE", worker, std::to_string(count)});
    Result<RespValue> r = One(c_.get(), buf_);
    if (!r.ok()) return r.status();
    CRAWLFRONT_RETURN_IF_ERROR(Expect(*r, true, "FRONTIER.LEASE"));
    buf_.clear();
    for (const RespValue& lease : r->elements) {
      if (lease.elements.size() < 2) return Status::Corruption("short lease entry");
      w_.BulkArray({"FRONTIER.DONE", worker, lease.elements[0].str, "fetched", "STATUS", "200"});
    }
    const size_t n = r->elements.size();
    if (n == 0) return int64_t{0};
    CRAWLFRONT_RETURN_IF_ERROR(CheckAll(c_->PipelineEncoded(buf_, n), "FRONTIER.DONE"));
    return static_cast<int64_t>(n);
  }

 private:
  std::unique_ptr<RespClient> c_;
  std::string buf_;
  RespWriter w_{&buf_, 2};
};

// scrapy-redis keeps a set of request fingerprints and a sorted-set queue;
// the in-flight hash stands in for the frontier's leases.
class RedisBackend : public Backend {
 public:
  explicit RedisBackend(std::unique_ptr<RespClient> c) : c_(std::move(c)) {}

  Result<int64_t> Add(const std::vector<std::string>& urls) override {
    buf_.clear();
    for (const std::string& u : urls) {
      char hex[33];
      w_.BulkArray({"SADD", kSeen, Hex(u, hex)});
    }
    Result<std::vector<RespValue>> seen = c_->PipelineEncoded(buf_, urls.size());
    CRAWLFRONT_RETURN_IF_ERROR(CheckAll(seen, "SADD"));
    buf_.clear();
    size_t zadds = 0;
    for (size_t i = 0; i < urls.size(); ++i) {
      if ((*seen)[i].integer != 1) continue;
      w_.BulkArray({"ZADD", kQueue, "0", urls[i]});
      ++zadds;
    }
    if (zadds > 0) CRAWLFRONT_RETURN_IF_ERROR(CheckAll(c_->PipelineEncoded(buf_, zadds), "ZADD"));
    return static_cast<int64_t>(zadds);
  }

  Result<int64_t> LeaseAndDone(const std::string& worker, int count) override {
    buf_.clear();
    w_.BulkArray({"ZPOPMIN", kQueue, std::to_string(count)});
    Result<RespValue> r = One(c_.get(), buf_);
    if (!r.ok()) return r.status();
    CRAWLFRONT_RETURN_IF_ERROR(Expect(*r, true, "ZPOPMIN"));
    const size_t n = r->elements.size() / 2;  // member, score
    if (n == 0) return int64_t{0};
    buf_.clear();
    w_.ArrayHeader(2 + 2 * n);
    w_.Bulk("HSET");
    w_.Bulk(kInflight);
    for (size_t i = 0; i < n; ++i) {
      w_.Bulk(r->elements[2 * i].str);
      w_.Bulk(worker);
    }
    Result<RespValue> h = One(c_.get(), buf_);
    if (!h.ok()) return h.status();
    CRAWLFRONT_RETURN_IF_ERROR(Expect(*h, false, "HSET"));
    buf_.clear();
    for (size_t i = 0; i < n; ++i) w_.BulkArray({"HDEL", kInflight, r->elements[2 * i].str});
    CRAWLFRONT_RETURN_IF_ERROR(CheckAll(c_->PipelineEncoded(buf_, n), "HDEL"));
    return static_cast<int64_t>(n);
  }

 private:
  static constexpr const char* kSeen = "crawl:default:seen";
  static constexpr const char* kQueue = "crawl:default:queue";
  static constexpr const char* kInflight = "crawl:default:inflight";

  // 32 hex digits of the 128-bit fingerprint (scrapy-redis stores 40 of SHA-1).
  static std::string_view Hex(const std::string& url, char (&buf)[33]) {
    Fingerprint f = FingerprintOf(url);
    std::snprintf(buf, sizeof buf, "%016llx%016llx",
                  static_cast<unsigned long long>(f.hi),
                  static_cast<unsigned long long>(f.lo));
    return std::string_view(buf, 32);
  }

  std::unique_ptr<RespClient> c_;
  std::string buf_;
  RespWriter w_{&buf_, 2};
};

Result<std::unique_ptr<Backend>> Open(const LoadOptions& o) {
  RespClientOptions co;
  co.timeout = std::chrono::seconds(60);
  auto c = RespClient::Connect("127.0.0.1", o.port, co);
  if (!c.ok()) return c.status();
  std::unique_ptr<Backend> b;
  if (o.target == "redis") {
    b = std::make_unique<RedisBackend>(std::move(*c));
  } else {
    b = std::make_unique<CrawlfrontBackend>(std::move(*c));
  }
  return b;
}

// Collects counts and the first error of all threads.
struct Totals {
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> fresh{0};
  std::atomic<int64_t> expected_fresh{0};
  std::atomic<bool> failed{false};  // tells the other threads to stop early
  std::mutex mu;
  Status error;  // guarded by mu

  void Fail(const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    if (error.ok()) error = s;
    failed = true;
  }
};

void AddThread(const LoadOptions& o, int thread, int64_t count, Totals* t) {
  auto backend = Open(o);
  if (!backend.ok()) return t->Fail(backend.status());
  UrlSource source(o, thread);
  std::vector<std::string> batch;
  for (int64_t sent = 0; sent < count && !t->failed;) {
    batch.clear();
    int64_t n = std::min<int64_t>(o.batch, count - sent);
    int64_t expected = 0;
    for (int64_t i = 0; i < n; ++i) expected += source.Next(&batch) ? 1 : 0;
    Result<int64_t> fresh = (*backend)->Add(batch);
    if (!fresh.ok()) return t->Fail(fresh.status());
    sent += n;
    t->done += n;
    t->fresh += *fresh;
    t->expected_fresh += expected;
  }
}

// Drains the queue; stops at the first empty lease. The bound on rounds
// covers every URL the queue can hold plus the empty round.
void LeaseThread(const LoadOptions& o, int worker, Totals* t) {
  auto backend = Open(o);
  if (!backend.ok()) return t->Fail(backend.status());
  std::string id = "load-w" + std::to_string(worker);
  int64_t max_rounds = o.urls / o.batch + 2;
  for (int64_t round = 0; round < max_rounds && !t->failed; ++round) {
    Result<int64_t> n = (*backend)->LeaseAndDone(id, o.batch);
    if (!n.ok()) return t->Fail(n.status());
    if (*n == 0) return;
    t->done += *n;
  }
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

Status Run(const LoadOptions& o) {
  Totals t;
  const double cpu0 = CpuSeconds();
  std::vector<std::thread> threads;
  auto start = std::chrono::steady_clock::now();
  if (o.phase == "add") {
    for (int i = 0; i < o.threads; ++i) {
      int64_t share = o.urls / o.threads + (i < o.urls % o.threads ? 1 : 0);
      threads.emplace_back(AddThread, std::cref(o), i, share, &t);
    }
  } else {
    for (int i = 0; i < o.workers; ++i)
      threads.emplace_back(LeaseThread, std::cref(o), i, &t);
  }
  for (std::thread& th : threads) th.join();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (t.failed) return t.error;  // threads are joined: no lock needed
  std::cout << "target=" << o.target << " phase=" << o.phase << " urls=" << t.done.load();
  if (o.phase == "add") {
    std::cout << " dup_pct=" << o.dup_pct << " new=" << t.fresh.load()
              << " expected_new=" << t.expected_fresh.load();
  }
  const int64_t n = t.done.load();
  char cpu[32];
  std::snprintf(cpu, sizeof cpu, "%.2f", n > 0 ? 1e6 * (CpuSeconds() - cpu0) / n : 0.0);
  std::cout << " seconds=" << seconds << " urls_per_s=" << static_cast<int64_t>(n / seconds)
            << " client_cpu_us_per_url=" << cpu << "\n";
  return Status::Ok();
}

Status Validate(const LoadOptions& o) {
  if (o.target != "crawlfront" && o.target != "redis") {
    return Status::InvalidArgument("--target must be crawlfront or redis");
  }
  if (o.phase != "add" && o.phase != "lease") {
    return Status::InvalidArgument("--phase must be add or lease");
  }
  if (o.port == 0) return Status::InvalidArgument("--port is required");
  if (o.urls < 1 || o.hosts < 1 || o.batch < 1 || o.batch > 100000 || o.threads < 1 ||
      o.threads > 1024 || o.workers < 1 || o.workers > 1024 || o.dup_pct < 0 ||
      o.dup_pct > 99) {
    return Status::InvalidArgument(
        "need urls, hosts >= 1; batch in [1, 100000]; threads, workers in [1, 1024]; "
        "dup-pct in [0, 99]");
  }
  return Status::Ok();
}

Result<LoadOptions> ParseFlags(int argc, char** argv) {
  LoadOptions o;
  po::options_description d("frontier_load options");
  d.add_options()("help", "print this help")("target", po::value(&o.target)->required(),
                                             "crawlfront or redis")(
      "port", po::value(&o.port)->required(), "server port on 127.0.0.1")(
      "phase", po::value(&o.phase)->required(), "add or lease")(
      "urls", po::value(&o.urls)->default_value(o.urls),
      "add: URLs sent; lease: upper bound")(
      "dup-pct", po::value(&o.dup_pct)->default_value(o.dup_pct),
      "add: duplicates per batch, %")("hosts",
                                      po::value(&o.hosts)->default_value(o.hosts),
                                      "add: hosts the URLs spread over")(
      "threads", po::value(&o.threads)->default_value(o.threads), "add: client threads")(
      "workers", po::value(&o.workers)->default_value(o.workers),
      "lease: simulated workers")("batch", po::value(&o.batch)->default_value(o.batch),
                                  "URLs per add or lease")(
      "tag", po::value(&o.tag)->default_value(o.tag), "add: path prefix separating runs")(
      "seed", po::value(&o.seed)->default_value(o.seed), "add: random seed");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, d), vm);
    if (vm.count("help")) {
      std::cout << d;
      std::exit(0);
    }
    po::notify(vm);
  } catch (const po::error& e) {
    return Status::InvalidArgument(e.what());
  }
  CRAWLFRONT_RETURN_IF_ERROR(Validate(o));
  return o;
}

}  // namespace
}  // namespace crawlfront

int main(int argc, char** argv) {
  auto options = crawlfront::ParseFlags(argc, argv);
  if (!options.ok()) {
    std::cerr << "frontier_load: " << options.status().ToString() << "\n";
    return 2;
  }
  crawlfront::Status s = crawlfront::Run(*options);
  if (!s.ok()) {
    std::cerr << "frontier_load: " << s.ToString() << "\n";
    return 1;
  }
  return 0;
}
