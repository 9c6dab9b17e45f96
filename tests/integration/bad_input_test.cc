// Hostile and broken clients against the real daemon: malformed frames,
// absurd lengths, garbage, invalid URLs, unknown commands, wrong arity and
// thousands of idle connections. After each, a separate well-behaved client
// must still get PONG and the daemon must still be running
// (ARCHITECTURE.md 11: bad input gets a clear error, everyone else is served).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <utility>

#include "daemon.h"
#include "integ_util.h"

namespace crawlfront {
namespace {

using testutil::Daemon;
using testutil::TempDir;

// A plain blocking TCP socket to 127.0.0.1:port, closed by the destructor.
// Cheaper than RespClient when thousands are needed.
class RawSocket {
 public:
  explicit RawSocket(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    timeval tv{10, 0};  // a read never blocks the test for long
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Reset();
  }
  ~RawSocket() { Reset(); }
  RawSocket(RawSocket&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  bool ok() const { return fd_ >= 0; }
  // Sends a PING and returns what came back (up to one read).
  std::string Ping() {
    const char kPing[] = "*1\r\n$4\r\nPING\r\n";
    if (send(fd_, kPing, sizeof kPing - 1, MSG_NOSIGNAL) != sizeof kPing - 1) return "";
    char buf[64];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, n) : "";
  }

 private:
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Room for the idle-connection test; the frontier inherits the limit.
    rlimit lim{};
    getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, kWantedConnections + 512);
    setrlimit(RLIMIT_NOFILE, &lim);
    getrlimit(RLIMIT_NOFILE, &lim);
    fd_limit_ = lim.rlim_cur;
    std::string err;
    ASSERT_TRUE(testutil::StartFrontier(&frontier_, dir_, dir_ / "data", {}, &err))
        << err;
  }

  // A fresh, well-behaved client is answered and the daemon still runs.
  void ExpectHealthy(const std::string& after) {
    ASSERT_TRUE(frontier_.Running()) << "crashed after " << after << ":\n"
                                     << testutil::Tail(frontier_.log());
    auto c = integ::ConnectTo(port());
    ASSERT_TRUE(c) << "cannot connect after " << after;
    EXPECT_EQ(integ::Call(*c, {"PING"}).ToDebugString(),
              RespValue::SimpleString("PONG").ToDebugString())
        << "after " << after;
  }

  int port() const { return frontier_.Port("resp"); }

  static constexpr size_t kWantedConnections = 2000;
  TempDir dir_;
  Daemon frontier_;
  rlim_t fd_limit_ = 0;
};

struct FrameCase {
  const char* name;
  std::string bytes;
  // Expected error reply (its start); empty when the client just hangs up.
  std::string error_prefix;
};

