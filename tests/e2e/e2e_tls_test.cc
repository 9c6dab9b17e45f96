// HTTP/2 over TLS end to end: nginx (Debian's package) serves a small static
// site over https with HTTP/2 and a self-signed certificate, all on
// 127.0.0.1 with its files in a temp dir. The fetcher must negotiate HTTP/2
// and verify the certificate (trusted through fetch.tls_ca_file only); a
// real frontier and crawl-worker crawl the site, and nginx's access log, the
// WARC records and the worker's log must all show HTTP/2. Skipped when nginx
// or openssl is not installed (scripts/setup.sh installs both).

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "crawlfront/common/resp_client.h"
#include "crawlfront/worker/fetcher.h"
#include "daemon.h"
#include "e2e_env.h"
#include "e2e_logs.h"
#include "nginx.h"

namespace crawlfront::e2e {
namespace {

namespace fs = std::filesystem;

constexpr char kHost[] = "tls.crawlfront.test";

// The site: its links reach four pages; /private/ is disallowed by robots.txt
// and elsewhere.invalid is out of scope.
const std::map<std::string, std::string>& SiteFiles() {
  static const auto* files = new std::map<std::string, std::string>{
      {"index.html",
       "<html><body><a href=\"/a.html\">a</a> <a href=\"b.html\">b</a>"
       " <a href=\"/private/secret.html\">secret</a></body></html>\n"},
      {"a.html",
       "<a href=\"/sub/c.html\">c</a> <a href=\"https://tls.crawlfront.test/\">home</a>\n"},
      {"b.html", "<a href=\"sub/c.html\">c</a> <a href=\"http://elsewhere.invalid/\">out</a>\n"},
      {"sub/c.html", "<a href=\"../a.html\">a</a>\n"},
      {"private/secret.html", "robots.txt disallows this page\n"},
      {"robots.txt", "User-agent: *\nDisallow: /private/\n"},
  };
  return *files;
}

const std::set<std::string> kExpectedUris = {"/robots.txt", "/", "/a.html", "/b.html",
                                             "/sub/c.html"};

std::string Url(const std::string& uri) { return std::string("https://") + kHost + uri; }

class E2eTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string nginx = FindExecutable("nginx"), openssl = FindExecutable("openssl");
    if (nginx.empty() || openssl.empty()) GTEST_SKIP() << "nginx or openssl is not installed";
    const std::string www = dir_ / "www";
    for (const auto& [path, text] : SiteFiles()) {
      fs::create_directories(fs::path(www + "/" + path).parent_path());
      std::ofstream(www + "/" + path) << text;
    }
    Status s = MakeSelfSignedCert(openssl, dir_.path(), kHost);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = nginx_.Start(nginx, dir_.path(), www);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::string ConnectTo() const { return "::127.0.0.1:" + std::to_string(nginx_.port()); }
  std::string CaFile() const { return dir_ / "cert.pem"; }

  // nginx's access log as URI -> protocols seen (one entry per request).
  std::map<std::string, std::vector<std::string>> NginxRequests() {
    std::map<std::string, std::vector<std::string>> out;
    std::ifstream in(nginx_.access_log());
    for (std::string uri, protocol, status; in >> uri >> protocol >> status;) {
      out[uri].push_back(protocol + " " + status);
    }
    return out;
  }

  testutil::TempDir dir_;
  Nginx nginx_;
};

FetchResult FetchOne(Fetcher& f, const std::string& url) {
  EXPECT_TRUE(f.Submit({1, url}).ok());
  std::vector<FetchResult> out;
  for (int i = 0; i < 300 && out.empty(); ++i) f.TakeResults(&out, std::chrono::milliseconds(100));
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? FetchResult{} : out[0];
}

TEST_F(E2eTlsTest, FetcherNegotiatesHttp2AndVerifiesTheCertificate) {
  FetchOptions o;
  o.allow_private_networks = true;
  o.connect_to = {ConnectTo()};
  o.tls_ca_file = CaFile();
  auto trusting = Fetcher::Start(o);
  ASSERT_TRUE(trusting.ok()) << trusting.status().ToString();
  FetchResult r = FetchOne(**trusting, Url("/a.html"));
  ASSERT_EQ(r.outcome, FetchOutcome::kResponse) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.http_version, "2");
  EXPECT_TRUE(r.response_head.starts_with("HTTP/2 200")) << r.response_head;
  EXPECT_TRUE(r.request_head.starts_with("GET /a.html HTTP/2\r\n")) << r.request_head;
  EXPECT_EQ(r.body, SiteFiles().at("a.html"));

  o.tls_ca_file = "";  // the system store does not know the test's certificate
  auto system_store = Fetcher::Start(o);
  ASSERT_TRUE(system_store.ok());
  FetchResult refused = FetchOne(**system_store, Url("/a.html"));
  EXPECT_EQ(refused.outcome, FetchOutcome::kConnectError);
  EXPECT_NE(refused.error.find("certificate"), std::string::npos) << refused.error;
  EXPECT_EQ(NginxRequests()["/a.html"], std::vector<std::string>{"HTTP/2.0 200"});
}

// One "INFO crawl" field, or "" when absent.
std::string InfoField(RespClient& client, const std::string& field) {
  auto reply = client.Command({"INFO", "crawl"});
  if (!reply.ok() || reply->is_error()) return "";
  std::istringstream in(reply->str);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(field + ":", 0) == 0) return line.substr(field.size() + 1);
  }
  return "";
}

