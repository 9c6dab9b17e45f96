#include "crawlfront/simweb/server.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "crawlfront/simweb/encoding.h"
#include "crawlfront/simweb/links.h"
#include "crawlfront/simweb/oracle.h"
#include "crawlfront/simweb/sim_web.h"
#include "test_util.h"

extern char** environ;

namespace crawlfront::simweb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using testing::MakeWeb;
using testing::SmallWeb;

struct Reply {
  int status = 0;
  std::string content_type;
  std::string location;
  std::string allow;
  std::string content_length;
  std::string body;
  std::string content_encoding;
  std::string vary;
  std::string robots_tag;
  std::string etag;
  std::string last_modified;
};

// A plain keep-alive HTTP/1.1 client on one connection.
class Client {
 public:
  explicit Client(uint16_t port) : socket_(ioc_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }

  Reply Send(http::verb verb, const std::string& host, const std::string& target,
             const std::string& accept_encoding = "",
             const std::vector<std::pair<http::field, std::string>>& headers = {}) {
    http::request<http::empty_body> request{verb, target, 11};
    request.set(http::field::host, host);
    if (!accept_encoding.empty()) request.set(http::field::accept_encoding, accept_encoding);
    for (const auto& [name, value] : headers) request.set(name, value);
    request.keep_alive(true);
    http::write(socket_, request);
    return Read(verb == http::verb::head);
  }

  // Sends raw bytes (for malformed requests) and reads one response.
  Reply SendRaw(const std::string& bytes) {
    asio::write(socket_, asio::buffer(bytes));
    return Read(false);
  }

