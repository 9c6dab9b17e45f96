#include "crawlfront/worker/warc.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace crawlfront {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------ SHA-1, base32

std::string Hex(const std::array<uint8_t, 20>& d) {
  std::string out;
  char buf[3];
  for (uint8_t b : d) std::snprintf(buf, sizeof buf, "%02x", b), out += buf;
  return out;
}

TEST(Sha1Test, Fips180Vectors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
      {std::string(1000000, 'a'), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
  };
  for (const auto& [msg, hex] : cases) {
    Sha1 sha;
    sha.Update(msg);
    EXPECT_EQ(Hex(sha.Final()), hex) << msg.substr(0, 20);
  }
}

TEST(Sha1Test, ChunkingDoesNotMatter) {
  std::string data(1000, '\0');
  std::mt19937 rng(7);
  for (char& c : data) c = static_cast<char>(rng());
  Sha1 whole;
  whole.Update(data);
  const auto expected = whole.Final();
  for (size_t chunk : {1, 3, 55, 56, 63, 64, 65, 999}) {
    Sha1 sha;
    for (size_t i = 0; i < data.size(); i += chunk) sha.Update(data.substr(i, chunk));
    EXPECT_EQ(sha.Final(), expected) << chunk;
  }
}

TEST(Base32Test, Rfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"f", "MY======"},
      {"fo", "MZXQ===="},
      {"foo", "MZXW6==="},
      {"foob", "MZXW6YQ="},
      {"fooba", "MZXW6YTB"},
      {"foobar", "MZXW6YTBOI======"}};
  for (const auto& [in, out] : cases) {
    EXPECT_EQ(Base32(reinterpret_cast<const uint8_t*>(in.data()), in.size()), out);
  }
  // A SHA-1 is 20 bytes: exactly 32 base32 characters, no padding.
  EXPECT_EQ(WarcSha1Digest("").size(), 5u + 32u);
}

// ------------------------------------------------------------ reading back

struct Record {
  std::vector<std::pair<std::string, std::string>> headers;
  std::string block;
  std::string Get(const std::string& name) const {
    for (const auto& [n, v] : headers) {
      if (n == name) return v;
    }
    return "";
  }
  bool Has(const std::string& name) const {
    return std::any_of(headers.begin(), headers.end(),
                       [&](const auto& h) { return h.first == name; });
  }
};

// Parses one record at data[*pos]; advances *pos past it.
::testing::AssertionResult ParseRecord(const std::string& data, size_t* pos, Record* r) {
  if (data.compare(*pos, 10, "WARC/1.1\r\n") != 0) {
    return ::testing::AssertionFailure() << "no WARC/1.1 line at " << *pos;
  }
  size_t end = data.find("\r\n\r\n", *pos);
  if (end == std::string::npos) return ::testing::AssertionFailure() << "no header end";
  std::istringstream lines(data.substr(*pos + 10, end - *pos - 10 + 2));
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(": ");
    if (colon == std::string::npos) return ::testing::AssertionFailure() << line;
    r->headers.emplace_back(line.substr(0, colon), line.substr(colon + 2));
  }
  size_t length = std::stoull(r->Get("Content-Length"));
  size_t block_start = end + 4;
  if (block_start + length + 4 > data.size()) {
    return ::testing::AssertionFailure() << "Content-Length past the end";
  }
  r->block = data.substr(block_start, length);
  if (data.compare(block_start + length, 4, "\r\n\r\n") != 0) {
    return ::testing::AssertionFailure() << "record does not end with CRLF CRLF";
  }
  *pos = block_start + length + 4;
  return ::testing::AssertionSuccess();
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Splits a .warc.gz into its gzip members, decompressing each on its own
// (inflate with windowBits 31, restarting at every member boundary).
std::vector<std::string> InflateMembers(const std::string& gz) {
  std::vector<std::string> members;
  size_t pos = 0;
  while (pos < gz.size()) {
    z_stream zs{};
    EXPECT_EQ(inflateInit2(&zs, 31), Z_OK);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data() + pos));
    zs.avail_in = static_cast<uInt>(gz.size() - pos);
    std::string out;
    int rc = Z_OK;
    char buf[16384];
    while (rc == Z_OK) {
      zs.next_out = reinterpret_cast<Bytef*>(buf);
      zs.avail_out = sizeof buf;
      rc = inflate(&zs, Z_NO_FLUSH);
      out.append(buf, sizeof buf - zs.avail_out);
    }
    EXPECT_EQ(rc, Z_STREAM_END) << "bad gzip member at offset " << pos;
    pos += zs.total_in;
    inflateEnd(&zs);
    if (rc != Z_STREAM_END) break;
    members.push_back(std::move(out));
  }
  return members;
}

