// The FRONTIER.* commands (docs/protocol.md): argument parsing and replies on
// top of CrawlCore. Handlers run on RESP io threads; CrawlCore is thread-safe.

#include <algorithm>
#include <charconv>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "crawlfront/common/ascii.h"
#include "crawlfront/common/header_value.h"
#include "crawlfront/frontier/frontier_node.h"

namespace crawlfront {
namespace {

std::optional<int64_t> ToInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Keyword options "NAME value" before a terminating keyword (or the end).
// Names match without regard to case. Values are views into the command's
// arguments (no copies: DONE, one per fetched page, parses options), so an
// Options must not outlive them.
class Options {
 public:
  // Parses args[from..) up to `stop` (e.g. "URLS"); returns false with `error`.
  // `names` are upper-case literals.
  bool Parse(std::span<const std::string> args, size_t from, std::string_view stop,
             std::initializer_list<std::string_view> names, std::string* error) {
    size_t i = from;
    for (; i < args.size(); ++i) {
      if (!stop.empty() && EqualsIgnoreCase(args[i], stop)) {
        rest_ = i + 1;
        return true;
      }
      auto name = std::find_if(names.begin(), names.end(),
                               [&](std::string_view n) { return EqualsIgnoreCase(args[i], n); });
      if (name == names.end()) {
        *error = "ERR unknown option '" + args[i] + "'";
        return false;
      }
      if (i + 1 >= args.size()) {
        *error = "ERR option " + std::string(*name) + " needs a value";
        return false;
      }
      Set(*name, args[++i]);
    }
    rest_ = i;
    if (!stop.empty()) {
      *error = "ERR expected " + std::string(stop) + " before the list";
      return false;
    }
    return true;
  }
  std::string Get(std::string_view key, std::string def = "") const {
    const std::string_view* v = Find(key);
    return v ? std::string(*v) : def;
  }
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // Integer option with bounds; false with error text when malformed.
  bool Int(std::string_view key, int64_t lo, int64_t hi, int64_t* out, std::string* error) const {
    const std::string_view* text = Find(key);
    if (text == nullptr) return true;
    auto v = ToInt(*text);
    if (!v || *v < lo || *v > hi) {
      *error = "ERR " + std::string(key) + " must be an integer in [" + std::to_string(lo) +
               ", " + std::to_string(hi) + "]";
      return false;
    }
    *out = *v;
    return true;
  }
  size_t rest() const { return rest_; }

 private:
  const std::string_view* Find(std::string_view key) const {
    for (const auto& [k, v] : values_) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  void Set(std::string_view key, std::string_view value) {  // the last one wins
    for (auto& [k, v] : values_) {
      if (k == key) {
        v = value;
        return;
      }
    }
    values_.emplace_back(key, value);
  }

  std::vector<std::pair<std::string_view, std::string_view>> values_;
  size_t rest_ = 0;
};

std::string CrawlOf(const Options& o) { return o.Get("CRAWL", std::string(kDefaultCrawl)); }

// Group commit of crawl core calls: the commands of one connection round
// leave their writes pending in the core, and one Sync before the round's
// replies makes them durable together (see CrawlCore and RoundCommit).
class CrawlRoundCommit : public RoundCommit {
 public:
  explicit CrawlRoundCommit(CrawlCore* core) : core_(core) {}
  void Note(uint64_t ticket) { ticket_ = std::max(ticket_, ticket); }
  Status Commit() override { return core_->Sync(ticket_); }
  bool async() const override { return true; }
  void CommitAsync(std::function<void(const Status&)> done) override {
    core_->SyncAsync(ticket_, std::move(done));
  }