 private:
  Reply Read(bool head) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(16 << 20);
    parser.skip(head);
    http::read(socket_, buffer_, parser);
    auto& response = parser.get();
    return Reply{static_cast<int>(response.result_int()),
                 std::string(response[http::field::content_type]),
                 std::string(response[http::field::location]),
                 std::string(response[http::field::allow]),
                 std::string(response[http::field::content_length]),
                 response.body(),
                 std::string(response[http::field::content_encoding]),
                 std::string(response[http::field::vary]),
                 std::string(response["X-Robots-Tag"]),
                 std::string(response[http::field::etag]),
                 std::string(response[http::field::last_modified])};
  }

  asio::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("simweb_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    ServerOptions options;
    options.threads = 2;
    options.access_log = (dir_ / "access.log").string();
    auto server = SimWebServer::Start(SmallWeb(), options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  void TearDown() override {
    if (server_) server_->Stop();
    std::filesystem::remove_all(dir_);
  }

  std::vector<std::string> LogLines() {
    std::ifstream in(dir_ / "access.log");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  std::filesystem::path dir_;
  std::unique_ptr<SimWebServer> server_;
  SimWeb web_ = MakeWeb(SmallWeb());
};

TEST_F(ServerTest, ServesTheModelByHostHeader) {
  Client client(server_->port());
  struct Case {
    std::string host, target;
  };
  std::vector<Case> cases = {
      {"h0.simweb.test", "/"},
      {"h0.simweb.test:" + std::to_string(server_->port()), "/p/3"},
      {"H4.SIMWEB.TEST", "/p/7"},
      {"h2.simweb.test", "/robots.txt"},
      {"h1.simweb.test", "/robots.txt"},
      {"h0.simweb.test", "/robots.txt"},
      {"h0.simweb.test", "/r/1"},
      {"h0.simweb.test", "/r/1/2"},
      {"h3.simweb.test", "/files/1.png"},
      {"h3.simweb.test", "/files/1.pdf"},
      {"h0.simweb.test", "/error"},
      {"h0.simweb.test", "/gone/5"},
      {"h9.simweb.test", "/"},
      {"127.0.0.1", "/"},
      {"h5.simweb.test", "/slow/0"},
      {"h1.simweb.test", "/big/0"},
  };
  for (uint32_t page = 1; page < web_.options().pages; ++page) {  // an X-Robots-Tag page
    if (LinksOf(web_.options(), Resource{Kind::kPage, 0, page, 0}).header_nofollow) {
      cases.push_back({"h0.simweb.test", "/p/" + std::to_string(page)});
      break;
    }
  }
  int tagged = 0;
  for (const Case& c : cases) {  // all on one keep-alive connection
    Response expected = web_.Fetch(c.host, c.target);
    Reply reply = client.Send(http::verb::get, c.host, c.target);
    EXPECT_EQ(reply.status, expected.status) << c.host << c.target;
    EXPECT_EQ(reply.content_type, expected.content_type) << c.host << c.target;
    EXPECT_EQ(reply.location, expected.location) << c.host << c.target;
    EXPECT_EQ(reply.body, expected.body) << c.host << c.target;
    EXPECT_EQ(reply.robots_tag, expected.robots_tag) << c.host << c.target;
    tagged += !reply.robots_tag.empty();
  }
  EXPECT_EQ(tagged, 1) << "one page sent with X-Robots-Tag";
}

TEST_F(ServerTest, AnswersRedirectsTypesHeadAndBadMethods) {
  Client client(server_->port());
  Reply redirect = client.Send(http::verb::get, "h0.simweb.test", "/r/0");
  EXPECT_EQ(redirect.status, 301);
  EXPECT_EQ(redirect.location, "http://h0.simweb.test/r/0/2");
  EXPECT_EQ(client.Send(http::verb::get, "h0.simweb.test", "/r/0/2").status, 302);
  EXPECT_EQ(client.Send(http::verb::get, "h0.simweb.test", "/files/0.png").content_type,
            "image/png");
  EXPECT_EQ(client.Send(http::verb::get, "h0.simweb.test", "/files/0.pdf").content_type,
            "application/pdf");
  Reply head = client.Send(http::verb::head, "h0.simweb.test", "/p/2");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.content_length,
            std::to_string(web_.Fetch("h0.simweb.test", "/p/2").body.size()));
  Reply post = client.Send(http::verb::post, "h0.simweb.test", "/p/2");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET, HEAD");
}

// Recrawls: a page's validators, and 304 for a conditional GET that matches.
TEST_F(ServerTest, AnswersConditionalRequests) {
  Client client(server_->port());
  const std::string host = "h0.simweb.test";
  Reply page = client.Send(http::verb::get, host, "/p/2");
  ASSERT_EQ(page.status, 200);
  EXPECT_TRUE(page.etag.starts_with("W/\"")) << page.etag;
  EXPECT_EQ(page.last_modified, "Tue, 01 Dec 2026 00:00:00 GMT");
  EXPECT_NE(client.Send(http::verb::get, host, "/p/3").etag, page.etag) << "one per body";
  EXPECT_EQ(client.Send(http::verb::get, host, "/p/2").etag, page.etag) << "stable";

  using H = std::vector<std::pair<http::field, std::string>>;
  auto get = [&](H headers) { return client.Send(http::verb::get, host, "/p/2", "", headers); };
  Reply same = get({{http::field::if_none_match, page.etag}});
  EXPECT_EQ(same.status, 304);
  EXPECT_TRUE(same.body.empty());
  EXPECT_EQ(same.etag, page.etag);
  EXPECT_EQ(get({{http::field::if_none_match, "\"x\", " + page.etag.substr(2)}}).status, 304)
      << "a list, weak comparison";
  EXPECT_EQ(get({{http::field::if_none_match, "*"}}).status, 304);
  EXPECT_EQ(get({{http::field::if_none_match, "W/\"other\""}}).status, 200);
  EXPECT_EQ(get({{http::field::if_modified_since, page.last_modified}}).status, 304);
  EXPECT_EQ(get({{http::field::if_modified_since, "Mon, 30 Nov 2026 00:00:00 GMT"}}).status, 200);
  // If-None-Match decides when both are sent.
  EXPECT_EQ(get({{http::field::if_none_match, "W/\"other\""},
                 {http::field::if_modified_since, page.last_modified}})
                .status,
            200);
  Reply missing = client.Send(http::verb::get, host, "/nope", "",
                              {{http::field::if_none_match, "*"}});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.etag, "");
}