// All records of a file; for .gz, checks that each member holds exactly one.
std::vector<Record> ReadWarc(const fs::path& p) {
  std::vector<Record> records;
  std::string data = ReadAll(p);
  std::vector<std::string> chunks = {data};
  if (p.extension() == ".gz") chunks = InflateMembers(data);
  for (const std::string& chunk : chunks) {
    size_t pos = 0;
    while (pos < chunk.size()) {
      Record r;
      ::testing::AssertionResult parsed = ParseRecord(chunk, &pos, &r);
      if (!parsed) {
        ADD_FAILURE() << parsed.message();
        return records;  // pos did not advance: stop
      }
      records.push_back(std::move(r));
      if (p.extension() == ".gz") {
        EXPECT_EQ(pos, chunk.size()) << "member with >1 record";
      }
    }
  }
  return records;
}

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());  // names sort by time, then serial
  return files;
}

// ------------------------------------------------------------ writer tests

class WarcWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "warc_test_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  WarcExchange Exchange(int i, size_t body_size = 100) {
    WarcExchange ex;
    ex.target_uri = "http://127.0.0.1:8080/page/" + std::to_string(i);
    ex.ip_address = "127.0.0.1";
    ex.fetch_time = std::chrono::sys_days{std::chrono::year{2026} / 12 / 2} +
                    std::chrono::hours{10} + std::chrono::seconds{i};
    ex.request_head =
        "GET /page/" + std::to_string(i) + " HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
    ex.response_head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
    ex.response_body.resize(body_size);
    std::mt19937 rng(i);
    for (char& c : ex.response_body) c = static_cast<char>(rng());  // incompressible
    return ex;
  }

  WarcOptions Options() {
    WarcOptions o;
    o.dir = dir_.string();
    o.prefix = "test";
    o.operator_info = "ops@example.invalid";
    return o;
  }

  fs::path dir_;
};

void ExpectHttpRecord(const Record& r, const char* type, const WarcExchange& ex,
                      const std::string& head, const std::string& body) {
  SCOPED_TRACE(type);
  EXPECT_EQ(r.Get("WARC-Type"), type);
  EXPECT_EQ(r.Get("WARC-Target-URI"), ex.target_uri);
  EXPECT_EQ(r.Get("WARC-IP-Address"), ex.ip_address);
  EXPECT_EQ(r.Get("Content-Type"), std::string("application/http;msgtype=") + type);
  EXPECT_EQ(r.block, head + body);
  EXPECT_EQ(std::stoull(r.Get("Content-Length")), head.size() + body.size());
  EXPECT_EQ(r.Get("WARC-Block-Digest"), WarcSha1Digest(r.block));
  EXPECT_EQ(r.Get("WARC-Payload-Digest"), WarcSha1Digest(body));
}

