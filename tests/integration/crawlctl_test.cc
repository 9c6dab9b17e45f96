// crawlctl against the real daemon: seed summaries and reject reports, JSON
// output, resuming a seed after the frontier died mid-way, exit codes.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using testutil::Daemon;
using testutil::TempDir;

std::string Crawlctl() { return testutil::BinDir() + "/crawlctl"; }

// What a seed line is, as the test wrote it; the expected summary is counted
// from these kinds, not written down by hand.
enum class Kind { kComment, kBlank, kNew, kDuplicate, kBad };

struct SeedLine {
  std::string text;
  Kind kind;
};

std::vector<SeedLine> SeedFileLines() {
  std::vector<SeedLine> lines = {{"# seeds for the crawlctl test", Kind::kComment},
                                 {"", Kind::kBlank}};
  for (int i = 1; i <= 20; ++i)
    lines.push_back({"http://seed.test/" + std::to_string(i), Kind::kNew});
  lines.insert(
      lines.end(),
      {
          {"   ", Kind::kBlank},
          {"http://seed.test/3", Kind::kDuplicate},
          {"http://seed.test/7", Kind::kDuplicate},
          {"HTTP://Seed.Test/5", Kind::kDuplicate},  // same URL once canonicalized
          {"  # an indented comment", Kind::kComment},
          {"ftp://x", Kind::kBad},
          {"http://", Kind::kBad},
          {"not a url", Kind::kBad},
          {"http://seed.test/\x01"
           "bad\x7f",
           Kind::kBad},
          {"http://seed.test/" + std::string(3000, 'a'), Kind::kBad},
          {"  http://seed.test/with-blanks  ", Kind::kNew},
          {"http://other.test/", Kind::kNew},
          {"", Kind::kBlank},
      });
  return lines;
}

struct Summary {
  uint64_t lines = 0, urls = 0, fresh = 0, seen = 0, rejected = 0;
};

Summary Expected(const std::vector<SeedLine>& lines) {
  Summary s;
  for (const auto& l : lines) {
    ++s.lines;
    if (l.kind == Kind::kComment || l.kind == Kind::kBlank) continue;
    ++s.urls;
    if (l.kind == Kind::kNew) ++s.fresh;
    if (l.kind == Kind::kDuplicate) ++s.seen;
    if (l.kind == Kind::kBad) ++s.rejected;
  }
  return s;
}

class CrawlctlTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(Start()); }
  bool Start() {
    std::string err;
    bool ok = testutil::StartFrontier(&frontier_, dir_, dir_ / "data", {}, &err);
    EXPECT_TRUE(ok) << err;
    return ok;
  }
  std::string address() const {
    return "127.0.0.1:" + std::to_string(frontier_.Port("resp"));
  }
  integ::ProcessResult Ctl(std::vector<std::string> args, const std::string& in = "") {
    args.insert(args.begin(), {Crawlctl(), "--frontier", address()});
    return integ::Run(args, dir_.path(), in);
  }

  TempDir dir_;
  Daemon frontier_;
};