std::vector<FrameCase> FrameCases() {
  std::mt19937 rng(12345);  // fixed: the same garbage every run
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  return {
      {"truncated bulk", "*2\r\n$4\r\nECHO\r\n$5\r\nhel", ""},
      {"truncated header", "*3\r\n$3", ""},
      {"negative array length", "*-5\r\n",
       "ERR Protocol error: invalid multibulk length"},
      {"negative bulk length", "*1\r\n$-7\r\n",
       "ERR Protocol error: invalid bulk length"},
      {"huge bulk length", "*1\r\n$99999999999\r\n",
       "ERR Protocol error: invalid bulk length"},
      {"huge array over the limit", "*99999999\r\n",
       "ERR Protocol error: invalid multibulk length"},
      {"non-digit length", "*1\r\n$4x\r\n", "ERR Protocol error: invalid bulk length"},
      {"10^6-element array header", "*1000000\r\n", ""},
      {"integer as an argument", "*1\r\n:5\r\n",
       "ERR Protocol error: expected '$', got ':'"},
      {"bulk without CRLF", "*1\r\n$4\r\nPINGxx\r\n",
       "ERR Protocol error: bulk string not terminated by CRLF"},
      {"unbalanced quotes", "\"abc\r\n",
       "ERR Protocol error: unbalanced quotes in request"},
      {"too big inline", std::string(70'000, 'a'),
       "ERR Protocol error: too big inline request"},
      {"binary garbage", garbage, ""},
  };
}

TEST_F(BadInputTest, MalformedFramesAreRejectedAndOthersStillServed) {
  for (const FrameCase& c : FrameCases()) {
    SCOPED_TRACE(c.name);
    auto raw = integ::ConnectTo(port());
    ASSERT_TRUE(raw);
    ASSERT_TRUE(raw->SendRaw(c.bytes).ok());
    if (!c.error_prefix.empty()) {
      auto reply = raw->ReadReply();
      ASSERT_TRUE(reply.ok()) << reply.status().ToString();
      EXPECT_TRUE(reply->is_error()) << reply->ToDebugString();
      EXPECT_EQ(reply->str.substr(0, c.error_prefix.size()), c.error_prefix)
          << reply->str;
      // Framing is lost after a protocol error: the server hangs up.
      EXPECT_FALSE(raw->ReadReply().ok());
    }
    raw->Close();
    ExpectHealthy(c.name);
  }
}

TEST_F(BadInputTest, InvalidUrlsInABatchAreRejectedOneByOne) {
  auto c = integ::ConnectTo(port());
  ASSERT_TRUE(c);
  struct Entry {
    std::string url;
    bool valid;
  };
  const std::vector<Entry> batch = {
      {"http://ok.test/1", true},
      {"ftp://x", false},
      {"http://ok.test/2", true},
      {"not a url", false},
      {"http://", false},
      {std::string("http://ok.test/\x01ctl"), false},
      {"http://ok.test/" + std::string(3000, 'a'), false},
      {"http://ok.test/3", true},
  };
  std::vector<std::string> args = {"FRONTIER.ADD"};
  for (const auto& e : batch) args.push_back(e.url);
  RespValue r = integ::Call(*c, args);
  ASSERT_EQ(r.elements.size(), batch.size()) << r.ToDebugString();
  for (size_t i = 0; i < batch.size(); ++i) {
    SCOPED_TRACE(batch[i].url.substr(0, 40));
    if (batch[i].valid) {
      EXPECT_EQ(r.elements[i].ToDebugString(), RespValue::Integer(1).ToDebugString());
      EXPECT_EQ(integ::Call(*c, {"FRONTIER.SEEN", batch[i].url}).integer, 1);
    } else {
      ASSERT_TRUE(r.elements[i].is_string()) << r.elements[i].ToDebugString();
      EXPECT_EQ(r.elements[i].str.rfind("rejected: ", 0), 0u) << r.elements[i].str;
      EXPECT_GT(r.elements[i].str.size(), std::string("rejected: ").size());
    }
  }
  ExpectHealthy("invalid URLs");
}

// Patterns on which a backtracking matcher takes exponential time or
// recurses per byte: std::regex took 0.8 s for `(a+)+$` at 24 'a's,
// doubling per 'a', so the 900-'a' add below would stall the io thread (and
// every client) indefinitely. RE2 answers in one pass.
TEST_F(BadInputTest, PathologicalPatternsDoNotStallTheServer) {
  auto c = integ::ConnectTo(port());
  ASSERT_TRUE(c);
  for (const char* p : {"(a+)+$", "(a|b)*c", "(x+x+)+y"}) {
    EXPECT_EQ(integ::Call(*c, {"FRONTIER.DENY", "ADD", p}).integer, 1) << p;
  }
  RespValue backref = integ::Call(*c, {"FRONTIER.DENY", "ADD", "(a)\\1"});
  ASSERT_TRUE(backref.is_error()) << backref.ToDebugString();
  EXPECT_EQ(backref.str, "ERR bad pattern: invalid escape sequence: \\1");

  const std::string as = "http://a.test/" + std::string(900, 'a');
  RespValue r = integ::Call(*c, {"FRONTIER.ADD", as + "!", as, as + "c"});
  ASSERT_EQ(r.elements.size(), 3u) << r.ToDebugString();
  EXPECT_EQ(r.elements[0].ToDebugString(), RespValue::Integer(1).ToDebugString());
  EXPECT_EQ(r.elements[1].str, "rejected: denied by pattern") << "(a+)+$";
  EXPECT_EQ(r.elements[2].str, "rejected: denied by pattern") << "(a|b)*c";
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DROP", "a.test", "MATCH", "(a+)+$"}).integer, 0);
  EXPECT_EQ(integ::Call(*c, {"FRONTIER.DROP", "a.test", "MATCH", "(a+)+!$"}).integer, 1);
  ExpectHealthy("pathological patterns");
}

TEST_F(BadInputTest, UnknownCommandsAndWrongArityGetErrorsAndKeepTheConnection) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"NOPE"}, "ERR unknown command 'NOPE', with args beginning with: "},
      {{"frontier.nope", "x"},
       "ERR unknown command 'frontier.nope', with args beginning with: 'x' "},
      {{"FRONTIER.ADD"}, "ERR wrong number of arguments for 'frontier.add' command"},
      {{"FRONTIER.LEASE", "w"},
       "ERR wrong number of arguments for 'frontier.lease' command"},
      {{"FRONTIER.DONE", "w", "id"},
       "ERR wrong number of arguments for 'frontier.done' command"},
      {{"FRONTIER.SNAPSHOT", "extra"},
       "ERR wrong number of arguments for 'frontier.snapshot' command"},
      {{"ECHO"}, "ERR wrong number of arguments for 'echo' command"},
      {{"FRONTIER.LEASE", "w", "-1"}, "ERR count must be an integer in [0, 100000]"},
      {{"FRONTIER.DONE", "w", "id", "exploded"}, "ERR unknown outcome \"exploded\""},
      {{"FRONTIER.DONE", "w", "id", "fetched", "colour", "red"},
       "ERR unknown option 'colour'"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "status"},
       "ERR option STATUS needs a value"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "Status", "2x"},
       "ERR STATUS must be an integer in [0, 999]"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "STATUS", "200", "status", "1000"},
       "ERR STATUS must be an integer in [0, 999]"},  // the last one counts
      {{"FRONTIER.DONE", "w", "id", "fetched", "SITEMAP", "yes"},
       "ERR SITEMAP must be an integer in [0, 1]"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "LASTMOD", "1,x", "LINKS", "http://a.test/",
        "http://a.test/b"},
       "ERR LASTMOD wants comma-separated Unix seconds, one per link"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "LASTMOD", "1,-2", "LINKS", "http://a.test/",
        "http://a.test/b"},
       "ERR LASTMOD wants comma-separated Unix seconds, one per link"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "LASTMOD", "1,,2", "LINKS", "http://a.test/"},
       "ERR LASTMOD wants comma-separated Unix seconds, one per link"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "LASTMOD", "1,2", "LINKS", "http://a.test/"},
       "ERR LASTMOD has 2 values for 1 links"},
      {{"FRONTIER.DONE", "w", "id", "fetched", "LASTMOD", "1"},
       "ERR LASTMOD has 1 values for 0 links"},
      {{"FRONTIER.ADDX", "depth", "1", "http://a.test/"},
       "ERR unknown option 'http://a.test/'"},
      {{"FRONTIER.ADDX", "depth", "1"}, "ERR expected URLS before the list"},
  };
  auto c = integ::ConnectTo(port());
  ASSERT_TRUE(c);
  for (const Case& k : cases) {
    RespValue r = integ::Call(*c, k.args);
    EXPECT_TRUE(r.is_error()) << r.ToDebugString();
    EXPECT_EQ(r.str, k.error);
    // The same connection keeps working.
    EXPECT_EQ(integ::Call(*c, {"PING"}).str, "PONG");
  }
  ExpectHealthy("unknown commands");
}