 private:
  CrawlCore* core_;
  uint64_t ticket_ = 0;
};

// Runs call(ticket) with a ticket the round's commit syncs before the reply
// goes out, or with nullptr (durable on return) outside a round.
template <typename Call>
Status WithCrawlRound(CallContext& ctx, CrawlCore& core, Call call) {
  auto* round = ctx.JoinCommit<CrawlRoundCommit>(
      &core, [&core] { return std::make_unique<CrawlRoundCommit>(&core); });
  if (round == nullptr) return call(nullptr);
  uint64_t ticket = 0;
  Status s = call(&ticket);
  round->Note(ticket);
  return s;
}

void ReplyStatus(CallContext& ctx, const Status& s) {
  if (s.ok()) {
    ctx.reply().SimpleString("OK");
  } else {
    ctx.reply().Error("ERR " + s.message());
  }
}

// Runs `work` on the node's admin thread; it writes the reply when it is
// done. The connection waits, the io thread serves the others.
void ReplyFromAdminThread(CallContext& ctx, FrontierNode& node,
                          std::function<void(RespWriter&)> work) {
  std::shared_ptr<DeferredReply> reply = ctx.Defer();
  auto job = [reply, work = std::move(work)] {
    std::string out;
    RespWriter w(&out, reply->protocol());
    work(w);
    reply->Complete(std::move(out));
  };
  if (!node.RunAdmin(std::move(job))) reply->Complete("-ERR frontier is shutting down\r\n");
}

// The same for work that replies OK or its error.
void OnAdminThread(CallContext& ctx, FrontierNode& node, std::function<Status()> work) {
  ReplyFromAdminThread(ctx, node, [work = std::move(work)](RespWriter& w) {
    Status s = work();
    if (s.ok()) {
      w.SimpleString("OK");
    } else {
      w.Error("ERR " + s.message());
    }
  });
}

void ReplyAddResults(CallContext& ctx, const std::vector<AddResult>& results) {
  ctx.reply().ArrayHeader(results.size());
  for (const auto& r : results) {
    if (r.kind == AddResult::Kind::kNew) {
      ctx.reply().Integer(1);
    } else if (r.kind == AddResult::Kind::kSeen) {
      ctx.reply().Integer(0);
    } else if (r.kind == AddResult::Kind::kRecrawl) {
      ctx.reply().Integer(2);
    } else {
      ctx.reply().Bulk("rejected: " + r.reason);
    }
  }
}

// A long add runs CrawlCore::kAddChunk URLs per step of its connection
// (CallContext::ContinueWith): with one io thread, a 50,000-URL ADD or a
// sitemap's DONE made the thread's other connections wait for all of it.
// An ADD's requests are made a piece at a time from its arguments, which
// stay in place until the last step.
struct AddSteps {
  std::string crawl;
  std::vector<AddRequest> reqs;  // a DONE's links; empty for an ADD
  AddRequest proto;              // an ADD's: every URL but its url
  size_t first_url = 0;          // an ADD's first URL argument
  size_t total = 0;
  std::vector<AddResult> results;
  size_t at = 0;
  uint64_t ticket = 0;  // the latest of the pieces', committed with the reply
};
using AddReply = std::function<void(CallContext&, const std::vector<AddResult>&)>;

Status AddPiece(CallContext& ctx, CrawlCore& core, AddSteps& add) {
  const size_t n = std::min(CrawlCore::kAddChunk, add.total - add.at);
  std::vector<AddRequest> made;
  std::span<const AddRequest> piece;
  if (add.reqs.empty()) {
    made.assign(n, add.proto);
    for (size_t i = 0; i < n; ++i) made[i].url = ctx.args()[add.first_url + add.at + i];
    piece = made;
  } else {
    piece = std::span(add.reqs).subspan(add.at, n);
  }
  std::vector<AddResult> part;
  uint64_t ticket = 0;
  CRAWLFRONT_RETURN_IF_ERROR(core.Add(add.crawl, piece, &part, &ticket));
  add.results.insert(add.results.end(), std::make_move_iterator(part.begin()),
                     std::make_move_iterator(part.end()));
  add.ticket = std::max(add.ticket, ticket);
  add.at += n;
  return Status::Ok();
}

// One piece of `add`; true after the last, which commits with the round and
// replies.
bool AddStep(CallContext& ctx, FrontierNode& node, AddSteps& add, const AddReply& reply) {
  CrawlCore& core = node.crawl();
  Status s = AddPiece(ctx, core, add);
  if (s.ok()) {
    if (add.at < add.total) return false;
    s = WithCrawlRound(ctx, core, [&](uint64_t* round_ticket) {
      if (round_ticket == nullptr) return core.Sync(add.ticket);
      *round_ticket = add.ticket;
      return Status::Ok();
    });
  }
  if (!s.ok()) {
    node.NoteError("add: " + s.ToString());
    ctx.reply().Error("ERR " + s.message());
    return true;
  }
  reply(ctx, add.results);
  return true;
}

void AddInSteps(CallContext& ctx, FrontierNode& node, std::shared_ptr<AddSteps> add,
                AddReply reply) {
  add->results.reserve(add->total);
  ctx.ContinueWith([&node, add, reply = std::move(reply)](CallContext& step) {
    return AddStep(step, node, *add, reply);
  });
}

void DoAdd(CallContext& ctx, FrontierNode& node, const std::string& crawl, size_t first_url,
           const AddRequest& proto) {
  std::span<const std::string> urls = ctx.args().subspan(first_url);
  if (urls.size() > CrawlCore::kAddChunk) {
    auto add = std::make_shared<AddSteps>();
    add->crawl = crawl;
    add->proto = proto;
    add->first_url = first_url;
    add->total = urls.size();
    return AddInSteps(ctx, node, std::move(add), ReplyAddResults);
  }
  std::vector<AddRequest> reqs(urls.size(), proto);
  for (size_t i = 0; i < urls.size(); ++i) reqs[i].url = urls[i];
  std::vector<AddResult> results;
  Status s = WithCrawlRound(ctx, node.crawl(), [&](uint64_t* ticket) {
    return node.crawl().Add(crawl, reqs, &results, ticket);
  });
  if (!s.ok()) {
    node.NoteError("add: " + s.ToString());
    ctx.reply().Error("ERR " + s.message());
    return;
  }
  ReplyAddResults(ctx, results);
}

void AddCmd(CallContext& ctx, FrontierNode& node) {
  DoAdd(ctx, node, std::string(kDefaultCrawl), 1, AddRequest{});
}

void AddXCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err;
  if (!o.Parse(ctx.args(), 1, "URLS", {"CRAWL", "DEPTH", "PRIORITY", "PARENT", "REFETCH"},
               &err)) {
    return ctx.reply().Error(err);
  }
  AddRequest proto;
  int64_t depth = 0, priority = 0, refetch = 0;
  if (!o.Int("DEPTH", 0, 1 << 20, &depth, &err) ||
      !o.Int("PRIORITY", INT32_MIN, INT32_MAX, &priority, &err) ||
      !o.Int("REFETCH", 0, INT64_MAX, &refetch, &err)) {
    return ctx.reply().Error(err);
  }
  proto.depth = static_cast<uint32_t>(depth);
  proto.priority = static_cast<int32_t>(priority);
  proto.refetch_at_ms = refetch;
  proto.parent = o.Get("PARENT");
  DoAdd(ctx, node, CrawlOf(o), o.rest(), proto);
}

}  // namespace

void EncodeLeases(RespWriter& w, const std::vector<LeasedUrl>& leases) {
  w.ArrayHeader(leases.size());
  for (const auto& l : leases) {
    // A recrawl's validators follow, only when it has some.
    const bool validators = !l.etag.empty() || !l.last_modified.empty();
    w.ArrayHeader(validators ? 8 : 6);
    w.Bulk(l.lease_id);
    w.Bulk(l.url);
    w.Integer(l.depth);
    w.Integer(l.attempt);
    w.Bulk(l.kind == LeaseKind::kRobots ? "robots" : "page");
    w.Bulk(l.crawl);
    if (validators) {
      w.Bulk(l.etag);
      w.Bulk(l.last_modified);
    }
  }
}

namespace {

void LeaseCmd(CallContext& ctx, FrontierNode& node) {
  auto args = ctx.args();
  auto count = ToInt(args[2]);
  if (!count || *count < 0 || *count > 100000) {
    return ctx.reply().Error("ERR count must be an integer in [0, 100000]");
  }
  Options o;
  std::string err;
  int64_t block = 0;
  if (!o.Parse(args, 3, "", {"BLOCK", "CRAWL"}, &err) ||
      !o.Int("BLOCK", 0, 3'600'000, &block, &err)) {
    return ctx.reply().Error(err);
  }
  std::string crawl = o.Get("CRAWL");
  std::vector<LeasedUrl> leases;
  Status s = WithCrawlRound(ctx, node.crawl(), [&](uint64_t* ticket) {
    return node.crawl().Lease(args[1], static_cast<size_t>(*count), crawl, &leases, ticket);
  });
  if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
  if (leases.empty() && block > 0 && *count > 0) {
    node.AddLeaseWaiter({ctx.Defer(), args[1], crawl, ctx.client().id, ctx.client().peer,
                         static_cast<size_t>(*count), Clock::Real()->NowMs() + block});
    return;
  }
  node.NoteWorker(args[1], 0, ctx.client().id, ctx.client().peer);
  EncodeLeases(ctx.reply(), leases);
}

// LASTMOD's "s,s,...": one Unix-seconds value (0: none) per link; "" is none.
bool ParseLastmods(std::string_view list, size_t links, std::vector<int64_t>* out,
                   std::string* err) {
  if (list.empty()) return true;
  out->reserve(links);
  for (size_t at = 0; at <= list.size();) {
    size_t comma = std::min(list.find(',', at), list.size());
    auto v = ToInt(list.substr(at, comma - at));
    if (!v || *v < 0) {
      *err = "ERR LASTMOD wants comma-separated Unix seconds, one per link";
      return false;
    }
    out->push_back(*v);
    at = comma + 1;
  }
  if (out->size() != links) {
    *err = "ERR LASTMOD has " + std::to_string(out->size()) + " values for " +
           std::to_string(links) + " links";
    return false;
  }
  return true;
}

// FRONTIER.DONE worker lease outcome [STATUS c] [MS ms] [DELAY ms] [REASON t]
//               [BODY b] [SITEMAP 0|1] [LINKS url ...]
void DoneCmd(CallContext& ctx, FrontierNode& node) {
  auto args = ctx.args();
  auto outcome = ParseDoneOutcome(args[3]);
  if (!outcome.ok()) return ctx.reply().Error("ERR " + outcome.status().message());
  Options o;
  std::string err;
  size_t links_at = args.size();
  for (size_t i = 4; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "LINKS")) {
      links_at = i;
      break;
    }
  }
  if (!o.Parse(args.subspan(0, links_at), 4, "",
               {"STATUS", "MS", "DELAY", "REASON", "BODY", "SITEMAP", "LASTMOD", "ETAG",
                "MODIFIED"},
               &err)) {
    return ctx.reply().Error(err);
  }
  DoneReport r;
  r.outcome = *outcome;
  int64_t status = 0, ms = 0, delay = 0, sitemap = 0;
  if (!o.Int("STATUS", 0, 999, &status, &err) || !o.Int("MS", 0, INT64_MAX, &ms, &err) ||
      !o.Int("DELAY", 0, INT64_MAX, &delay, &err) || !o.Int("SITEMAP", 0, 1, &sitemap, &err)) {
    return ctx.reply().Error(err);
  }
  r.http_status = static_cast<int>(status);
  r.fetch_ms = ms;
  r.retry_delay_ms = delay;
  r.reason = o.Get("REASON");
  r.body = o.Get("BODY");
  r.sitemap = sitemap == 1;
  r.etag = o.Get("ETAG");
  r.last_modified = o.Get("MODIFIED");
  for (const auto& [name, value] : {std::pair{"ETAG", &r.etag}, {"MODIFIED", &r.last_modified}}) {
    if (!IsSafeHeaderValue(*value)) {  // a worker sends it back as a header
      return ctx.reply().Error(std::string("ERR ") + name +
                               " must be at most 256 printable ASCII bytes");
    }
  }
  if (links_at < args.size()) r.links.assign(args.begin() + links_at + 1, args.end());
  if (!ParseLastmods(o.Get("LASTMOD"), r.links.size(), &r.lastmod_s, &err)) {
    return ctx.reply().Error(err);
  }
  bool known = false;
  CrawlCore::LaterLinks later;
  Status s = WithCrawlRound(ctx, node.crawl(), [&](uint64_t* ticket) {
    return node.crawl().Done(args[1], args[2], r, &known, ticket, &later);
  });
  if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
  if (known) node.NoteWorker(args[1], 1, ctx.client().id, ctx.client().peer);
  if (known && r.outcome == DoneOutcome::kFailed) node.NoteError("fetch failed: " + r.reason);
  if (!later.links.empty()) {
    auto add = std::make_shared<AddSteps>();
    add->crawl = std::move(later.crawl);
    add->reqs = std::move(later.links);
    add->total = add->reqs.size();
    return AddInSteps(ctx, node, std::move(add),
                      [](CallContext& step, const auto&) { step.reply().Integer(1); });
  }
  ctx.reply().Integer(known ? 1 : 0);
}