TEST_F(CrawlctlTest, SeedCountsAndReportsEveryLine) {
  auto lines = SeedFileLines();
  std::string path = dir_ / "seeds.txt";
  {
    std::ofstream out(path, std::ios::binary);
    for (const auto& l : lines) out << l.text << "\n";
  }
  Summary want = Expected(lines);
  std::string rejects = dir_ / "rejects.txt";
  auto r = Ctl({"seed", path, "--rejects", rejects});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::smatch m;
  std::regex summary(
      R"(seeded (\d+) URLs from (\d+) lines in [0-9.]+ s: (\d+) new, (\d+) already seen, (\d+) rejected)");
  ASSERT_TRUE(std::regex_search(r.out, m, summary)) << r.out;
  EXPECT_EQ(std::stoull(m[1]), want.urls);
  EXPECT_EQ(std::stoull(m[2]), want.lines);
  EXPECT_EQ(std::stoull(m[3]), want.fresh);
  EXPECT_EQ(std::stoull(m[4]), want.seen);
  EXPECT_EQ(std::stoull(m[5]), want.rejected);

  // Each rejected line is reported once, with its number and a reason.
  std::string report = integ::ReadFile(rejects);
  EXPECT_EQ(integ::Lines(report).size(), want.rejected) << report;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].kind != Kind::kBad) continue;
    std::regex entry("(^|\n)line " + std::to_string(i + 1) + ": [^:\n]+[^\n]*");
    EXPECT_TRUE(std::regex_search(report, entry)) << "line " << i + 1 << " in:\n"
                                                  << report;
  }
  for (const auto& l : lines) {
    if (l.kind != Kind::kNew) continue;
    auto seen = Ctl({"seen", l.text.substr(l.text.find_first_not_of(' '))});
    EXPECT_EQ(seen.exit_code, 0) << seen.err;
    EXPECT_EQ(seen.out, "1\n") << l.text;
  }

  // Seeding the same file again: everything valid is now a duplicate.
  auto again = Ctl({"--json", "seed", path, "--rejects", dir_ / "rejects2.txt"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  boost::system::error_code ec;
  auto json = boost::json::parse(again.out, ec);
  ASSERT_FALSE(ec) << again.out;
  auto& o = json.as_object();
  EXPECT_EQ(o.at("lines").to_number<uint64_t>(), want.lines);
  EXPECT_EQ(o.at("urls").to_number<uint64_t>(), want.urls);
  EXPECT_EQ(o.at("new").to_number<uint64_t>(), 0u);
  EXPECT_EQ(o.at("seen").to_number<uint64_t>(), want.fresh + want.seen);
  EXPECT_EQ(o.at("rejected").to_number<uint64_t>(), want.rejected);

  auto status = Ctl({"--json", "status"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  auto st = boost::json::parse(status.out, ec);
  ASSERT_FALSE(ec) << status.out;
  EXPECT_EQ(st.as_object().at("urls_seen").to_number<uint64_t>(), want.fresh);
}

TEST_F(CrawlctlTest, SeedResumesAfterTheFrontierDies) {
  constexpr int kUrls = 100'000;
  std::string path = dir_ / "big.txt";
  {
    std::ofstream out(path);
    for (int i = 0; i < kUrls; ++i) {
      out << "http://bulk" << i % 100 << ".test/p" << i << "\n";
    }
  }
  // Through stdin, as in `generate | crawlctl seed -`.
  std::string out = dir_ / "seed1.out", err = dir_ / "seed1.err";
  pid_t pid = integ::Spawn({Crawlctl(), "--frontier", address(), "--timeout", "3000",
                            "seed", "-", "--batch", "100"},
                           path, out, err);
  ASSERT_GT(pid, 0);
  auto client = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(client);
  bool mid =
      integ::WaitFor([&] { return integ::InfoField(*client, "urls_seen") >= 3000; },
                     std::chrono::seconds(60));
  frontier_.Kill9();
  int code = integ::WaitExit(pid);
  ASSERT_TRUE(mid) << "seed did not progress: " << integ::ReadFile(err);
  std::string message = integ::ReadFile(err);
  ASSERT_EQ(code, 1) << "seed finished before the kill? " << message;
  EXPECT_NE(message.find("seed stopped:"), std::string::npos) << message;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(message, m, std::regex(R"(resume with --start-line (\d+))")))
      << message;
  uint64_t start = std::stoull(m[1]);
  EXPECT_GT(start, 1u);
  EXPECT_LE(start, static_cast<uint64_t>(kUrls));

  client.reset();
  ASSERT_TRUE(Start());
  auto r = Ctl(
      {"--json", "seed", path, "--batch", "1000", "--start-line", std::to_string(start)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  boost::system::error_code ec;
  auto json = boost::json::parse(r.out, ec);
  ASSERT_FALSE(ec) << r.out;
  EXPECT_EQ(json.as_object().at("urls").to_number<uint64_t>(), kUrls - start + 1);
  EXPECT_EQ(json.as_object().at("rejected").to_number<uint64_t>(), 0u);

  client = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(client);
  for (int i = 0; i < kUrls; i += 1000) {
    std::vector<std::vector<std::string>> cmds;
    for (int j = i; j < std::min(kUrls, i + 1000); ++j) {
      cmds.push_back({"FRONTIER.SEEN", "http://bulk" + std::to_string(j % 100) +
                                           ".test/p" + std::to_string(j)});
    }
    auto replies = client->Pipeline(cmds);
    ASSERT_TRUE(replies.ok()) << replies.status().ToString();
    for (size_t j = 0; j < replies->size(); ++j) {
      ASSERT_EQ((*replies)[j].integer, 1) << "not seen: " << cmds[j][1];
    }
  }
  EXPECT_EQ(integ::InfoField(*client, "urls_seen"), kUrls);
}

TEST_F(CrawlctlTest, FailedResumeKeepsItsStartLine) {
  // A resumed seed that fails before its first batch is acknowledged must
  // point at the same --start-line again, not back at line 1.
  std::string path = dir_ / "few.txt";
  {
    std::ofstream out(path);
    for (int i = 0; i < 20; ++i) out << "http://few.test/" << i << "\n";
  }
  const std::string start = "5";
  frontier_.Kill9();
  auto r = Ctl({"--timeout", "2000", "seed", path, "--start-line", start});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("resume with --start-line " + start + "\n"), std::string::npos)
      << r.err;
}

// Snapshot and checkpoint run on the daemon's admin thread; crawlctl waits
// for their reply. A checkpoint is a data dir a frontier can open.
TEST_F(CrawlctlTest, SnapshotAndCheckpoint) {
  const std::string seeds = dir_ / "snap-seeds.txt";
  std::ofstream(seeds) << "http://snap.test/a\nhttp://snap.test/b\n";
  auto add = Ctl({"seed", seeds});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto snap = Ctl({"snapshot"});
  EXPECT_EQ(snap.exit_code, 0) << snap.err;
  EXPECT_EQ(snap.out, "OK\n");
  const std::string copy = dir_ / "copy";
  auto cp = Ctl({"checkpoint", copy});
  EXPECT_EQ(cp.exit_code, 0) << cp.err;
  EXPECT_EQ(cp.out, "OK: checkpoint in " + copy + " (on the frontier's machine)\n");
  // A relative directory is crawlctl's, not the frontier's working directory.
  std::filesystem::create_directory(dir_ / "elsewhere");
  auto rel = integ::Run({"/bin/sh", "-c",
                         "cd \"$1\" && exec \"$2\" --frontier \"$3\" checkpoint rel-copy", "sh",
                         dir_ / "elsewhere", Crawlctl(), address()},
                        dir_.path());
  EXPECT_EQ(rel.exit_code, 0) << rel.err;
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "elsewhere/rel-copy")) << rel.out;
  auto again = Ctl({"checkpoint", copy});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("frontier 127.0.0.1:"), std::string::npos) << again.err;

  Daemon restored;
  std::string err;
  ASSERT_TRUE(testutil::StartFrontier(&restored, dir_, copy, {}, &err)) << err;
  auto c = integ::ConnectTo(restored.Port("resp"));
  ASSERT_TRUE(c);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.SEEN", "http://snap.test/b"}).integer, 1);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.SEEN", "http://snap.test/c"}).integer, 0);
}