TEST_F(ServerTest, MalformedRequestGets400) {
  Client client(server_->port());
  Reply reply = client.SendRaw("GARBAGE\x01 / HTTP/1.1\r\n\r\n");
  EXPECT_EQ(reply.status, 400);
  // The server keeps serving other connections.
  Client other(server_->port());
  EXPECT_EQ(other.Send(http::verb::get, "h0.simweb.test", "/").status, 200);
}

TEST_F(ServerTest, AccessLogHasOneLinePerRequest) {
  Client client(server_->port());
  struct Case {
    std::string host, target;
    int status;
  };
  const Case cases[] = {{"h0.simweb.test:8080", "/p/1", 200},
                        {"h0.simweb.test", "/s?q=alpha&n=2", 200},
                        {"h2.simweb.test", "/robots.txt", 500},
                        {"h0.simweb.test", "/r/2", 301}};
  for (const Case& c : cases) client.Send(http::verb::get, c.host, c.target);
  std::vector<std::string> lines = LogLines();
  ASSERT_EQ(lines.size(), std::size(cases));
  for (size_t i = 0; i < lines.size(); ++i) {
    std::istringstream fields(lines[i]);
    std::string time, host, target;
    int status = 0;
    size_t bytes = 0;
    fields >> time >> host >> target >> status >> bytes;
    EXPECT_EQ(host, HostWithoutPort(cases[i].host)) << lines[i];
    EXPECT_EQ(target, cases[i].target) << lines[i];
    EXPECT_EQ(status, cases[i].status) << lines[i];
    EXPECT_EQ(bytes, web_.Fetch(cases[i].host, cases[i].target).body.size()) << lines[i];
    size_t dot = time.find('.');
    ASSERT_NE(dot, std::string::npos) << lines[i];
    EXPECT_EQ(time.size() - dot - 1, 3u) << lines[i];  // milliseconds
    EXPECT_GT(std::stoll(time.substr(0, dot)), 1'600'000'000LL) << lines[i];
  }
}

// A server offering every coding: text bodies come encoded as negotiated,
// decode to the model's bytes, and the access log counts the bytes sent.
TEST_F(ServerTest, EncodesTextBodiesAsNegotiated) {
  server_->Stop();
  ServerOptions options;
  options.threads = 2;
  options.access_log = (dir_ / "encoded.log").string();
  options.encodings = {ContentCoding::kZstd, ContentCoding::kBrotli, ContentCoding::kGzip};
  auto server = SimWebServer::Start(SmallWeb(), options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  Client client((*server)->port());
  struct Case {
    std::string target, accept;
    ContentCoding want;
  };
  const Case cases[] = {
      {"/", "gzip", ContentCoding::kGzip},
      {"/p/3", "gzip, br", ContentCoding::kBrotli},  // the server's order decides ties
      {"/robots.txt", "deflate, gzip, br, zstd", ContentCoding::kZstd},
      {"/p/4", "", ContentCoding::kIdentity},
      {"/p/5", "zstd;q=0, br;q=0.2, gzip;q=0.1", ContentCoding::kBrotli},
  };
  for (const Case& c : cases) {
    Reply reply = client.Send(http::verb::get, "h0.simweb.test", c.target, c.accept);
    const std::string plain = web_.Fetch("h0.simweb.test", c.target).body;
    const std::string want_name =
        c.want == ContentCoding::kIdentity ? "" : std::string(CodingName(c.want));
    EXPECT_EQ(reply.content_encoding, want_name) << c.target;
    EXPECT_EQ(reply.vary, "Accept-Encoding") << c.target;
    EXPECT_EQ(reply.body, Encode(c.want, plain)) << c.target;
    auto decoded = Decode(c.want, reply.body);
    ASSERT_TRUE(decoded.ok()) << c.target;
    EXPECT_EQ(*decoded, plain) << c.target;
  }
  // Images are never encoded; HEAD announces the encoded length.
  Reply png = client.Send(http::verb::get, "h0.simweb.test", "/files/0.png", "gzip");
  EXPECT_EQ(png.content_encoding, "");
  EXPECT_EQ(png.vary, "");
  Reply head = client.Send(http::verb::head, "h0.simweb.test", "/p/2", "br");
  EXPECT_EQ(head.content_encoding, "br");
  EXPECT_EQ(head.content_length,
            std::to_string(Encode(ContentCoding::kBrotli,
                                  web_.Fetch("h0.simweb.test", "/p/2").body).size()));
  (*server)->Stop();
  std::ifstream in(dir_ / "encoded.log");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  std::istringstream fields(line);
  std::string time, host, target;
  int status = 0;
  size_t bytes = 0;
  fields >> time >> host >> target >> status >> bytes;
  EXPECT_EQ(bytes, Encode(ContentCoding::kGzip, web_.Fetch("h0.simweb.test", "/").body).size());
}

TEST(ServerStartTest, RefusesNonLoopbackAndBadThreads) {
  ServerOptions outside;
  outside.address = "0.0.0.0";
  auto refused = SimWebServer::Start(SmallWeb(), outside);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
  ServerOptions no_threads;
  no_threads.threads = 0;
  EXPECT_FALSE(SimWebServer::Start(SmallWeb(), no_threads).ok());
}

// The binary: from CRAWLFRONT_BIN_DIR (set by ctest), else the build tree
// layout (tests in <build>/tests, binaries in <build>/bin); "" if absent.
std::string BinaryPath() {
  std::filesystem::path path;
  if (const char* dir = std::getenv("CRAWLFRONT_BIN_DIR")) {
    path = std::filesystem::path(dir) / "simweb";
  } else {
    std::error_code ec;
    path =
        std::filesystem::read_symlink("/proc/self/exe", ec).parent_path().parent_path() /
        "bin" / "simweb";
  }
  return std::filesystem::exists(path) ? path.string() : "";
}

TEST(SimWebBinaryTest, ExpectModePrintsTheOracle) {
  std::string binary = BinaryPath();
  if (binary.empty()) GTEST_SKIP() << "simweb binary not found";
  std::string command =
      binary + " --expect --hosts 6 --pages 30 --seed 7 --max-depth 2 2>/dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0;)
    output.append(chunk, n);
  EXPECT_EQ(::pclose(pipe), 0);
  ExpectOptions options;
  options.max_depth = 2;
  Result<Expectation> expected = Expect(MakeWeb(SmallWeb()), options);
  ASSERT_TRUE(expected.ok());
  std::string text;
  for (const ExpectedFetch& f : expected->fetches) {
    text += f.url + "\t" + std::to_string(f.status) + "\n";
  }
  EXPECT_EQ(output, text);
}

TEST(SimWebBinaryTest, ServesUntilSigterm) {
  std::string binary = BinaryPath();
  if (binary.empty()) GTEST_SKIP() << "simweb binary not found";
  std::filesystem::path port_file = std::filesystem::temp_directory_path() /
                                    ("simweb_port_" + std::to_string(::getpid()));
  std::filesystem::remove(port_file);
  std::vector<std::string> args = {binary,    "--listen",    "127.0.0.1:0",
                                   "--hosts", "3",           "--pages",
                                   "5",       "--port-file", port_file.string()};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  // Waits (bounded) for the server to publish its port.
  std::string port;
  for (int i = 0; i < 200 && port.empty(); ++i) {
    std::ifstream in(port_file);
    if (!(in >> port)) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(port.empty()) << "no port file";
  Client client(static_cast<uint16_t>(std::stoi(port)));
  EXPECT_EQ(client.Send(http::verb::get, "h1.simweb.test", "/robots.txt").status, 404);
  EXPECT_EQ(client.Send(http::verb::get, "h0.simweb.test", "/p/4").status, 200);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::filesystem::remove(port_file);
}

}  // namespace
}  // namespace crawlfront::simweb