void RenewCmd(CallContext& ctx, FrontierNode& node) {
  auto args = ctx.args();
  int64_t ms = 0;
  if (args.size() > 3) {
    auto v = ToInt(args[3]);
    if (!v || *v < 0) return ctx.reply().Error("ERR ms must be a non-negative integer");
    ms = *v;
  }
  bool known = false;
  Status s = WithCrawlRound(ctx, node.crawl(), [&](uint64_t* ticket) {
    return node.crawl().Renew(args[1], args[2], ms, &known, ticket);
  });
  if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
  ctx.reply().Integer(known ? 1 : 0);
}

// FRONTIER.RELEASE worker [lease_id ...] [FORCE]. Refused while another open
// connection uses the id: a second worker started under a running one's id
// would otherwise take that worker's leases from it at start.
void ReleaseCmd(CallContext& ctx, FrontierNode& node) {
  auto args = ctx.args();
  std::vector<std::string> ids;
  bool force = false;
  for (size_t i = 2; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "FORCE")) {
      force = true;
    } else {
      ids.push_back(args[i]);
    }
  }
  const std::string who = PrintableWorkerId(args[1]);
  if (!force) {
    if (auto in_use = node.WorkerIdInUse(args[1], ctx.client().id)) {
      return ctx.reply().Error("BUSY worker id '" + who + "' is in use by another open "
                               "connection (" + *in_use + "); give each worker its own "
                               "id, or stop that worker first (FORCE releases anyway)");
    }
  }
  size_t released = 0;
  Status s = node.crawl().ReleaseLeases(args[1], ids, &released);
  if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
  if (released > 0) {
    spdlog::info("worker {}: {} lease(s) released, their URLs back in their queues", who,
                 released);
  }
  ctx.reply().Integer(static_cast<int64_t>(released));
}

