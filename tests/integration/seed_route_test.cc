// crawlctl seed with several --frontier against two real daemons: every URL
// lands on the frontier that owns its host (rendezvous hashing of the host's
// seen-set partition over the --frontier addresses), no host is split, the
// summary and `crawlctl status` add up, and a seed stopped by a stalled
// frontier resumes from a line before which everything was acknowledged.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <csignal>
#include <fstream>
#include <regex>
#include <set>

#include "crawlfront/common/ownership.h"
#include "crawlfront/common/url.h"
#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using testutil::Daemon;
using testutil::TempDir;

constexpr uint32_t kPartitions = 64;  // testutil::StartFrontier's seen.partitions
constexpr int kHosts = 50;

std::string Crawlctl() { return testutil::BinDir() + "/crawlctl"; }

enum class Kind { kComment, kNew, kDuplicate, kBad };

// A seed line and what should happen to it. `host` is the host whose owner
// gets the line; empty for lines that do not parse (they go to the first
// --frontier).
struct SeedLine {
  std::string text;
  Kind kind;
  std::string host;
};

std::string Host(int h) { return "h" + std::to_string(h) + ".test"; }

// `rounds` URLs per host, hosts interleaved so every batch mixes owners.
std::vector<SeedLine> UrlLines(int first_round, int rounds) {
  std::vector<SeedLine> lines;
  for (int r = first_round; r < first_round + rounds; ++r) {
    for (int h = 0; h < kHosts; ++h) {
      lines.push_back(
          {"http://" + Host(h) + "/p" + std::to_string(r), Kind::kNew, Host(h)});
    }
  }
  return lines;
}

std::vector<SeedLine> SeedFileLines() {
  std::vector<SeedLine> lines = {{"# routed seeds", Kind::kComment, ""},
                                 {"", Kind::kComment, ""}};
  auto urls = UrlLines(0, 4);
  lines.insert(lines.end(), urls.begin(), urls.end());
  lines.insert(
      lines.end(),
      {
          {"HTTP://H7.Test/p0", Kind::kDuplicate, Host(7)},  // same once canonical
          {"http://h12.test/p1", Kind::kDuplicate, Host(12)},
          {"ftp://x", Kind::kBad, ""},
          {"not a url", Kind::kBad, ""},
          {"http://", Kind::kBad, ""},
          // crawlctl finds the host of these; their owner rejects them.
          {"http://user:pw@h3.test/x", Kind::kBad, Host(3)},
          {"http://h5.test/" + std::string(3000, 'a'), Kind::kBad, Host(5)},
      });
  return lines;
}

void WriteLines(const std::string& path, const std::vector<SeedLine>& lines) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& l : lines) out << l.text << "\n";
}

struct Share {
  uint64_t urls = 0, fresh = 0, seen = 0, rejected = 0;
};

class SeedRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string err;
    ASSERT_TRUE(testutil::StartFrontier(&a_, dir_a_, dir_a_ / "data", {}, &err)) << err;
    ASSERT_TRUE(testutil::StartFrontier(&b_, dir_b_, dir_b_ / "data", {}, &err)) << err;
    members_ = {Address(a_), Address(b_)};
  }

  static std::string Address(const Daemon& d) {
    return "127.0.0.1:" + std::to_string(d.Port("resp"));
  }
  Daemon& Node(size_t i) { return i == 0 ? a_ : b_; }

  // Index in members_ of the frontier that should get `line`.
  size_t Expected(const SeedLine& line, const std::string& crawl = "") const {
    if (line.host.empty()) return 0;
    uint32_t p = PartitionOfHost(CrawlHostHash(crawl, line.host), kPartitions);
    return OwnerOfPartition(p, members_);
  }

  integ::ProcessResult Ctl(const std::vector<std::string>& frontiers,
                           const std::vector<std::string>& args) {
    std::vector<std::string> argv = {Crawlctl()};
    for (const auto& f : frontiers) argv.insert(argv.end(), {"--frontier", f});
    argv.insert(argv.end(), args.begin(), args.end());
    return integ::Run(argv, scratch_.path());
  }

  // FRONTIER.SEEN on frontier i: 1, 0, or -1 when the call failed.
  int64_t Seen(size_t i, const std::string& url, const std::string& crawl = "") {
    auto client = integ::ConnectTo(Node(i).Port("resp"));
    if (!client) return -1;
    std::vector<std::string> cmd = {"FRONTIER.SEEN", url};
    if (!crawl.empty()) cmd.insert(cmd.end(), {"CRAWL", crawl});
    RespValue v = integ::Call(*client, cmd);
    return v.type == RespType::kInteger ? v.integer : -1;
  }

  int64_t Info(size_t i, const std::string& field) {
    auto client = integ::ConnectTo(Node(i).Port("resp"));
    return client ? integ::InfoField(*client, field) : -1;
  }

  // Host names in frontier i's queues.
  std::set<std::string> Hosts(size_t i) {
    std::set<std::string> out;
    auto client = integ::ConnectTo(Node(i).Port("resp"));
    if (!client) return out;
    RespValue v = integ::Call(*client, {"FRONTIER.HOSTS", "TOP", "1000"});
    for (const auto& row : v.elements) {
      if (!row.elements.empty()) out.insert(row.elements[0].str);
    }
    return out;
  }

  TempDir dir_a_, dir_b_, scratch_;
  Daemon a_, b_;
  std::vector<std::string> members_;
};