TEST_F(CrawlctlTest, QueueShowsAHostsUrlsThenHostDropDeletesThem) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  std::vector<std::string> add = {"FRONTIER.ADD"};
  for (int i = 0; i < 12; ++i) add.push_back("http://drop.test/" + std::to_string(i));
  for (int i = 0; i < 3; ++i) add.push_back("http://keep.test/" + std::to_string(i));
  ASSERT_EQ(integ::Call(*c, add).elements.size(), 15u);
  ASSERT_EQ(integ::InfoField(*c, "urls_queued"), 15);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADDX", "DEPTH", "2", "PRIORITY", "9", "PARENT",
                             "http://keep.test/0", "URLS", "http://drop.test/first"})
                .elements.size(),
            1u);

  auto queue = Ctl({"queue", "drop.test", "--count", "3"});
  EXPECT_EQ(queue.exit_code, 0) << queue.err;
  std::vector<std::string> lines = integ::Lines(queue.out);
  ASSERT_EQ(lines.size(), 4u) << queue.out;  // header + 3
  EXPECT_TRUE(std::regex_search(
      lines[1], std::regex(R"(^ready +2 +1 +9 +- +http://drop\.test/first \(http://keep\.test/0\)$)")))
      << lines[1];
  EXPECT_TRUE(std::regex_search(lines[2], std::regex(R"(http://drop\.test/0$)"))) << lines[2];
  auto qjson = Ctl({"--json", "queue", "drop.test", "--count", "100"});
  EXPECT_EQ(qjson.exit_code, 0) << qjson.err;
  const boost::json::array rows = boost::json::parse(qjson.out).as_array();
  EXPECT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows[0].at("priority").to_number<int64_t>(), 9);
  EXPECT_EQ(rows[0].at("state").as_string(), "ready");
  EXPECT_EQ(Ctl({"queue"}).exit_code, 2);
  RespValue bad_count = integ::Call(*c, {"FRONTIER.QUEUE", "drop.test", "COUNT", "0"});
  EXPECT_EQ(bad_count.type, RespType::kError);

  auto drop = Ctl({"host", "DROP.test", "drop"});
  EXPECT_EQ(drop.exit_code, 0) << drop.err;
  EXPECT_EQ(drop.out, "dropped 13 queued URLs of DROP.test\n");
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 3);
  EXPECT_EQ(integ::InfoField(*c, "urls_dropped"), 13);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.QUEUE", "drop.test"}).elements.size(), 0u);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DROP", "drop.test"}).integer, 0) << "already empty";
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.SEEN", "http://drop.test/4"}).integer, 1);
  RespValue bad = integ::Call(*c, {"FRONTIER.DROP", "a b"});
  EXPECT_EQ(bad.type, RespType::kError);
  EXPECT_NE(bad.str.find("bad host name"), std::string::npos) << bad.str;

  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADD", "http://keep.test/cal/2026-01",
                             "http://keep.test/cal/2026-02", "http://keep.test/about"})
                .elements.size(),
            3u);
  auto match = Ctl({"host", "keep.test", "drop", "--match", "/cal/[0-9-]+$"});
  EXPECT_EQ(match.exit_code, 0) << match.err;
  EXPECT_EQ(match.out, "dropped 2 queued URLs of keep.test\n");
  RespValue bad_re = integ::Call(*c, {"FRONTIER.DROP", "keep.test", "MATCH", "("});
  EXPECT_EQ(bad_re.type, RespType::kError);
  EXPECT_NE(bad_re.str.find("MATCH: bad pattern"), std::string::npos) << bad_re.str;
  EXPECT_EQ(Ctl({"host", "keep.test", "drop", "--match"}).exit_code, 2);
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 4) << "3 kept earlier and /about";

  auto json = Ctl({"--json", "host", "keep.test", "drop"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  boost::json::value doc = boost::json::parse(json.out);
  EXPECT_EQ(doc.at("dropped").to_number<int64_t>(), 4);
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 0);
  EXPECT_EQ(integ::InfoField(*c, "finished"), 1);
}