// FRONTIER.WORKERS: [worker, leases, next_deadline_in_ms] per worker holding leases.
void WorkersCmd(CallContext& ctx, FrontierNode& node) {
  auto workers = node.crawl().LeasesByWorker();
  ctx.reply().ArrayHeader(workers.size());
  for (const WorkerLeases& w : workers) {
    ctx.reply().ArrayHeader(3);
    ctx.reply().Bulk(w.worker);
    ctx.reply().Integer(static_cast<int64_t>(w.leases));
    ctx.reply().Integer(w.next_deadline_in_ms);
  }
}

// FRONTIER.HOST host DELAY ms | BLOCK unix_ms | BUDGET n | ROBOTS text [CRAWL id]
void HostCmd(CallContext& ctx, FrontierNode& node) {
  auto args = ctx.args();
  std::string what = AsciiUpper(args[2]);
  Options o;
  std::string err;
  if (!o.Parse(args, 4, "", {"CRAWL"}, &err)) return ctx.reply().Error(err);
  std::string crawl = CrawlOf(o);
  if (what == "ROBOTS") {
    return ReplyStatus(ctx, node.crawl().SetHostRobots(crawl, args[1], args[3]));
  }
  auto v = ToInt(args[3]);
  if (!v) return ctx.reply().Error("ERR " + what + " needs an integer");
  if (what == "DELAY") {
    if (*v < 0) return ctx.reply().Error("ERR DELAY must be >= 0");
    return ReplyStatus(ctx, node.crawl().SetHostDelay(crawl, args[1], *v));
  }
  if (what == "BLOCK") return ReplyStatus(ctx, node.crawl().BlockHostUntil(crawl, args[1], *v));
  if (what == "BUDGET") return ReplyStatus(ctx, node.crawl().SetHostBudget(crawl, args[1], *v));
  ctx.reply().Error("ERR expected DELAY, BLOCK, BUDGET or ROBOTS");
}