// A 304 to a recrawl's conditional GET: its response record is a revisit of
// the server-not-modified profile, with the 304's head and no payload digest.
TEST_F(WarcWriterTest, NotModifiedIsARevisitRecord) {
  auto writer = WarcWriter::Open(Options());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  WarcExchange ex = Exchange(0, 0);
  ex.response_head = "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n";
  ex.not_modified = true;
  ASSERT_TRUE((*writer)->WriteExchange(ex).ok());
  const fs::path path = (*writer)->current_path();
  ASSERT_TRUE((*writer)->Close().ok());
  std::vector<Record> records = ReadWarc(path);
  ASSERT_EQ(records.size(), 3u);  // warcinfo, request, revisit
  EXPECT_EQ(records[1].Get("WARC-Type"), "request");
  const Record& r = records[2];
  EXPECT_EQ(r.Get("WARC-Type"), "revisit");
  EXPECT_EQ(r.Get("WARC-Profile"),
            "http://netpreserve.org/warc/1.1/revisit/server-not-modified");
  EXPECT_EQ(r.Get("Content-Type"), "application/http;msgtype=response");
  EXPECT_EQ(r.block, ex.response_head);
  EXPECT_EQ(r.Get("WARC-Block-Digest"), WarcSha1Digest(r.block));
  EXPECT_FALSE(r.Has("WARC-Payload-Digest"));
  EXPECT_EQ(records[1].Get("WARC-Concurrent-To"), r.Get("WARC-Record-ID"));
}

// Record framing inside a body, with a NUL byte.
const std::string kFramingLookalike("\r\n\r\nWARC/1.1\r\n\0",
                                    sizeof("\r\n\r\nWARC/1.1\r\n\0") - 1);

TEST_F(WarcWriterTest, ExchangesReadBackWithCorrectHeadersAndDigests) {
  auto writer = WarcWriter::Open(Options());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  std::vector<WarcExchange> exchanges = {Exchange(0), Exchange(1, 0), Exchange(2, 5000)};
  exchanges[0].outlinks = {"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b?x=1"};
  exchanges[1].truncated = true;
  exchanges[2].response_body += kFramingLookalike;  // must not confuse readers
  exchanges[2].ip_address = "";
  for (const auto& ex : exchanges) ASSERT_TRUE((*writer)->WriteExchange(ex).ok());
  const fs::path path = (*writer)->current_path();
  EXPECT_EQ((*writer)->records(), 1u + 3u + 2u + 2u);
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->bytes(), fs::file_size(path));

  std::vector<Record> records = ReadWarc(path);
  ASSERT_EQ(records.size(), 8u);
  EXPECT_EQ(records[0].Get("WARC-Type"), "warcinfo");
  EXPECT_EQ(records[0].Get("WARC-Filename"), path.filename().string());
  EXPECT_NE(records[0].block.find("operator: ops@example.invalid\r\n"),
            std::string::npos);
  EXPECT_NE(records[0].block.find("format: WARC File Format 1.1\r\n"), std::string::npos);

  const std::regex id_re(
      "<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
      "[0-9a-f]{12}>");
  const std::regex date_re(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
  std::set<std::string> ids;
  for (const Record& r : records) {
    EXPECT_TRUE(std::regex_match(r.Get("WARC-Record-ID"), id_re))
        << r.Get("WARC-Record-ID");
    EXPECT_TRUE(std::regex_match(r.Get("WARC-Date"), date_re)) << r.Get("WARC-Date");
    ids.insert(r.Get("WARC-Record-ID"));
  }
  EXPECT_EQ(ids.size(), records.size());

  size_t i = 1;
  for (const WarcExchange& ex : exchanges) {
    const Record& request = records[i];
    const Record& response = records[i + 1];
    ExpectHttpRecord(request, "request", ex, ex.request_head, ex.request_body);
    ExpectHttpRecord(response, "response", ex, ex.response_head, ex.response_body);
    EXPECT_EQ(request.Get("WARC-Concurrent-To"), response.Get("WARC-Record-ID"));
    EXPECT_FALSE(response.Has("WARC-Concurrent-To"));
    EXPECT_EQ(response.Has("WARC-Truncated"), ex.truncated);
    if (ex.truncated) {
      EXPECT_EQ(response.Get("WARC-Truncated"), "length");
    }
    EXPECT_EQ(response.Has("WARC-IP-Address"), !ex.ip_address.empty());
    i += 2;
    if (ex.outlinks.empty()) continue;
    const Record& meta = records[i++];
    EXPECT_EQ(meta.Get("WARC-Type"), "metadata");
    EXPECT_EQ(meta.Get("Content-Type"), "application/warc-fields");
    EXPECT_EQ(meta.Get("WARC-Concurrent-To"), response.Get("WARC-Record-ID"));
    EXPECT_EQ(meta.Get("WARC-Block-Digest"), WarcSha1Digest(meta.block));
    std::string expected;
    for (const auto& link : ex.outlinks) expected += "outlink: " + link + "\r\n";
    EXPECT_EQ(meta.block, expected);
  }
  EXPECT_EQ(records[1].Get("WARC-Date"), "2026-12-02T10:00:00Z");
  EXPECT_EQ(records[4].Get("WARC-Date"), "2026-12-02T10:00:01Z");
}