// crawlctl url and FRONTIER.URL: one URL's state, text and JSON, from the
// daemon's own replies (lease id from its LEASE, due time from the ADDX).
// crawlctl dump lists every queued URL of a crawl (FRONTIER.SCAN, page by
// page), which crawlctl seed adds to another frontier; with two frontiers it
// lists both.
TEST_F(CrawlctlTest, DumpListsEveryQueuedUrlAndSeedTakesItBack) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  std::set<std::string> urls;
  std::vector<std::string> add = {"FRONTIER.ADD"};
  for (int i = 0; i < 2500; ++i) {
    add.push_back("http://h" + std::to_string(i % 50) + ".test/p" + std::to_string(i));
    urls.insert(add.back());
  }
  ASSERT_EQ(integ::Call(*c, add).elements.size(), 2500u);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADDX", "CRAWL", "c2", "URLS", "http://other.test/x"})
                .elements.size(),
            1u);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.LEASE", "w1", "3"}).elements.size(), 3u);

  auto dump = Ctl({"dump"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  std::vector<std::string> lines = integ::Lines(dump.out);
  EXPECT_EQ(lines.size(), urls.size()) << "each URL once, leased ones too";
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()), urls);
  EXPECT_NE(dump.err.find("dump: 2500 URLs of crawl default from 1 frontier"), std::string::npos)
      << dump.err;

  auto json = Ctl({"--crawl", "c2", "--json", "dump"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  lines = integ::Lines(json.out);
  ASSERT_EQ(lines.size(), 1u) << json.out;
  const boost::json::object row = boost::json::parse(lines[0]).as_object();
  EXPECT_EQ(row.at("url").as_string(), "http://other.test/x");
  EXPECT_EQ(row.at("host").as_string(), "other.test");
  EXPECT_EQ(row.at("state").as_string(), "ready");

  const std::string file = dir_ / "dump.txt";
  {
    std::ofstream out(file);
    out << dump.out;
  }
  Daemon second;
  std::string err;
  ASSERT_TRUE(testutil::StartFrontier(&second, dir_, dir_ / "data2", {}, &err)) << err;
  const std::string second_address = "127.0.0.1:" + std::to_string(second.Port("resp"));
  auto seed = integ::Run({Crawlctl(), "--frontier", second_address, "seed", file}, dir_.path());
  ASSERT_EQ(seed.exit_code, 0) << seed.err;
  auto both = Ctl({"--frontier", second_address, "dump"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(integ::Lines(both.out).size(), 2 * urls.size());
  EXPECT_NE(both.err.find("from 2 frontiers"), std::string::npos) << both.err;

  EXPECT_EQ(integ::Call(*c, {"FRONTIER.SCAN", "zz"}).str, "ERR invalid cursor");
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.SCAN", "0", "COUNT", "0"}).str,
            "ERR COUNT must be an integer in [1, 10000]");
  EXPECT_EQ(Ctl({"dump", "extra"}).exit_code, 2);

  auto matching = Ctl({"dump", "--match", "^http://h7\\.test/p[0-9]*7$"});
  ASSERT_EQ(matching.exit_code, 0) << matching.err;
  std::set<std::string> want_matching;
  const std::regex re("^http://h7\\.test/p[0-9]*7$");
  for (const std::string& u : urls) {
    if (std::regex_search(u, re)) want_matching.insert(u);
  }
  lines = integ::Lines(matching.out);
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()), want_matching);
  EXPECT_EQ(lines.size(), 50u) << "h7.test's 50 URLs: p7, p57, ..., p2457";
  auto bad = Ctl({"dump", "--match", "(unclosed"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("MATCH: bad pattern"), std::string::npos) << bad.err;
}

TEST_F(CrawlctlTest, UrlTellsWhereAUrlIs) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADDX", "DEPTH", "3", "PARENT", "http://u.test/",
                             "URLS", "http://u.test/a", "http://u.test/b"})
                .elements.size(),
            2u);
  const int64_t due = 4'102'444'800'000;  // 2100-01-01
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADDX", "REFETCH", std::to_string(due), "URLS",
                             "http://u.test/later"})
                .elements.size(),
            1u);

  auto text = Ctl({"url", "HTTP://U.test/b"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("url       http://u.test/b\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("state     ready\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("queue     1 entry; 1 ahead"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("depth 3, attempt 1, priority 0, parent http://u.test/"),
            std::string::npos) << text.out;
  EXPECT_NE(text.out.find("robots    unknown\n"), std::string::npos) << text.out;

  auto later = Ctl({"--json", "url", "http://u.test/later"});
  EXPECT_EQ(later.exit_code, 0) << later.err;
  boost::json::value doc = boost::json::parse(later.out);
  EXPECT_EQ(doc.at("state").as_string(), "scheduled");
  EXPECT_EQ(doc.at("due_ms").to_number<int64_t>(), due);
  EXPECT_EQ(doc.at("frontier").as_string(), address());

  // The first lease of a new host is its robots.txt.
  RespValue lease = integ::Call(*c, {"FRONTIER.LEASE", "w7", "1"});
  ASSERT_EQ(lease.elements.size(), 1u);
  const std::string lease_id = lease.elements[0].elements[0].str;
  auto robots = Ctl({"--json", "url", "http://u.test/robots.txt"});
  doc = boost::json::parse(robots.out);
  EXPECT_EQ(doc.at("state").as_string(), "leased");
  EXPECT_EQ(doc.at("worker").as_string(), "w7");
  EXPECT_EQ(doc.at("lease_id").as_string(), lease_id);
  EXPECT_EQ(doc.at("seen").to_number<int64_t>(), 0) << "robots.txt is not a queued URL";

  RespValue unseen = integ::Call(*c, {"FRONTIER.URL", "http://u.test/never"});
  ASSERT_EQ(unseen.type, RespType::kArray) << "RESP2: a flat map";
  std::map<std::string, std::string> f;
  for (size_t i = 0; i + 1 < unseen.elements.size(); i += 2) {
    const RespValue& v = unseen.elements[i + 1];
    f[unseen.elements[i].str] = v.type == RespType::kInteger ? std::to_string(v.integer) : v.str;
  }
  EXPECT_EQ(f["state"], "unseen");
  EXPECT_EQ(f["host_queued"], "3");
  EXPECT_EQ(f["host_inflight"], "1") << "its robots.txt";

  RespValue bad = integ::Call(*c, {"FRONTIER.URL", "not a url"});
  EXPECT_EQ(bad.type, RespType::kError);
  EXPECT_NE(bad.str.find("bad url"), std::string::npos) << bad.str;
  auto bad_ctl = Ctl({"url", "not a url"});
  EXPECT_EQ(bad_ctl.exit_code, 1);
  EXPECT_NE(bad_ctl.err.find("bad url"), std::string::npos) << bad_ctl.err;
  EXPECT_EQ(Ctl({"url"}).exit_code, 2);
}

// The last fetch result of a URL that left the frontier, and of one queued
// again for a retry, as the worker reported them.
TEST_F(CrawlctlTest, UrlSaysHowItsLastFetchEnded) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADD", "http://f.test/ok", "http://g.test/busy"})
                .elements.size(),
            2u);
  // Each host's robots.txt first (404: all allowed), then its page after
  // the politeness delay.
  std::map<std::string, std::string> page_lease;  // url -> lease id
  for (int i = 0; i < 30 && page_lease.size() < 2; ++i) {
    RespValue leases = integ::Call(*c, {"FRONTIER.LEASE", "w1", "2", "BLOCK", "1000"});
    for (const RespValue& l : leases.elements) {
      ASSERT_GE(l.elements.size(), 5u);
      const std::string& id = l.elements[0].str;
      if (l.elements[4].str == "robots") {
        ASSERT_EQ(integ::Call(*c, {"FRONTIER.DONE", "w1", id, "robots", "STATUS", "404"}).integer,
                  1);
      } else {
        page_lease[l.elements[1].str] = id;
      }
    }
  }
  ASSERT_EQ(page_lease.size(), 2u);
  RespValue bad_etag = integ::Call(*c, {"FRONTIER.DONE", "w1", page_lease["http://f.test/ok"],
                                        "fetched", "STATUS", "200", "ETAG", "\"a\"\r\nX: 1"});
  EXPECT_EQ(bad_etag.str, "ERR ETAG must be at most 256 printable ASCII bytes");
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.DONE", "w1", page_lease["http://f.test/ok"], "fetched",
                             "STATUS", "200", "MS", "42", "ETAG", "\"e1\""})
                .integer,
            1);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.DONE", "w1", page_lease["http://g.test/busy"], "retry",
                             "STATUS", "503", "DELAY", "600000", "REASON", "HTTP 503"})
                .integer,
            1);

  auto ok = Ctl({"url", "http://f.test/ok"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("state     done (seen; neither queued nor leased)\n"), std::string::npos)
      << ok.out;
  std::smatch m;
  const std::regex fetched(
      R"(last      fetched \(HTTP 200\) at \d{4}-\d\d-\d\dT[0-9:.]+Z, attempt 1, response in 42 ms\n)");
  EXPECT_TRUE(std::regex_search(ok.out, m, fetched)) << ok.out;

  // A recrawl is leased with the validators its last fetch reported.
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADDX", "REFETCH", "1", "URLS", "http://f.test/ok"})
                .elements[0]
                .integer,
            2);
  RespValue recrawl;
  for (int i = 0; i < 30 && recrawl.elements.empty(); ++i) {
    recrawl = integ::Call(*c, {"FRONTIER.LEASE", "w1", "1", "BLOCK", "1000"});
  }
  ASSERT_EQ(recrawl.elements.size(), 1u);
  ASSERT_EQ(recrawl.elements[0].elements.size(), 8u);
  EXPECT_EQ(recrawl.elements[0].elements[1].str, "http://f.test/ok");
  EXPECT_EQ(recrawl.elements[0].elements[6].str, "\"e1\"");
  EXPECT_EQ(recrawl.elements[0].elements[7].str, "");

  auto busy = Ctl({"--json", "url", "http://g.test/busy"});
  EXPECT_EQ(busy.exit_code, 0) << busy.err;
  boost::json::value doc = boost::json::parse(busy.out);
  EXPECT_EQ(doc.at("state").as_string(), "scheduled");
  EXPECT_EQ(doc.at("last_outcome").as_string(), "retry");
  EXPECT_EQ(doc.at("last_status").to_number<int64_t>(), 503);
  EXPECT_EQ(doc.at("last_attempt").to_number<int64_t>(), 1);
  EXPECT_EQ(doc.at("last_reason").as_string(), "HTTP 503");
  const int64_t at = doc.at("last_at_ms").to_number<int64_t>();
  EXPECT_LE(at, doc.at("due_ms").to_number<int64_t>() - 600000) << "reported before it is due";
  EXPECT_GT(at, 1'700'000'000'000);

  auto never = Ctl({"--json", "url", "http://f.test/never"});
  doc = boost::json::parse(never.out);
  EXPECT_EQ(doc.at("last_outcome").as_string(), "");
  EXPECT_EQ(doc.at("last_at_ms").to_number<int64_t>(), 0);
}