// FRONTIER.DROP host [CRAWL id]: the number of queued URLs deleted.
// With MATCH the host's queue is scanned (on the admin thread: a long queue
// takes a while); without it one range deletion drops everything.
void DropCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err;
  if (!o.Parse(ctx.args(), 2, "", {"MATCH", "CRAWL"}, &err)) return ctx.reply().Error(err);
  const std::string crawl = CrawlOf(o), host(ctx.args()[1]);
  uint64_t dropped = 0;
  if (!o.Has("MATCH")) {
    Status s = node.crawl().DropHost(crawl, host, &dropped);
    if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
    return ctx.reply().Integer(static_cast<int64_t>(dropped));
  }
  auto compiled = UrlPattern::Compile(o.Get("MATCH"));
  if (!compiled.ok()) return ctx.reply().Error("ERR MATCH: " + compiled.status().message());
  auto re = std::make_shared<const UrlPattern>(std::move(compiled).value());
  FrontierNode* n = &node;
  ReplyFromAdminThread(ctx, node, [n, crawl, host, re](RespWriter& w) {
    uint64_t count = 0;
    Status s = n->crawl().DropHostMatching(crawl, host, *re, &count);
    if (!s.ok()) return w.Error("ERR " + s.message());
    w.Integer(static_cast<int64_t>(count));
  });
}

// FRONTIER.QUEUE host [COUNT n] [CRAWL id]: the head of a host's queue.
// FRONTIER.QUEUE's seven fields of an entry; FRONTIER.SCAN's add the host.
void EncodeQueued(CallContext& ctx, const QueuedUrl& q, const std::string* host) {
  ctx.reply().ArrayHeader(host ? 8 : 7);
  ctx.reply().Bulk(q.url);
  ctx.reply().Bulk(QueuedStateName(q.state));
  ctx.reply().Integer(q.depth);
  ctx.reply().Integer(q.attempt);
  ctx.reply().Integer(q.priority);
  ctx.reply().Integer(q.due_ms);
  ctx.reply().Bulk(q.parent);
  if (host) ctx.reply().Bulk(*host);
}

void QueueCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err;
  int64_t count = 10;
  if (!o.Parse(ctx.args(), 2, "", {"COUNT", "CRAWL"}, &err) ||
      !o.Int("COUNT", 1, 10000, &count, &err)) {
    return ctx.reply().Error(err);
  }
  std::vector<QueuedUrl> entries;
  Status s = node.crawl().PeekHost(CrawlOf(o), ctx.args()[1], static_cast<size_t>(count),
                                   &entries);
  if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
  ctx.reply().ArrayHeader(entries.size());
  for (const QueuedUrl& q : entries) EncodeQueued(ctx, q, nullptr);
}

// A SCAN cursor is the next queue key in hex: opaque to clients, and no
// state kept between calls. "0" starts and ends, as in Redis's SCAN.
std::string CursorOf(std::string_view key) {
  static const char kHex[] = "0123456789abcdef";
  if (key.empty()) return "0";
  std::string out;
  for (unsigned char c : key) out += {kHex[c >> 4], kHex[c & 15]};
  return out;
}