TEST_F(BadInputTest, ThousandsOfIdleConnectionsDoNotStarveOthers) {
  // Leave descriptors for the test itself and the frontier's RocksDB files.
  size_t wanted =
      std::min<size_t>(kWantedConnections, fd_limit_ > 600 ? fd_limit_ - 512 : 0);
  if (wanted < kWantedConnections) {
    std::printf("RLIMIT_NOFILE is %llu: holding %zu idle connections instead of %zu\n",
                static_cast<unsigned long long>(fd_limit_), wanted, kWantedConnections);
  }
  RecordProperty("idle_connections", static_cast<int>(wanted));
  auto good = integ::ConnectTo(port());
  ASSERT_TRUE(good);
  std::vector<RawSocket> idle;
  idle.reserve(wanted);
  for (size_t i = 0; i < wanted; ++i) {
    idle.emplace_back(port());
    ASSERT_TRUE(idle.back().ok()) << "connection " << i << ": " << strerror(errno);
    if (i % 250 == 0) {
      ASSERT_EQ(integ::Call(*good, {"PING"}).str, "PONG") << "with " << i << " idle";
    }
  }
  EXPECT_EQ(integ::Call(*good, {"PING"}).str, "PONG");
  ExpectHealthy("idle connections");
  // The idle ones are real clients too: the first and the last are served.
  EXPECT_EQ(idle.front().Ping(), "+PONG\r\n");
  EXPECT_EQ(idle.back().Ping(), "+PONG\r\n");
  RespValue info = integ::Call(*good, {"INFO", "clients"});
  EXPECT_NE(info.str.find("connected_clients:"), std::string::npos) << info.str;
  size_t at = info.str.find("connected_clients:");
  EXPECT_GE(std::stoul(info.str.substr(at + 18)), wanted);
}

}  // namespace
}  // namespace crawlfront