// With URLs queued and none in flight, status says why: hosts ready that no
// worker leases, then a host waiting on its failed robots.txt.
TEST_F(CrawlctlTest, StatusSaysWhyNothingIsInFlight) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADD", "http://i.test/a"}).elements.size(), 1u);
  auto idle = Ctl({"status"});
  EXPECT_EQ(idle.exit_code, 0) << idle.err;
  EXPECT_NE(idle.out.find("1 URL queued, none in flight:\n"), std::string::npos) << idle.out;
  EXPECT_NE(idle.out.find("ready: 1 host could be leased now"), std::string::npos) << idle.out;
  EXPECT_EQ(idle.out.find("waiting:"), std::string::npos) << idle.out;

  RespValue lease = integ::Call(*c, {"FRONTIER.LEASE", "w1", "1"});
  ASSERT_EQ(lease.elements.size(), 1u);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DONE", "w1", lease.elements[0].elements[0].str,
                             "robots", "STATUS", "500"})
                .integer,
            1);
  auto waiting = Ctl({"status"});
  EXPECT_EQ(waiting.exit_code, 0) << waiting.err;
  EXPECT_NE(waiting.out.find("waiting: i.test (1 URL queued; robots.txt failed, asked again in "),
            std::string::npos)
      << waiting.out;
  EXPECT_EQ(waiting.out.find("ready:"), std::string::npos) << waiting.out;
  auto json = Ctl({"--json", "status"});
  EXPECT_NO_THROW(boost::json::parse(json.out)) << json.out;
}