bool KeyOfCursor(std::string_view cursor, std::string* key) {
  key->clear();
  if (cursor == "0") return true;
  if (cursor.empty() || cursor.size() % 2 != 0) return false;
  auto nibble = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  for (size_t i = 0; i < cursor.size(); i += 2) {
    const int hi = nibble(cursor[i]), lo = nibble(cursor[i + 1]);
    if (hi < 0 || lo < 0) return false;
    key->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

// FRONTIER.SCAN cursor [COUNT n] [MATCH regex] [CRAWL id]
void ScanCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err, key;
  int64_t count = 1000;
  if (!o.Parse(ctx.args(), 2, "", {"COUNT", "MATCH", "CRAWL"}, &err) ||
      !o.Int("COUNT", 1, 10000, &count, &err)) {
    return ctx.reply().Error(err);
  }
  if (!KeyOfCursor(ctx.args()[1], &key)) return ctx.reply().Error("ERR invalid cursor");
  std::optional<UrlPattern> match;
  if (o.Has("MATCH")) {
    auto compiled = UrlPattern::Compile(o.Get("MATCH"));
    if (!compiled.ok()) return ctx.reply().Error("ERR MATCH: " + compiled.status().message());
    match = std::move(compiled).value();
  }
  std::vector<ScannedUrl> entries;
  std::string next;
  Status s = node.crawl().ScanQueues(CrawlOf(o), key, static_cast<size_t>(count),
                                     match ? &*match : nullptr, &entries, &next);
  if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
  ctx.reply().ArrayHeader(2);
  ctx.reply().Bulk(CursorOf(next));
  ctx.reply().ArrayHeader(entries.size());
  for (const ScannedUrl& e : entries) EncodeQueued(ctx, e.entry, &e.host);
}

void PauseCmd(CallContext& ctx, FrontierNode& node, bool pause) {
  Options o;
  std::string err;
  if (!o.Parse(ctx.args(), 1, "", {"CRAWL"}, &err)) return ctx.reply().Error(err);
  std::string crawl = o.Get("CRAWL");
  ReplyStatus(ctx, pause ? node.crawl().Pause(crawl) : node.crawl().Resume(crawl));
}

void SeenCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err;
  if (!o.Parse(ctx.args(), 2, "", {"CRAWL"}, &err)) return ctx.reply().Error(err);
  auto seen = node.crawl().Seen(CrawlOf(o), ctx.args()[1]);
  if (!seen.ok()) return ctx.reply().Error("ERR " + seen.status().message());
  ctx.reply().Integer(*seen ? 1 : 0);
}

void WriteUrlReport(RespWriter& w, const UrlReport& r) {
  const QueuedUrl& e = r.entry;
  const std::pair<const char*, std::string> text[] = {
      {"url", r.url},         {"crawl", r.crawl},           {"state", r.state},
      {"scope", r.scope},     {"robots", r.robots},         {"parent", e.parent},
      {"worker", r.worker},   {"lease_id", r.lease_id},     {"host", r.host.host},
      {"host_robots", r.host_known ? r.host.robots_state : ""},
  };
  const std::pair<const char*, int64_t> numbers[] = {
      {"seen", r.seen ? 1 : 0},
      {"entries", static_cast<int64_t>(r.entries)},
      {"ahead", static_cast<int64_t>(r.ahead)},
      {"depth", e.depth},
      {"attempt", e.url.empty() ? 0 : e.attempt},
      {"priority", e.priority},
      {"due_ms", e.due_ms},
      {"lease_left_ms", r.lease_left_ms},
      {"host_queued", static_cast<int64_t>(r.host.queued)},
      {"host_inflight", r.host.inflight},
      {"host_ready_in_ms", r.host.ready_in_ms},
      {"host_delay_ms", r.host.delay_ms},
      {"host_blocked_until_ms", r.host.blocked_until_ms},
  };
  // The last fetch result, after the fields older clients know.
  const FetchRecord& last = r.last;
  const std::pair<const char*, std::string> last_text[] = {
      {"last_outcome", UrlOutcomeName(last.outcome)},
      {"last_reason", last.reason},
      {"etag", last.etag},
      {"last_modified", last.last_modified}};
  const std::pair<const char*, int64_t> last_numbers[] = {
      {"last_status", last.status},
      {"last_attempt", last.attempt},
      {"last_at_ms", last.at_ms},
      {"last_fetch_ms", last.fetch_ms},
  };
  w.MapHeader(std::size(text) + std::size(numbers) + std::size(last_text) +
              std::size(last_numbers));
  auto write = [&w](const auto& fields) {
    for (const auto& [name, value] : fields) {
      w.Bulk(name);
      if constexpr (std::is_same_v<std::decay_t<decltype(value)>, int64_t>) {
        w.Integer(value);
      } else {
        w.Bulk(value);
      }
    }
  };
  write(text);
  write(numbers);
  write(last_text);
  write(last_numbers);
}

// FRONTIER.URL url [CRAWL id]: what the frontier knows of one URL. Reads
// the URL's host queue, so it runs on the admin thread.
void UrlCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err;
  if (!o.Parse(ctx.args(), 2, "", {"CRAWL"}, &err)) return ctx.reply().Error(err);
  FrontierNode* n = &node;
  ReplyFromAdminThread(ctx, node, [n, crawl = CrawlOf(o), url = std::string(ctx.args()[1])](
                                      RespWriter& w) {
    UrlReport r;
    Status s = n->crawl().Explain(crawl, url, &r);
    if (!s.ok()) return w.Error("ERR " + s.message());
    WriteUrlReport(w, r);
  });
}

void StatsCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err;
  if (!o.Parse(ctx.args(), 1, "", {"CRAWL"}, &err)) return ctx.reply().Error(err);
  std::string crawl = o.Get("CRAWL");
  auto fields = node.crawl().Stats(crawl).Fields();
  ctx.reply().MapHeader(fields.size() + 1);
  for (auto& [name, value] : fields) {
    ctx.reply().Bulk(name);
    ctx.reply().Integer(static_cast<int64_t>(value));
  }
  ctx.reply().Bulk("finished");
  ctx.reply().Integer(node.crawl().Finished(crawl.empty() ? kDefaultCrawl : crawl) ? 1 : 0);
}

// FRONTIER.DROPCRAWL id: the crawl is named, never defaulted.
void DropCrawlCmd(CallContext& ctx, FrontierNode& node) {
  uint64_t dropped = 0;
  Status s = node.crawl().DropCrawl(ctx.args()[1], &dropped);
  if (!s.ok()) return ctx.reply().Error("ERR " + s.message());
  ctx.reply().Integer(static_cast<int64_t>(dropped));
}

// FRONTIER.DENY ADD|DEL pattern [CRAWL id] -> 1 changed / 0 not;
// FRONTIER.DENY LIST [CRAWL id] -> the patterns.
void DenyCmd(CallContext& ctx, FrontierNode& node) {
  const std::string verb = AsciiLower(ctx.args()[1]);
  const bool list = verb == "list";
  if (!list && verb != "add" && verb != "del") {
    return ctx.reply().Error("ERR FRONTIER.DENY takes ADD, DEL or LIST");
  }
  if (!list && ctx.args().size() < 3) {
    return ctx.reply().Error(verb == "add" ? "ERR FRONTIER.DENY ADD needs a pattern"
                                           : "ERR FRONTIER.DENY DEL needs a pattern");
  }
  Options o;
  std::string err;
  if (!o.Parse(ctx.args(), list ? 2 : 3, "", {"CRAWL"}, &err)) return ctx.reply().Error(err);
  const std::string crawl = CrawlOf(o);
  if (list) {
    auto patterns = node.crawl().ListDenyPatterns(crawl);
    ctx.reply().ArrayHeader(patterns.size());
    for (const auto& p : patterns) ctx.reply().Bulk(p);
    return;
  }
  // On the admin thread: an edit builds the crawl's RE2::Set again (1000
  // patterns of 4 KiB take seconds), and the io thread serves others.
  FrontierNode* n = &node;
  ReplyFromAdminThread(ctx, node, [n, crawl, verb, pattern = std::string(ctx.args()[2])](
                                      RespWriter& w) {
    bool changed = false;
    Status s = verb == "add" ? n->crawl().AddDenyPattern(crawl, pattern, &changed)
                             : n->crawl().RemoveDenyPattern(crawl, pattern, &changed);
    if (!s.ok()) return w.Error("ERR " + s.message());
    w.Integer(changed ? 1 : 0);
  });
}

void CrawlsCmd(CallContext& ctx, FrontierNode& node) {
  auto crawls = node.crawl().ListCrawls();
  ctx.reply().ArrayHeader(crawls.size());
  for (const CrawlInfo& c : crawls) {
    const CrawlStats& s = c.stats;
    ctx.reply().ArrayHeader(10);
    ctx.reply().Bulk(c.id);
    ctx.reply().Integer(c.paused ? 1 : 0);
    ctx.reply().Integer(c.finished ? 1 : 0);
    for (uint64_t v : {s.urls_seen, s.urls_queued, s.urls_inflight, s.urls_done, s.urls_failed,
                       s.urls_dropped, s.hosts}) {
      ctx.reply().Integer(static_cast<int64_t>(v));
    }
  }
}

void HostsCmd(CallContext& ctx, FrontierNode& node) {
  Options o;
  std::string err;
  int64_t top = 20;
  if (!o.Parse(ctx.args(), 1, "", {"TOP", "CRAWL"}, &err) ||
      !o.Int("TOP", 1, 100000, &top, &err)) {
    return ctx.reply().Error(err);
  }
  auto hosts = node.crawl().ListHosts(o.Get("CRAWL"), static_cast<size_t>(top));
  ctx.reply().ArrayHeader(hosts.size());
  for (const auto& h : hosts) {
    ctx.reply().ArrayHeader(9);
    ctx.reply().Bulk(h.host);
    ctx.reply().Integer(static_cast<int64_t>(h.queued));
    ctx.reply().Integer(h.inflight);
    ctx.reply().Integer(static_cast<int64_t>(h.done));
    ctx.reply().Integer(h.ready_in_ms);
    ctx.reply().Integer(h.delay_ms);
    ctx.reply().Integer(h.blocked_until_ms);
    ctx.reply().Bulk(h.robots_state);
    ctx.reply().Bulk(h.crawl);
  }
}

CommandSpec Spec(int arity, uint32_t flags, std::string summary,
                 std::function<void(CallContext&)> handler) {
  CommandSpec s;
  s.arity = arity;
  s.flags = flags;
  s.summary = std::move(summary);
  s.handler = std::move(handler);
  return s;
}

}  // namespace