// warcio, when installed (see e2e_warcio_test), must read the HTTP/2
// records too: every response with status 200 and a matching payload digest.
void CheckWithWarcio(const std::string& warc_dir, const testutil::TempDir& tmp) {
  const char* env = std::getenv("CRAWLFRONT_WARCIO_PREFIX");
  const std::string prefix = env ? env : testutil::BinDir() + "/../node";
  auto node = RunProgram("node", {"--version"}, tmp / "node.out", tmp / "node.err",
                         std::chrono::seconds(30));
  if (!node.ok() || *node != 0 || !fs::exists(prefix + "/node_modules/warcio/package.json")) {
    std::printf("warcio not installed: HTTP/2 records not read by warcio\n");
    return;
  }
  std::vector<std::string> args = {std::string(CRAWLFRONT_E2E_SOURCE_DIR) + "/read_warc.mjs",
                                   prefix};
  for (const auto& e : fs::directory_iterator(warc_dir)) args.push_back(e.path());
  auto rc = RunProgram("node", args, tmp / "warcio.out", tmp / "warcio.err",
                       std::chrono::seconds(120));
  ASSERT_TRUE(rc.ok() && *rc == 0) << testutil::Tail(tmp / "warcio.err");
  std::ifstream in(tmp / "warcio.out");
  size_t responses = 0;
  for (std::string type, uri, status, bytes, digest_ok;
       in >> type >> uri >> status >> bytes >> digest_ok;) {
    if (type != "response") continue;
    ++responses;
    EXPECT_EQ(status, "200") << uri;
    EXPECT_EQ(digest_ok, "1") << uri;
  }
  EXPECT_EQ(responses, kExpectedUris.size());
  std::printf("warcio read %zu HTTP/2 response records\n", responses);
}

TEST_F(E2eTlsTest, WorkerCrawlsOverHttp2) {
  testutil::Daemon frontier, worker;
  std::string error;
  ASSERT_TRUE(testutil::StartFrontier(
      &frontier, dir_, dir_ / "data",
      {"--set", "crawl.default_delay=10ms", "--set", "crawl.max_depth=5", "--set",
       "crawl.allow_host_suffixes=[\".crawlfront.test\"]"},
      &error))
      << error;
  auto client = RespClient::Connect("127.0.0.1", static_cast<uint16_t>(frontier.Port("resp")),
                                    std::chrono::seconds(10));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto added = (*client)->Command({"FRONTIER.ADDX", "URLS", Url("/")});
  ASSERT_TRUE(added.ok() && added->elements.size() == 1 && added->elements[0].integer == 1);
  ASSERT_TRUE(worker.Start("crawl-worker",
                           {"--frontier", "127.0.0.1:" + std::to_string(frontier.Port("resp")),
                            "--warc-dir", dir_ / "warc", "--worker-id", "tls", "--connect-to",
                            ConnectTo(), "--set", "fetch.allow_private_networks=true", "--set",
                            "fetch.tls_ca_file=" + CaFile()},
                           dir_ / "worker.log", "", &error))
      << error;
  bool finished = false;
  for (int i = 0; i < 600 && !finished && worker.Running(); ++i) {  // 120 s
    finished = InfoField(**client, "finished") == "1";
    if (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(finished) << testutil::Tail(worker.log()) << testutil::Tail(frontier.log());
  EXPECT_EQ(InfoField(**client, "urls_failed"), "0");
  const int status = worker.Stop();  // closes the WARC file
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << testutil::Tail(worker.log());

  // nginx saw every page once, each over HTTP/2, and never the disallowed one.
  auto requests = NginxRequests();
  std::set<std::string> uris;
  for (const auto& [uri, lines] : requests) {
    uris.insert(uri);
    EXPECT_EQ(lines, std::vector<std::string>{"HTTP/2.0 200"}) << uri;
  }
  EXPECT_EQ(uris, kExpectedUris);

  // The WARC keeps the HTTP/2 status and request lines as libcurl saw them.
  auto records = ReadWarcDir(dir_ / "warc");
  ASSERT_TRUE(records.ok()) << records.status().message();
  std::map<std::string, std::string> request_of;  // response record id -> request block
  for (const auto& r : *records) {
    if (r.Get("WARC-Type") == "request") request_of[r.Get("WARC-Concurrent-To")] = r.block;
  }
  std::set<std::string> archived;
  for (const auto& r : *records) {
    if (r.Get("WARC-Type") != "response") continue;
    const std::string url = r.Get("WARC-Target-URI");
    const std::string uri = url.substr(std::string("https://").size() + sizeof(kHost) - 1);
    archived.insert(uri);
    EXPECT_TRUE(r.block.starts_with("HTTP/2 200")) << url;
    EXPECT_TRUE(request_of[r.Get("WARC-Record-ID")].starts_with("GET " + uri + " HTTP/2\r\n"))
        << url;
  }
  EXPECT_EQ(archived, kExpectedUris);
  std::ifstream log(worker.log());
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_NE(text.str().find(" 5 responses over HTTP/2"), std::string::npos)
      << testutil::Tail(worker.log());
  CheckWithWarcio(dir_ / "warc", dir_);
}

}  // namespace
}  // namespace crawlfront::e2e