TEST_F(CrawlctlTest, CrawlsListsEachCrawlAndCrawlDropEmptiesOne) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  std::vector<std::string> add = {"FRONTIER.ADDX", "CRAWL", "big", "URLS"};
  for (int h = 0; h < 30; ++h) add.push_back("http://h" + std::to_string(h) + ".test/");
  ASSERT_EQ(integ::Call(*c, add).elements.size(), 30u);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADDX", "CRAWL", "small", "URLS", "http://h1.test/",
                             "http://h2.test/"})
                .elements.size(),
            2u);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.PAUSE", "CRAWL", "small"}).str, "OK");

  auto list = Ctl({"crawls"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  std::vector<std::string> lines = integ::Lines(list.out);
  ASSERT_EQ(lines.size(), 3u) << list.out;  // header, big, small
  EXPECT_TRUE(std::regex_search(lines[1], std::regex(R"(^big +running +30 +30 +0 +0 +0 +0 +30$)")))
      << lines[1];
  EXPECT_TRUE(std::regex_search(lines[2], std::regex(R"(^small +paused +2 +2 )"))) << lines[2];

  auto drop = Ctl({"crawl", "big", "drop"});
  EXPECT_EQ(drop.exit_code, 0) << drop.err;
  EXPECT_EQ(drop.out, "dropped 30 queued URLs of crawl big\n");
  auto json = Ctl({"--json", "crawls"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const boost::json::array rows = boost::json::parse(json.out).as_array();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("crawl").as_string(), "big");
  EXPECT_EQ(rows[0].at("state").as_string(), "finished");
  EXPECT_EQ(rows[0].at("urls_queued").to_number<int64_t>(), 0);
  EXPECT_EQ(rows[0].at("urls_dropped").to_number<int64_t>(), 30);
  EXPECT_EQ(rows[1].at("urls_queued").to_number<int64_t>(), 2) << "the other crawl keeps its URLs";
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DROPCRAWL", "nosuch"}).integer, 0);
  RespValue bad = integ::Call(*c, {"FRONTIER.DROPCRAWL", "a b"});
  EXPECT_EQ(bad.type, RespType::kError);
  EXPECT_NE(bad.str.find("bad crawl id"), std::string::npos) << bad.str;
  EXPECT_EQ(Ctl({"crawl", "big"}).exit_code, 2);
  EXPECT_EQ(Ctl({"crawls", "extra"}).exit_code, 2);

  // Pausing a crawl no frontier has creates it: crawlctl says so.
  auto known = Ctl({"pause", "--crawl", "small"});
  EXPECT_EQ(known.exit_code, 0) << known.err;
  EXPECT_EQ(known.err, "");
  auto typo = Ctl({"pause", "--crawl", "smal"});
  EXPECT_EQ(typo.exit_code, 0) << typo.err;
  EXPECT_EQ(typo.out, "OK\n");
  EXPECT_NE(typo.err.find("note: no frontier has crawl 'smal' yet; it is created now"),
            std::string::npos)
      << typo.err;
}

// Global options work after the command too; hosts of other crawls are
// shown with their crawl, and --crawl (anywhere) reaches them.
TEST_F(CrawlctlTest, GlobalOptionsGoAnywhereAndHostsNameTheirCrawl) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADDX", "CRAWL", "c3", "URLS", "http://only-c3.test/a",
                             "http://only-c3.test/b"})
                .elements.size(),
            2u);
  auto hosts = Ctl({"hosts"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_TRUE(std::regex_search(hosts.out, std::regex(R"(\bcrawl\n)"))) << hosts.out;
  EXPECT_TRUE(std::regex_search(hosts.out, std::regex(R"(only-c3\.test +2 .* c3\n)")))
      << hosts.out;
  EXPECT_TRUE(std::regex_search(hosts.out, std::regex(R"(only-c3\.test +2 +0 +0 +0 +[0-9]+ +- )")))
      << "not blocked: " << hosts.out;
  auto json = Ctl({"hosts", "--json", "--top", "5"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const boost::json::array rows = boost::json::parse(json.out).as_array();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("crawl").as_string(), "c3");
  // A block shows as a UTC time to people, as Unix ms in JSON.
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.HOST", "only-c3.test", "BLOCK", "4102444800000", "CRAWL",
                             "c3"})
                .str,
            "OK");
  auto blocked = Ctl({"hosts", "--crawl", "c3"});
  EXPECT_NE(blocked.out.find(" 2100-01-01T00:00:00Z "), std::string::npos) << blocked.out;
  auto blocked_json = Ctl({"hosts", "--json"});
  EXPECT_EQ(boost::json::parse(blocked_json.out).as_array()[0].at("blocked_until"),
            boost::json::value(4102444800000)) << blocked_json.out;

  EXPECT_EQ(Ctl({"queue", "only-c3.test"}).out.find("only-c3.test/a"), std::string::npos)
      << "the default crawl does not have the host";
  auto queue = Ctl({"queue", "only-c3.test", "--crawl", "c3"});
  EXPECT_NE(queue.out.find("http://only-c3.test/a"), std::string::npos) << queue.out << queue.err;
  auto drop = Ctl({"host", "only-c3.test", "drop", "--crawl", "c3"});
  EXPECT_EQ(drop.exit_code, 0) << drop.err;
  EXPECT_EQ(drop.out, "dropped 2 queued URLs of only-c3.test\n");

  auto status = Ctl({"status", "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(boost::json::parse(status.out).is_object()) << status.out;
}

// --watch redraws a terminal; into a file it writes plain blocks.
TEST_F(CrawlctlTest, WatchIntoAFileHasNoScreenCodes) {
  const std::string out = dir_ / "watch.out";
  pid_t pid = integ::Spawn({Crawlctl(), "--frontier", address(), "status", "--watch",
                            "--interval", "1"},
                           "", out, dir_ / "watch.err");
  ASSERT_GT(pid, 0);
  // Two blocks written, then stopped (bounded: 20 s).
  integ::WaitFor(
      [&] {
        const std::string text = integ::ReadFile(out);
        const size_t first = text.find("urls_seen");
        return first != std::string::npos && text.find("urls_seen", first + 1) != std::string::npos;
      },
      std::chrono::seconds(20), std::chrono::milliseconds(100));
  kill(pid, SIGTERM);
  integ::WaitExit(pid);
  const std::string text = integ::ReadFile(out);
  EXPECT_NE(text.find("urls_seen"), std::string::npos) << text;
  EXPECT_EQ(text.find('\033'), std::string::npos) << "escape codes in a file";
}

TEST_F(CrawlctlTest, DenyRejectsMatchingUrlsOfItsCrawlUntilRemoved) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  auto add = Ctl({"--crawl", "t", "deny", "add", "/cal/[0-9]+"});
  EXPECT_EQ(add.exit_code, 0) << add.err;
  EXPECT_EQ(add.out, "pattern new on 1 of 1 frontier(s)\n");
  EXPECT_EQ(Ctl({"--crawl", "t", "deny", "add", "/cal/[0-9]+"}).out,
            "pattern new on 0 of 1 frontier(s)\n");
  EXPECT_EQ(Ctl({"--crawl", "t", "deny", "add", "/x/"}).exit_code, 0);
  auto list = Ctl({"--crawl", "t", "--json", "deny", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "[\"/cal/[0-9]+\",\"/x/\"]\n");
  EXPECT_EQ(Ctl({"deny", "list"}).out, "") << "the default crawl has none";

  RespValue r = integ::Call(*c, {"FRONTIER.ADDX", "CRAWL", "t", "URLS", "http://a.test/cal/7",
                                 "http://a.test/about"});
  ASSERT_EQ(r.elements.size(), 2u);
  EXPECT_EQ(r.elements[0].str, "rejected: denied by pattern");
  EXPECT_EQ(r.elements[1].integer, 1);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.ADD", "http://a.test/cal/7"}).elements[0].integer, 1)
      << "other crawls are not affected";

  auto del = Ctl({"--crawl", "t", "deny", "del", "/cal/[0-9]+"});
  EXPECT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(del.out, "pattern removed from 1 of 1 frontier(s)\n");
  r = integ::Call(*c, {"FRONTIER.ADDX", "CRAWL", "t", "URLS", "http://a.test/cal/7"});
  EXPECT_EQ(r.elements[0].integer, 1);
  RespValue bad = integ::Call(*c, {"FRONTIER.DENY", "ADD", "("});
  EXPECT_EQ(bad.type, RespType::kError);
  EXPECT_NE(bad.str.find("bad pattern"), std::string::npos) << bad.str;
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DENY", "ADD"}).type, RespType::kError);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DENY", "NOPE", "x"}).type, RespType::kError);
  EXPECT_EQ(Ctl({"deny", "add"}).exit_code, 2);
}