TEST_F(SeedRouteTest, EveryUrlGoesToItsOwner) {
  auto lines = SeedFileLines();
  std::string path = scratch_ / "seeds.txt";
  WriteLines(path, lines);
  // The truth, per frontier, from the line kinds and the owner function.
  Share want[2], total;
  for (const auto& l : lines) {
    if (l.kind == Kind::kComment) continue;
    Share& s = want[Expected(l)];
    for (Share* t : {&s, &total}) {
      ++t->urls;
      if (l.kind == Kind::kNew) ++t->fresh;
      if (l.kind == Kind::kDuplicate) ++t->seen;
      if (l.kind == Kind::kBad) ++t->rejected;
    }
  }
  ASSERT_GT(want[0].fresh, 0u);  // both frontiers own some hosts
  ASSERT_GT(want[1].fresh, 0u);

  auto r = Ctl(members_, {"--json", "seed", path, "--batch", "7", "--rejects",
                          scratch_ / "rejects.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  boost::system::error_code ec;
  auto json = boost::json::parse(r.out, ec);
  ASSERT_FALSE(ec) << r.out;
  const auto& o = json.as_object();
  EXPECT_EQ(o.at("lines").to_number<uint64_t>(), lines.size());
  EXPECT_EQ(o.at("urls").to_number<uint64_t>(), total.urls);
  EXPECT_EQ(o.at("new").to_number<uint64_t>(), total.fresh);
  EXPECT_EQ(o.at("seen").to_number<uint64_t>(), total.seen);
  EXPECT_EQ(o.at("rejected").to_number<uint64_t>(), total.rejected);
  const auto& shares = o.at("frontiers").as_array();
  ASSERT_EQ(shares.size(), 2u) << r.out;
  for (size_t i = 0; i < 2; ++i) {
    const auto& s = shares[i].as_object();
    EXPECT_EQ(s.at("frontier").as_string(), members_[i]);
    EXPECT_EQ(s.at("urls").to_number<uint64_t>(), want[i].urls) << members_[i];
    EXPECT_EQ(s.at("new").to_number<uint64_t>(), want[i].fresh) << members_[i];
    EXPECT_EQ(s.at("seen").to_number<uint64_t>(), want[i].seen) << members_[i];
    EXPECT_EQ(s.at("rejected").to_number<uint64_t>(), want[i].rejected) << members_[i];
    EXPECT_EQ(Info(i, "urls_seen"), static_cast<int64_t>(want[i].fresh)) << members_[i];
    EXPECT_EQ(Info(i, "urls_rejected"), static_cast<int64_t>(want[i].rejected))
        << members_[i];
  }
  EXPECT_EQ(integ::Lines(integ::ReadFile(scratch_ / "rejects.txt")).size(),
            total.rejected);

  // Each valid URL is on its owner and only there.
  for (const auto& l : lines) {
    if (l.kind != Kind::kNew) continue;
    size_t owner = Expected(l);
    EXPECT_EQ(Seen(owner, l.text), 1) << l.text << " missing on " << members_[owner];
    EXPECT_EQ(Seen(1 - owner, l.text), 0) << l.text << " also on " << members_[1 - owner];
  }
  // No host is split: the frontiers' host lists are disjoint and cover all.
  auto hosts_a = Hosts(0), hosts_b = Hosts(1);
  for (const auto& h : hosts_a) EXPECT_EQ(hosts_b.count(h), 0u) << h << " on both";
  std::set<std::string> all = hosts_a;
  all.insert(hosts_b.begin(), hosts_b.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(kHosts));

  // status sums the frontiers and shows each.
  auto st = Ctl(members_, {"--json", "status"});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  auto sj = boost::json::parse(st.out, ec);
  ASSERT_FALSE(ec) << st.out;
  EXPECT_EQ(sj.as_object().at("urls_seen").to_number<uint64_t>(), total.fresh);
  EXPECT_EQ(sj.as_object().at("urls_queued").to_number<uint64_t>(), total.fresh);
  EXPECT_EQ(sj.as_object().at("urls_rejected").to_number<uint64_t>(), total.rejected);
  EXPECT_EQ(sj.as_object().at("hosts").to_number<uint64_t>(),
            static_cast<uint64_t>(kHosts));
  EXPECT_EQ(sj.as_object().at("crawls").to_number<uint64_t>(),
            1u);  // one crawl on both, not two
  const auto& per = sj.as_object().at("frontiers").as_array();
  ASSERT_EQ(per.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(per[i].as_object().at("frontier").as_string(), members_[i]);
    EXPECT_EQ(per[i].as_object().at("urls_seen").to_number<uint64_t>(), want[i].fresh);
  }
  auto text = Ctl(members_, {"status"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (size_t i = 0; i < 2; ++i) {
    std::regex row("(^|\n)" + std::regex_replace(members_[i], std::regex("\\."), "\\.") +
                   "  urls_seen " + std::to_string(want[i].fresh) + " ");
    EXPECT_TRUE(std::regex_search(text.out, row)) << text.out;
  }

  // The order of --frontier does not matter: seeding again in reverse finds
  // every URL already seen, on the same owners.
  auto again = Ctl({members_[1], members_[0]},
                   {"--json", "seed", path, "--rejects", scratch_ / "rejects2.txt"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto aj = boost::json::parse(again.out, ec);
  ASSERT_FALSE(ec) << again.out;
  EXPECT_EQ(aj.as_object().at("new").to_number<uint64_t>(), 0u);
  EXPECT_EQ(aj.as_object().at("seen").to_number<uint64_t>(), total.fresh + total.seen);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(Info(i, "urls_seen"), static_cast<int64_t>(want[i].fresh)) << members_[i];
  }
}

TEST_F(SeedRouteTest, CrawlIdIsPartOfTheRoute) {
  // A crawl's hosts hash with its id, so their owners differ from the
  // default crawl's for some hosts; this seed includes such hosts.
  auto lines = UrlLines(0, 1);
  int moved = 0;
  for (const auto& l : lines) moved += Expected(l, "c1") != Expected(l);
  ASSERT_GT(moved, 0);
  std::string path = scratch_ / "c1.txt";
  WriteLines(path, lines);
  auto r = Ctl(members_, {"--crawl", "c1", "--json", "seed", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& l : lines) {
    size_t owner = Expected(l, "c1");
    EXPECT_EQ(Seen(owner, l.text, "c1"), 1)
        << l.text << " missing on " << members_[owner];
    EXPECT_EQ(Seen(1 - owner, l.text, "c1"), 0)
        << l.text << " also on " << members_[1 - owner];
  }
}

TEST_F(SeedRouteTest, RefusesFrontiersThatDisagree) {
  TempDir dir_c;
  Daemon c;
  std::string err;
  ASSERT_TRUE(testutil::StartFrontier(&c, dir_c, dir_c / "data",
                                      {"--set", "seen.partitions=128"}, &err))
      << err;
  std::string path = scratch_ / "few.txt";
  WriteLines(path, UrlLines(0, 1));
  auto r = Ctl({members_[0], Address(c)}, {"seed", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("disagree on seen_partitions: " + members_[0] + " has 64, " +
                       Address(c) + " has 128"),
            std::string::npos)
      << r.err;
  auto twice = Ctl({members_[0], members_[0]}, {"seed", path});
  EXPECT_EQ(twice.exit_code, 2) << "a usage error, found before connecting";
  EXPECT_NE(twice.err.find("listed twice"), std::string::npos) << twice.err;
  EXPECT_EQ(Info(0, "urls_seen"), 0);  // nothing was sent
}

// Sends SIGCONT on scope exit so a stopped daemon can be shut down normally.
struct ScopedSigcont {
  pid_t pid;
  ~ScopedSigcont() { kill(pid, SIGCONT); }
};

TEST_F(SeedRouteTest, ResumePositionHoldsAcrossFrontiers) {
  auto first = UrlLines(0, 4), second = UrlLines(4, 4);
  std::vector<SeedLine> lines = first;
  lines.insert(lines.end(), second.begin(), second.end());
  std::string path = scratch_ / "all.txt";
  WriteLines(path, lines);

  // crawlctl reads a FIFO so the test decides when it sees which lines.
  std::string fifo = scratch_ / "seed.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string out = scratch_ / "stall.out", err = scratch_ / "stall.err";
  pid_t pid =
      integ::Spawn({Crawlctl(), "--frontier", members_[0], "--frontier", members_[1],
                    "--timeout", "2000", "seed", "-", "--batch", "10"},
                   fifo, out, err);
  ASSERT_GT(pid, 0);
  int fd = open(fifo.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  auto write_lines = [&](const std::vector<SeedLine>& ls) {
    std::string text;
    for (const auto& l : ls) text += l.text + "\n";
    return write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  };
  ASSERT_TRUE(write_lines(first));
  // Full batches of the first lines reach both frontiers.
  bool sent =
      integ::WaitFor([&] { return Info(0, "urls_seen") + Info(1, "urls_seen") >= 150; },
                     std::chrono::seconds(60));
  ASSERT_TRUE(sent) << integ::ReadFile(err);
  // Frontier B stalls; the next batch for it times out and the seed stops.
  ASSERT_EQ(kill(b_.pid(), SIGSTOP), 0);
  {
    ScopedSigcont resume{b_.pid()};
    // Else a thread of B not yet stopped may answer the next batch.
    ASSERT_TRUE(integ::WaitStopped(b_.pid()));
    bool written = write_lines(second);
    close(fd);
    EXPECT_TRUE(written);
    EXPECT_EQ(integ::WaitExit(pid), 1) << integ::ReadFile(err);
  }
  std::string message = integ::ReadFile(err);
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(message, m, std::regex(R"(resume with --start-line (\d+))")))
      << message;
  uint64_t start = std::stoull(m[1]);
  EXPECT_GT(start, 1u) << message;
  EXPECT_LE(start, lines.size()) << message;
  // Every line before the resume position is on its owner.
  for (uint64_t n = 1; n < start; ++n) {
    const SeedLine& l = lines[n - 1];
    EXPECT_EQ(Seen(Expected(l), l.text), 1) << "line " << n << " " << l.text;
  }

  auto r = Ctl(members_, {"--json", "seed", path, "--start-line", std::to_string(start)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  boost::system::error_code ec;
  auto json = boost::json::parse(r.out, ec);
  ASSERT_FALSE(ec) << r.out;
  EXPECT_EQ(json.as_object().at("urls").to_number<uint64_t>(), lines.size() - start + 1);
  EXPECT_EQ(json.as_object().at("rejected").to_number<uint64_t>(), 0u);
  for (const auto& l : lines) {
    size_t owner = Expected(l);
    EXPECT_EQ(Seen(owner, l.text), 1) << l.text << " missing on " << members_[owner];
    EXPECT_EQ(Seen(1 - owner, l.text), 0) << l.text << " also on " << members_[1 - owner];
  }
  EXPECT_EQ(Info(0, "urls_seen") + Info(1, "urls_seen"),
            static_cast<int64_t>(lines.size()));
}

}  // namespace
}  // namespace crawlfront