TEST_F(WarcWriterTest, RotatesBySizeEachFileStartingWithWarcinfo) {
  WarcOptions o = Options();
  o.max_file_bytes = 8000;
  auto writer = WarcWriter::Open(o);
  ASSERT_TRUE(writer.ok());
  const int kExchanges = 12;
  for (int i = 0; i < kExchanges; ++i) {
    ASSERT_TRUE((*writer)->WriteExchange(Exchange(i, 2500)).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
  std::vector<fs::path> files = FilesIn(dir_);
  EXPECT_GT(files.size(), 2u);
  EXPECT_EQ(files.size(), (*writer)->files());
  const std::regex name_re(R"(test-\d{17}-\d{5}\.warc\.gz)");
  int responses = 0;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    EXPECT_TRUE(std::regex_match(f.filename().string(), name_re));
    std::vector<Record> records = ReadWarc(f);
    ASSERT_FALSE(records.empty());
    EXPECT_EQ(records[0].Get("WARC-Type"), "warcinfo");
    EXPECT_EQ(records[0].Get("WARC-Filename"), f.filename().string());
    EXPECT_EQ(records.size() % 2, 1u);  // warcinfo + whole request/response pairs
    // Over the limit only when one exchange alone is larger.
    if (records.size() > 3) {
      EXPECT_LE(fs::file_size(f), o.max_file_bytes);
    }
    for (const Record& r : records) responses += r.Get("WARC-Type") == "response";
  }
  EXPECT_EQ(responses, kExchanges);
}

TEST_F(WarcWriterTest, LevelZeroWritesPlainWarc) {
  WarcOptions o = Options();
  o.gzip_level = 0;
  auto writer = WarcWriter::Open(o);
  ASSERT_TRUE(writer.ok());
  WarcExchange ex = Exchange(3);
  ASSERT_TRUE((*writer)->WriteExchange(ex).ok());
  fs::path path = (*writer)->current_path();
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(path.extension(), ".warc");
  std::string data = ReadAll(path);
  EXPECT_EQ(data.rfind("WARC/1.1\r\n", 0), 0u);
  std::vector<Record> records = ReadWarc(path);
  ASSERT_EQ(records.size(), 3u);
  ExpectHttpRecord(records[2], "response", ex, ex.response_head, ex.response_body);
}

TEST_F(WarcWriterTest, BadExchangesAreRefusedAndWriteNothing) {
  auto writer = WarcWriter::Open(Options());
  ASSERT_TRUE(writer.ok());
  std::vector<WarcExchange> bad(4, Exchange(1));
  bad[0].target_uri = "";
  bad[1].target_uri = "http://a/ b";
  bad[2].ip_address = "1.2.3.4\r\nX: y";
  bad[3].outlinks = {"http://a/\r\nWARC-Type: evil"};
  for (const auto& ex : bad) {
    EXPECT_EQ((*writer)->WriteExchange(ex).code(), Status::Code::kInvalidArgument);
  }
  EXPECT_EQ((*writer)->records(), 0u);  // not even a warcinfo
  EXPECT_TRUE(FilesIn(dir_).empty());
}

// A worker that fetches nothing leaves no file holding only a warcinfo.
TEST_F(WarcWriterTest, NoFileUntilTheFirstExchange) {
  auto writer = WarcWriter::Open(Options());
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ((*writer)->current_path(), "");
  ASSERT_TRUE((*writer)->Flush().ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_TRUE(FilesIn(dir_).empty());
  EXPECT_EQ((*writer)->files(), 0u);

  auto second = WarcWriter::Open(Options());
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE((*second)->WriteExchange(Exchange(1)).ok());
  ASSERT_TRUE((*second)->Close().ok());
  ASSERT_EQ(FilesIn(dir_).size(), 1u);
  std::vector<Record> records = ReadWarc(FilesIn(dir_)[0]);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].Get("WARC-Type"), "warcinfo");
}