// A worker that is gone holds its leases (and their hosts) until their
// deadlines; `crawlctl workers` shows it and `crawlctl release` ends them.
// Polls INFO clients (bounded) until `n` connections are open, `c` included.
bool WaitForClients(RespClient& c, int n) {
  const std::string want = "connected_clients:" + std::to_string(n) + "\r\n";
  for (int i = 0; i < 100; ++i) {
    if (integ::Call(c, {"INFO", "clients"}).str.find(want) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST_F(CrawlctlTest, WorkersShowsLeasesAndReleaseEndsAGoneWorkers) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.ADD", "http://w1.test/", "http://w2.test/",
                             "http://w3.test/"})
                .elements.size(),
            3u);
  // The gone worker's connection is closed, as a dead process's is.
  auto gone_conn = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(gone_conn);
  RespValue gone = integ::Call(*gone_conn, {"FRONTIER.LEASE", "gone-1", "2"});
  ASSERT_EQ(gone.elements.size(), 2u);
  gone_conn.reset();
  ASSERT_TRUE(WaitForClients(*c, 1));
  ASSERT_EQ(integ::Call(*c, {"FRONTIER.LEASE", "live-1", "5"}).elements.size(), 1u);

  auto workers = Ctl({"workers"});
  EXPECT_EQ(workers.exit_code, 0) << workers.err;
  std::vector<std::string> lines = integ::Lines(workers.out);
  ASSERT_EQ(lines.size(), 3u) << workers.out;  // header + 2
  EXPECT_TRUE(std::regex_search(lines[1], std::regex(R"(^ +2 +[0-9]+  gone-1$)"))) << lines[1];
  EXPECT_TRUE(std::regex_search(lines[2], std::regex(R"(^ +1 +[0-9]+  live-1$)"))) << lines[2];
  auto json = Ctl({"--json", "workers"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const boost::json::array rows = boost::json::parse(json.out).as_array();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("worker").as_string(), "gone-1");
  EXPECT_EQ(rows[0].at("leases").to_number<int64_t>(), 2);
  EXPECT_GT(rows[0].at("next_deadline_in_ms").to_number<int64_t>(), 0);

  auto release = Ctl({"release", "gone-1"});
  EXPECT_EQ(release.exit_code, 0) << release.err;
  EXPECT_EQ(release.out, "released 2 leases of gone-1\n");
  lines = integ::Lines(Ctl({"workers"}).out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(std::regex_search(lines[1], std::regex(R"(  live-1$)"))) << lines[1];
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DONE", "gone-1", gone.elements[0].elements[0].str,
                             "robots", "STATUS", "404"})
                .integer,
            0)
      << "a released lease is closed";
  // Their hosts are leased again after the politeness delay, not the lease timeout.
  RespValue again = integ::Call(*c, {"FRONTIER.LEASE", "new-1", "5", "BLOCK", "5000"});
  std::set<std::string> urls;
  for (const RespValue& l : again.elements) urls.insert(l.elements[1].str);
  for (int i = 0; i < 10 && urls.size() < 2; ++i) {
    again = integ::Call(*c, {"FRONTIER.LEASE", "new-1", "5", "BLOCK", "5000"});
    for (const RespValue& l : again.elements) urls.insert(l.elements[1].str);
  }
  EXPECT_EQ(urls, (std::set<std::string>{gone.elements[0].elements[1].str,
                                         gone.elements[1].elements[1].str}));
  EXPECT_EQ(Ctl({"release"}).exit_code, 2);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.RELEASE"}).type, RespType::kError);
  EXPECT_EQ(Ctl({"--json", "release", "nobody"}).out, "{\"worker\":\"nobody\",\"released\":0}\n");
}