void RegisterFrontierCommands(RespServer& server, FrontierNode& node, Store& store) {
  FrontierNode* n = &node;
  server.Register("FRONTIER.ADD", Spec(-2, kCmdWrite, "Add URLs to the default crawl",
                                       [n](CallContext& c) { AddCmd(c, *n); }));
  server.Register("FRONTIER.ADDX",
                  Spec(-3, kCmdWrite, "Add URLs with crawl, depth, priority, parent, refetch",
                       [n](CallContext& c) { AddXCmd(c, *n); }));
  server.Register("FRONTIER.LEASE",
                  Spec(-3, kCmdWrite | kCmdBlocking, "Lease up to count URLs, optionally blocking",
                       [n](CallContext& c) { LeaseCmd(c, *n); }));
  server.Register("FRONTIER.DONE", Spec(-4, kCmdWrite, "Report a lease's outcome and links",
                                        [n](CallContext& c) { DoneCmd(c, *n); }));
  server.Register("FRONTIER.RENEW", Spec(-3, kCmdWrite | kCmdFast, "Extend a lease",
                                         [n](CallContext& c) { RenewCmd(c, *n); }));
  server.Register("FRONTIER.RELEASE",
                  Spec(-2, kCmdWrite, "End a worker's leases now, back to their queues",
                       [n](CallContext& c) { ReleaseCmd(c, *n); }));
  server.Register("FRONTIER.WORKERS", Spec(1, kCmdReadonly, "Leases in flight per worker",
                                           [n](CallContext& c) { WorkersCmd(c, *n); }));
  server.Register("FRONTIER.HOST", Spec(-4, kCmdWrite | kCmdAdmin,
                                        "Set a host's delay, block, budget or robots",
                                        [n](CallContext& c) { HostCmd(c, *n); }));
  server.Register("FRONTIER.QUEUE", Spec(-2, kCmdReadonly,
                                         "The first queued URLs of a host, in lease order",
                                         [n](CallContext& c) { QueueCmd(c, *n); }));
  server.Register("FRONTIER.SCAN",
                  Spec(-2, kCmdReadonly, "Every queued URL of a crawl, a page per call",
                       [n](CallContext& c) { ScanCmd(c, *n); }));
  server.Register("FRONTIER.DROP", Spec(-2, kCmdWrite | kCmdAdmin | kCmdBlocking,
                                        "Delete a host's queued URLs, or those matching a pattern",
                                        [n](CallContext& c) { DropCmd(c, *n); }));
  server.Register("FRONTIER.DROPCRAWL",
                  Spec(2, kCmdWrite | kCmdAdmin,
                       "Delete every queued URL of a crawl (leases in flight stay)",
                       [n](CallContext& c) { DropCrawlCmd(c, *n); }));
  server.Register("FRONTIER.DENY", Spec(-2, kCmdWrite | kCmdAdmin,
                                        "Add, remove or list a crawl's deny patterns",
                                        [n](CallContext& c) { DenyCmd(c, *n); }));
  server.Register("FRONTIER.CRAWLS", Spec(1, kCmdReadonly, "Every crawl with its counters",
                                          [n](CallContext& c) { CrawlsCmd(c, *n); }));
  server.Register("FRONTIER.PAUSE", Spec(-1, kCmdWrite | kCmdAdmin, "Pause leasing",
                                         [n](CallContext& c) { PauseCmd(c, *n, true); }));
  server.Register("FRONTIER.RESUME", Spec(-1, kCmdWrite | kCmdAdmin, "Resume leasing",
                                          [n](CallContext& c) { PauseCmd(c, *n, false); }));
  server.Register("FRONTIER.SEEN", Spec(-2, kCmdReadonly, "Was this URL ever added (exact)",
                                        [n](CallContext& c) { SeenCmd(c, *n); }));
  server.Register("FRONTIER.URL",
                  Spec(-2, kCmdReadonly | kCmdBlocking,
                       "What the frontier knows of one URL: seen, queued, leased, scope, robots",
                       [n](CallContext& c) { UrlCmd(c, *n); }));
  server.Register("FRONTIER.STATS", Spec(-1, kCmdReadonly, "Crawl counters",
                                         [n](CallContext& c) { StatsCmd(c, *n); }));
  server.Register("FRONTIER.HOSTS", Spec(-1, kCmdReadonly, "Hosts by queue size",
                                         [n](CallContext& c) { HostsCmd(c, *n); }));
  server.Register("FRONTIER.SNAPSHOT",
                  Spec(1, kCmdAdmin | kCmdBlocking, "Write the seen-set filters now",
                       [n](CallContext& c) {
                         OnAdminThread(c, *n, [n] { return n->seen().SnapshotNow(); });
                       }));
  Store* st = &store;
  server.Register("FRONTIER.CHECKPOINT",
                  Spec(2, kCmdAdmin | kCmdBlocking,
                       "Consistent RocksDB checkpoint into a new directory",
                       [n, st](CallContext& c) {
                         OnAdminThread(c, *n, [st, dir = std::string(c.args()[1])] {
                           return st->Checkpoint(dir);
                         });
                       }));
}

}  // namespace crawlfront