TEST_F(WarcWriterTest, BadOptionsAreRefused) {
  std::vector<WarcOptions> cases(5, Options());
  cases[0].dir = "";
  cases[1].gzip_level = 10;
  cases[2].max_file_bytes = 0;
  cases[3].prefix = "a/b";
  cases[4].gzip_level = -1;
  for (const auto& o : cases) {
    EXPECT_EQ(WarcWriter::Open(o).status().code(), Status::Code::kInvalidArgument);
  }
  std::ofstream(dir_ / "plain_file") << "x";
  WarcOptions under_file = Options();
  under_file.dir = (dir_ / "plain_file" / "sub").string();
  EXPECT_EQ(WarcWriter::Open(under_file).status().code(), Status::Code::kIoError);
}

TEST_F(WarcWriterTest, WritersWithTheSamePrefixDoNotCollide) {
  auto a = WarcWriter::Open(Options());
  auto b = WarcWriter::Open(Options());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->WriteExchange(Exchange(1)).ok());
  ASSERT_TRUE((*b)->WriteExchange(Exchange(2)).ok());
  EXPECT_NE((*a)->current_path(), (*b)->current_path());
}

TEST_F(WarcWriterTest, ClosedWriterRefusesWrites) {
  auto writer = WarcWriter::Open(Options());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_FALSE((*writer)->WriteExchange(Exchange(1)).ok());
  EXPECT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE((*writer)->Flush().ok());
}

TEST_F(WarcWriterTest, ConcurrentWritersProduceWholeRecords) {
  WarcOptions o = Options();
  o.max_file_bytes = 20000;
  auto writer = WarcWriter::Open(o);
  ASSERT_TRUE(writer.ok());
  const int kThreads = 4, kPerThread = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        EXPECT_TRUE((*writer)->WriteExchange(Exchange(t * kPerThread + i, 700)).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_TRUE((*writer)->Close().ok());
  std::map<std::string, int> uris;
  size_t total_records = 0;
  for (const fs::path& f : FilesIn(dir_)) {
    std::vector<Record> records = ReadWarc(f);
    total_records += records.size();
    for (size_t i = 1; i + 1 < records.size(); i += 2) {
      // A request is always followed by its own response.
      EXPECT_EQ(records[i].Get("WARC-Concurrent-To"),
                records[i + 1].Get("WARC-Record-ID"));
      EXPECT_EQ(records[i + 1].Get("WARC-Block-Digest"),
                WarcSha1Digest(records[i + 1].block));
      ++uris[records[i + 1].Get("WARC-Target-URI")];
    }
  }
  EXPECT_EQ(uris.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(total_records, (*writer)->records());
}

}  // namespace
}  // namespace crawlfront
