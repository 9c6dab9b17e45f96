// Content codings end to end: simweb serves every text body with one forced
// coding (gzip, br or zstd); a crawl must still match the oracle exactly (so
// the worker decoded pages for their links and robots.txt for its rules), and
// the WARC must hold what the server sent as docs/worker.md describes: the
// decoded body, the coding kept as X-Crawlfront-Content-Encoding, digests
// over the stored bytes.

#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>

#include "crawlfront/simweb/encoding.h"
#include "crawlfront/simweb/sim_web.h"
#include "crawlfront/worker/warc.h"
#include "e2e_checks.h"
#include "e2e_env.h"
#include "e2e_logs.h"

namespace crawlfront::simweb {
// Names test cases' parameters in gtest output ("gzip", not raw bytes).
void PrintTo(ContentCoding coding, std::ostream* os) { *os << CodingName(coding); }
}  // namespace crawlfront::simweb

namespace crawlfront::e2e {
namespace {

using simweb::ContentCoding;

// A stored response block split at the blank line.
struct Block {
  std::string head;  // status line and headers, each line ending in CRLF
  std::string body;
};

Block Split(const std::string& block) {
  size_t end = block.find("\r\n\r\n");
  if (end == std::string::npos) return {block, ""};
  return {block.substr(0, end + 2), block.substr(end + 4)};
}

// Value of header `name` (exact spelling, as simweb sends it) or "".
std::string HeaderOf(const std::string& head, const std::string& name) {
  size_t at = head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "";
  size_t start = at + name.size() + 4;
  return head.substr(start, head.find("\r\n", start) - start);
}

// "http://h1.simweb.test/p/2" -> {"h1.simweb.test", "/p/2"}.
std::pair<std::string, std::string> HostAndTarget(const std::string& url) {
  size_t host = url.find("://") + 3;
  size_t slash = url.find('/', host);
  return {url.substr(host, slash - host), url.substr(slash)};
}

class E2eEncodingTest : public ::testing::TestWithParam<ContentCoding> {};

TEST_P(E2eEncodingTest, CrawlDecodesAndArchivesEncodedBodies) {
  const ContentCoding coding = GetParam();
  const std::string name(simweb::CodingName(coding));
  WebOptions o;
  o.hosts = 4;
  o.pages = 15;
  o.simweb_args = {"--encodings", name};
  CrawlEnv env(o);
  ASSERT_TRUE(env.Start().ok()) << env.Logs();
  ASSERT_TRUE(env.StartWorker(0).ok());
  Status s = env.WaitFinished(std::chrono::seconds(240));
  ASSERT_TRUE(s.ok()) << s.message();
  auto failed = env.Info("urls_failed");
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(*failed, "0") << env.Logs();
  ASSERT_TRUE(env.StopWorkers().ok());

  // Links came out of encoded pages, rules out of encoded robots.txt files.
  std::string out, err, ignore_out, ignore_err;
  ASSERT_TRUE(env.RunOracle({}, "oracle", &out, &err).ok());
  ASSERT_TRUE(env.RunOracle({"--robots", "ignore"}, "ignore", &ignore_out, &ignore_err).ok());
  auto oracle = ReadOracle(out, err);
  auto ignoring = ReadOracle(ignore_out, ignore_err);
  ASSERT_TRUE(oracle.ok() && ignoring.ok());
  auto log = ReadAccessLog(env.access_log());
  ASSERT_TRUE(log.ok()) << log.status().message();
  auto fetched = CountFetches(*log);
  auto diff = CompareWithOracle(fetched, *oracle, /*exactly_once=*/true);
  EXPECT_TRUE(diff.empty()) << "crawl vs oracle:\n" << Describe(diff);
  auto disallowed = CheckNothingDisallowed(fetched, *oracle, *ignoring);
  EXPECT_TRUE(disallowed.empty()) << Describe(disallowed);

  auto records = ReadWarcDir(env.warc_dir());
  ASSERT_TRUE(records.ok()) << records.status().message();
  auto warc = CheckWarc(*records, *log);
  EXPECT_TRUE(warc.empty()) << "WARC vs access log:\n" << Describe(warc);

  // Every response against the model: the stored body is the page itself,
  // the server sent it encoded (the access log counts the bytes sent).
  simweb::SimWebOptions web_options;
  web_options.hosts = o.hosts;
  web_options.pages = o.pages;
  web_options.seed = o.seed;
  auto web = simweb::SimWeb::Create(web_options);
  ASSERT_TRUE(web.ok());
  size_t encoded = 0;
  for (const auto& r : *records) {
    if (r.Get("WARC-Type") != "response") continue;
    const std::string url = r.Get("WARC-Target-URI");
    auto [host, target] = HostAndTarget(url);
    const simweb::Response model = web->Fetch(host, target);
    const Block block = Split(r.block);
    EXPECT_EQ(block.body, model.body) << url;
    EXPECT_EQ(r.Get("WARC-Payload-Digest"), WarcSha1Digest(model.body)) << url;
    EXPECT_EQ(HeaderOf(block.head, "Content-Encoding"), "") << url;
    EXPECT_EQ(HeaderOf(block.head, "Content-Length"), std::to_string(model.body.size())) << url;
    const bool text = model.content_type.starts_with("text/") && !model.body.empty();
    EXPECT_EQ(HeaderOf(block.head, "X-Crawlfront-Content-Encoding"), text ? name : "") << url;
    encoded += text;
  }
  for (const auto& e : *log) {
    const simweb::Response model = web->Fetch(e.host, e.target);
    const bool text = model.content_type.starts_with("text/") && !model.body.empty();
    const std::string wire = text ? simweb::Encode(coding, model.body) : model.body;
    EXPECT_EQ(static_cast<size_t>(e.body_bytes), wire.size()) << e.Url();
  }
  EXPECT_GT(encoded, log->size() / 2) << "most responses are text and must be encoded";
  std::printf("%s: %zu responses, %zu of them encoded\n", name.c_str(), log->size(), encoded);
}

INSTANTIATE_TEST_SUITE_P(Codings, E2eEncodingTest,
                         ::testing::Values(ContentCoding::kGzip, ContentCoding::kBrotli,
                                           ContentCoding::kZstd),
                         [](const auto& info) {
                           return std::string(simweb::CodingName(info.param));
                         });

}  // namespace
}  // namespace crawlfront::e2e