// A second worker started under a running worker's id must not take that
// worker's leases: the frontier refuses RELEASE while the connection that
// last used the id is open, names where it is from, and warns in its log
// when two open connections lease under one id.
TEST_F(CrawlctlTest, ReleaseRefusesAnIdThatAnOpenConnectionUses) {
  auto live = integ::ConnectTo(frontier_.Port("resp"));
  auto other = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(live && other);
  ASSERT_EQ(integ::Call(*live, {"FRONTIER.ADD", "http://u1.test/", "http://u2.test/"})
                .elements.size(),
            2u);
  RespValue held = integ::Call(*live, {"FRONTIER.LEASE", "w-shared", "1"});
  ASSERT_EQ(held.elements.size(), 1u);

  RespValue refused = integ::Call(*other, {"FRONTIER.RELEASE", "w-shared"});
  ASSERT_EQ(refused.type, RespType::kError);
  EXPECT_TRUE(std::regex_search(
      refused.str, std::regex(R"(^BUSY worker id 'w-shared' is in use by another open )"
                              R"(connection \(from 127\.0\.0\.1:[0-9]+, last used [0-9]+ s ago\))")))
      << refused.str;
  auto ctl = Ctl({"release", "w-shared"});
  EXPECT_NE(ctl.exit_code, 0);
  EXPECT_NE(ctl.err.find("BUSY worker id 'w-shared'"), std::string::npos) << ctl.err;
  EXPECT_NE(Ctl({"workers"}).out.find("w-shared"), std::string::npos) << "the lease is still held";
  // Its own connection may release; a named lease of it is refused too.
  EXPECT_EQ(integ::Call(*other, {"FRONTIER.RELEASE", "w-shared", held.elements[0].elements[0].str})
                .type,
            RespType::kError);
  EXPECT_EQ(integ::Call(*live, {"FRONTIER.RELEASE", "w-shared", "nosuch"}).type,
            RespType::kInteger);

  // A second connection leasing under the id while the first is open: logged.
  ASSERT_EQ(integ::Call(*other, {"FRONTIER.LEASE", "w-shared", "1"}).elements.size(), 1u);
  bool warned = false;
  for (int i = 0; i < 100 && !warned; ++i) {
    warned = integ::ReadFile(frontier_.log()).find("worker id 'w-shared' is used by connections "
                                                   "from 127.0.0.1:") != std::string::npos;
    if (!warned) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(warned) << testutil::Tail(frontier_.log());

  // --force releases anyway: both leases end, the first holder's DONE is late.
  auto forced = Ctl({"release", "w-shared", "--force"});  // the flag after the id too
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(forced.out, "released 2 leases of w-shared\n");
  EXPECT_EQ(integ::Call(*live, {"FRONTIER.DONE", "w-shared", held.elements[0].elements[0].str,
                                "fetched", "STATUS", "200"})
                .integer,
            0);

  // Once the connection that used the id last has closed, RELEASE works.
  other.reset();
  ASSERT_TRUE(WaitForClients(*live, 1));
  RespValue after = integ::Call(*live, {"FRONTIER.RELEASE", "w-shared"});
  EXPECT_EQ(after.type, RespType::kInteger) << after.str;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST_F(CrawlctlTest, SeedRefetchQueuesSeenUrlsAgain) {
  auto c = integ::ConnectTo(frontier_.Port("resp"));
  ASSERT_TRUE(c);
  const std::string first = dir_ / "first.txt", second = dir_ / "second.txt";
  std::ofstream(first) << "http://recrawl.test/a\nhttp://recrawl.test/b\n";
  std::ofstream(second) << "http://recrawl.test/a\nhttp://recrawl.test/b\nhttp://recrawl.test/c\n";
  ASSERT_EQ(Ctl({"seed", first}).exit_code, 0);
  ASSERT_EQ(integ::InfoField(*c, "urls_queued"), 2);

  // Seen URLs are queued again, new ones too, all due in an hour, priority 7.
  const int64_t before = NowMs();
  auto r = Ctl({"--json", "seed", second, "--refetch", "+1h", "--priority", "7"});
  const int64_t after = NowMs();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  boost::json::object o = boost::json::parse(r.out).as_object();
  EXPECT_EQ(o.at("new").to_number<uint64_t>(), 1u);
  EXPECT_EQ(o.at("seen").to_number<uint64_t>(), 2u);
  EXPECT_EQ(o.at("recrawls").to_number<uint64_t>(), 2u);
  const int64_t due = o.at("refetch_ms").to_number<int64_t>();
  EXPECT_GE(due, before + 3'600'000);
  EXPECT_LE(due, after + 3'600'000);
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 5);
  RespValue q = integ::Call(*c, {"FRONTIER.QUEUE", "recrawl.test", "COUNT", "10"});
  ASSERT_EQ(q.elements.size(), 5u) << q.ToDebugString();
  std::multiset<std::string> scheduled;
  for (const RespValue& e : q.elements) {
    ASSERT_EQ(e.elements.size(), 7u);
    if (e.elements[4].integer != 7) {
      EXPECT_EQ(e.elements[1].str, "ready") << e.ToDebugString();
      continue;
    }
    EXPECT_EQ(e.elements[1].str, "scheduled") << e.ToDebugString();
    EXPECT_EQ(e.elements[5].integer, due) << e.ToDebugString();
    scheduled.insert(e.elements[0].str);
  }
  EXPECT_EQ(scheduled, (std::multiset<std::string>{"http://recrawl.test/a",
                                                   "http://recrawl.test/b",
                                                   "http://recrawl.test/c"}));

  // The text listing shows when a scheduled entry is due, in UTC.
  auto listing = Ctl({"queue", "recrawl.test"});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_TRUE(std::regex_search(
      listing.out,
      std::regex(R"((^|\n)scheduled +0 +1 +7 +20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ +http://recrawl\.test/c\n)")))
      << listing.out;

  auto now = Ctl({"seed", first, "--refetch", "now"});
  ASSERT_EQ(now.exit_code, 0) << now.err;
  EXPECT_TRUE(std::regex_search(
      now.out, std::regex(R"(\nrecrawls: 2 queued for 20\d\d-[-0-9T:]+Z \(new, or moved up )"
                          R"(to it\), 0 kept \(queued for then or earlier, or being fetched\)\n)")))
      << now.out;
  // a and b's waiting recrawls moved to now; their first fetches (never
  // leased here) are still queued too.
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 5);
  // Seeding the list again queues nothing more: a and b's recrawls are due
  // and stay, c's waits and keeps its earlier time.
  auto again = Ctl({"--json", "seed", second, "--refetch", "+2h"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  o = boost::json::parse(again.out).as_object();
  EXPECT_EQ(o.at("seen").to_number<uint64_t>(), 3u);
  EXPECT_EQ(o.at("recrawls").to_number<uint64_t>(), 0u);
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 5);
  q = integ::Call(*c, {"FRONTIER.QUEUE", "recrawl.test", "COUNT", "10"});
  ASSERT_EQ(q.elements.size(), 5u) << q.ToDebugString();
  EXPECT_EQ(q.elements[4].elements[0].str, "http://recrawl.test/c") << q.ToDebugString();
  EXPECT_EQ(q.elements[4].elements[5].integer, due) << q.ToDebugString();

  // A bad time is a usage error and sends nothing.
  for (const char* bad : {"1700000000", "+5x", "+1d", "+", "yesterday", "-1"}) {
    auto b = Ctl({"seed", first, "--refetch", bad});
    EXPECT_EQ(b.exit_code, 2) << bad;
    EXPECT_NE(b.err.find("--refetch"), std::string::npos) << b.err;
  }
  EXPECT_NE(Ctl({"seed", first, "--refetch", "1700000000"}).err.find("looks like Unix seconds"),
            std::string::npos);
  EXPECT_EQ(integ::InfoField(*c, "urls_queued"), 5);
}

TEST_F(CrawlctlTest, ExitCodes) {
  struct Case {
    std::vector<std::string> args;
    int code;
  };
  const std::vector<Case> cases = {
      {{}, 2},
      {{"bogus"}, 2},
      {{"--frobnicate", "status"}, 2},
      {{"--timeout"}, 2},
      {{"--timeout", "abc", "status"}, 2},
      {{"--timeout", "0", "status"}, 2},
      {{"--frontier", address(), "--frontier", address(), "status"}, 2},
      {{"--frontier", address(), "hosts", "--top", "abc"}, 2},
      {{"--frontier", address(), "queue", "h.test", "--count", "0"}, 2},
      {{"--frontier", address(), "status", "--interval", "x"}, 2},
      {{"--frontier", address(), "status", "--crawl", "default"}, 0},
      {{"--frontier", "nonsense", "status"}, 2},
      {{"--frontier", address(), "seed", "--batch", "0"}, 2},
      {{"--frontier", address(), "seed", "--no-such-flag"}, 2},
      {{"--frontier", address(), "seed", dir_ / "no-such-file"}, 1},
      {{"--frontier", "127.0.0.1:1", "--timeout", "2000", "status"}, 1},
      {{"--frontier", address(), "status"}, 0},
      {{"--help"}, 0},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {Crawlctl()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = integ::Run(argv, dir_.path());
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    EXPECT_EQ(r.exit_code, c.code) << "crawlctl " << shown << "\n" << r.err;
    if (c.code != 0) {
      EXPECT_FALSE(r.err.empty()) << "no message for: crawlctl " << shown;
    }
  }
}

}  // namespace
}  // namespace crawlfront
