#include "crawlfront/common/url.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace crawlfront {
namespace {

// One table row: `want` is the canonical spec, or when it starts with "!" a
// substring the rejection message must contain.
struct Case {
  const char* input;
  const char* want;
};

const Case kCanonicalCases[] = {
    // scheme, host case, default ports
    {"http://example.com", "http://example.com/"},
    {"HTTP://EXAMPLE.COM/", "http://example.com/"},
    {"HtTpS://Example.COM/Path/File.HTML", "https://example.com/Path/File.HTML"},
    {"http://example.com:80/", "http://example.com/"},
    {"https://example.com:443/", "https://example.com/"},
    {"http://example.com:443/", "http://example.com:443/"},
    {"https://example.com:80/", "https://example.com:80/"},
    {"http://example.com:8080/a", "http://example.com:8080/a"},
    {"http://example.com:0080/", "http://example.com/"},
    {"http://example.com:/", "http://example.com/"},
    {"https://example.com:65535/", "https://example.com:65535/"},
    // fragments
    {"http://example.com/a#frag", "http://example.com/a"},
    {"http://example.com/#", "http://example.com/"},
    {"http://example.com/a?x=1#y?z", "http://example.com/a?x=1"},
    {"http://example.com/a#b#c", "http://example.com/a"},
    // dot segments
    {"http://example.com/a/./b/../c", "http://example.com/a/c"},
    {"http://example.com/../a", "http://example.com/a"},
    {"http://example.com/../../a/../../b", "http://example.com/b"},
    {"http://example.com/a/b/..", "http://example.com/a/"},
    {"http://example.com/a/.", "http://example.com/a/"},
    {"http://example.com/%2E%2E/a", "http://example.com/a"},
    {"http://example.com/a//b", "http://example.com/a//b"},
    {"http://example.com/a/..b/.c", "http://example.com/a/..b/.c"},
    // percent-encoding
    {"http://example.com/%7euser", "http://example.com/~user"},
    {"http://example.com/%7Euser", "http://example.com/~user"},
    {"http://example.com/a%2fb", "http://example.com/a%2Fb"},
    {"http://example.com/%41%42%2d%5f", "http://example.com/AB-_"},
    {"http://example.com/?q=%e2%82%ac", "http://example.com/?q=%E2%82%AC"},
    {"http://example.com/?a=%26&b=%3D", "http://example.com/?a=%26&b=%3D"},
    {"http://example.com/?q=a+b", "http://example.com/?q=a+b"},
    // characters browsers encode
    {"http://example.com/a b", "http://example.com/a%20b"},
    {"  http://example.com/  ", "http://example.com/"},
    {"http://example.com/caf\xC3\xA9", "http://example.com/caf%C3%A9"},
    {"http://example.com/?q=\xE2\x82\xAC", "http://example.com/?q=%E2%82%AC"},
    {"http://example.com/a|b{c}", "http://example.com/a%7Cb%7Bc%7D"},
    {"http://example.com/\"<x>\"", "http://example.com/%22%3Cx%3E%22"},
    // empty query
    {"http://example.com/path?", "http://example.com/path"},
    {"http://example.com/?a=1&&b=2", "http://example.com/?a=1&&b=2"},
    // hosts
    {"http://example.com./", "http://example.com/"},
    {"http://EXAMPLE.com.:8080", "http://example.com:8080/"},
    {"http://under_score.example.com/", "http://under_score.example.com/"},
    {"http://a.b-c.d/", "http://a.b-c.d/"},
    {"http://%41.example.com/", "http://a.example.com/"},
    {"http://b\xC3\xBC"
     "cher.de/",
     "http://xn--bcher-kva.de/"},
    {"http://B\xC3\x9C"
     "CHER.de/",
     "http://xn--bcher-kva.de/"},
    {"http://b%C3%BCcher.de/", "http://xn--bcher-kva.de/"},
    {"http://\xE4\xBE\x8B\xE5\xAD\x90.\xE6\xB5\x8B\xE8\xAF\x95/",
     "http://xn--fsqu00a.xn--0zwm56d/"},
    {"http://xn--bcher-kva.de/", "http://xn--bcher-kva.de/"},
    {"http://192.168.0.1/", "http://192.168.0.1/"},
    {"http://192.168.0.1:80/x", "http://192.168.0.1/x"},
    {"http://1.2.3.4.nip.io/", "http://1.2.3.4.nip.io/"},
    {"http://1.2.3.4.nip.io:8080", "http://1.2.3.4.nip.io:8080/"},
    {"http://0x7f.0.0.1/", "http://127.0.0.1/"},
    {"http://2130706433/", "http://127.0.0.1/"},
    {"http://0300.0250.0.1/", "http://192.168.0.1/"},
    {"http://127.1/", "http://127.0.0.1/"},
    {"http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:db8::1]/"},
    {"http://[::1]:8080/x", "http://[::1]:8080/x"},
    {"https://[::1]:443/", "https://[::1]/"},
    // session ids and trackers
    {"http://example.com/;jsessionid=ABC", "http://example.com/"},
    {"http://example.com/a;jsessionid=ABC?x=1", "http://example.com/a?x=1"},
    {"http://example.com/a;JSESSIONID=ABC;v=2/b", "http://example.com/a;v=2/b"},
    {"http://example.com/a;foo=1", "http://example.com/a;foo=1"},
    {"http://example.com/x/..;jsessionid=1/y", "http://example.com/y"},
    {"http://example.com/?utm_source=x&utm_medium=y&id=3", "http://example.com/?id=3"},
    {"http://example.com/?id=3&PHPSESSID=abc", "http://example.com/?id=3"},
    {"http://example.com/?gclid=1", "http://example.com/"},
    {"http://example.com/?fbclid=1&a=2&sid=9&sessionid=8&jsessionid=7",
     "http://example.com/?a=2"},
    {"http://example.com/?utm=1", "http://example.com/?utm=1"},
    {"http://example.com/?side=1", "http://example.com/?side=1"},
    {"http://example.com/?%75tm_source=x&a=1", "http://example.com/?a=1"},
    {"http://example.com/?b=2&a=1", "http://example.com/?b=2&a=1"},
    // rejections
    {"", "!empty"},
    {"   ", "!empty"},
    {"ftp://example.com/", "!unsupported scheme 'ftp'"},
    {"javascript:alert(1)", "!unsupported scheme"},
    {"mailto:a@example.com", "!unsupported scheme"},
    {"data:text/html,hi", "!unsupported scheme"},
    {"example.com/path", "!no scheme"},
    {"/relative/path", "!no scheme"},
    {"http://", "!no host"},
    {"http:///path", "!no host"},
    {"http:example.com", "!no host"},
    {"http://user:pass@example.com/", "!credentials"},
    {"http://user@example.com/", "!credentials"},
    {"http://example.com:99999/", "!invalid port"},
    {"http://example.com:0/", "!invalid port"},
    {"http://[::1/", "!invalid URL syntax"},
    {"http://example.com:8o/", "!invalid URL syntax"},
    {"http://[::1]x/", "!invalid URL syntax"},
    {"http://example.com/\x01", "!control byte 0x01"},
    {"http://example.com/a\nb", "!control byte 0x0A"},
    {"http://example.com/a\x7F", "!control byte 0x7F"},
    {"http://example.com/\xFF", "!invalid UTF-8"},
    {"http://example.com/\xC3", "!invalid UTF-8"},
    {"http://example.com/\xC0\xAF", "!invalid UTF-8"},
    {"http://example.com/\xED\xA0\x80", "!invalid UTF-8"},
    {"http://example.com/\xF4\x90\x80\x80", "!invalid UTF-8"},
    {"http://example.com/%zz", "!two hex digits"},
    {"http://example.com/%4", "!two hex digits"},
    {"http://%zz.com/", "!two hex digits"},
    {"http://exa mple.com/", "!invalid character 0x20"},
    {"http://ex%00ample.com/", "!invalid character 0x00"},
    {"http://example.com\\foo", "!invalid character 0x5C"},
    {"http://a..b/", "!empty label"},
    {"http://b%FFcher.de/", "!invalid UTF-8 after percent-decoding"},
    {"http://[v1.x]/", "!IPvFuture"},
    {"http://\xE2\x92\xAC"
     "ear/",
     "!IDNA mapping produced '(q)ear'"},
    {"http://1.2.3.256/", "!IPv4"},
    {"http://1.2.3.4.5/", "!IPv4"},
    {"http://0x100000000/", "!IPv4"},
    {"http://1.08/", "!IPv4"},
};

const char kRfcBase[] = "http://a/b/c/d;p?q";

// RFC 3986 5.4.1 and 5.4.2 against kRfcBase, canonicalized (so "//g" gains a
// "/" and fragments go); then our additions.
const Case kResolveCases[] = {
    {"g:h", "!unsupported scheme 'g'"},
    {"g", "http://a/b/c/g"},
    {"./g", "http://a/b/c/g"},
    {"g/", "http://a/b/c/g/"},
    {"/g", "http://a/g"},
    {"//g", "http://g/"},
    {"?y", "http://a/b/c/d;p?y"},
    {"g?y", "http://a/b/c/g?y"},
    {"#s", "http://a/b/c/d;p?q"},
    {"g#s", "http://a/b/c/g"},
    {"g?y#s", "http://a/b/c/g?y"},
    {";x", "http://a/b/c/;x"},
    {"g;x", "http://a/b/c/g;x"},
    {"g;x?y#s", "http://a/b/c/g;x?y"},
    {"", "http://a/b/c/d;p?q"},
    {".", "http://a/b/c/"},
    {"./", "http://a/b/c/"},
    {"..", "http://a/b/"},
    {"../", "http://a/b/"},
    {"../g", "http://a/b/g"},
    {"../..", "http://a/"},
    {"../../", "http://a/"},
    {"../../g", "http://a/g"},
    // 5.4.2 abnormal examples
    {"../../../g", "http://a/g"},
    {"../../../../g", "http://a/g"},
    {"/./g", "http://a/g"},
    {"/../g", "http://a/g"},
    {"g.", "http://a/b/c/g."},
    {".g", "http://a/b/c/.g"},
    {"g..", "http://a/b/c/g.."},
    {"..g", "http://a/b/c/..g"},
    {"./../g", "http://a/b/g"},
    {"./g/.", "http://a/b/c/g/"},
    {"g/./h", "http://a/b/c/g/h"},
    {"g/../h", "http://a/b/c/h"},
    {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
    {"g;x=1/../y", "http://a/b/c/y"},
    {"g?y/./x", "http://a/b/c/g?y/./x"},
    {"g?y/../x", "http://a/b/c/g?y/../x"},
    {"g#s/./x", "http://a/b/c/g"},
    {"g#s/../x", "http://a/b/c/g"},
    {"http:g", "http://a/b/c/g"},  // the backward-compatible reading
    // ours
    {"?", "http://a/b/c/d;p"},
    {" g ", "http://a/b/c/g"},
    {"g%2Fh", "http://a/b/c/g%2Fh"},
    {"g h", "http://a/b/c/g%20h"},
    {"g?utm_source=1", "http://a/b/c/g"},
    {"HTTPS://Other.COM:443", "https://other.com/"},
    {"//g:8080/x?y", "http://g:8080/x?y"},
    {"//g:80x/", "!invalid URL syntax"},
    {"//1.2.3.4.nip.io", "http://1.2.3.4.nip.io/"},
    {"//user@g/", "!credentials"},
    {"mailto:x@example.com", "!unsupported scheme"},
    {"javascript:void(0)", "!unsupported scheme"},
    {"g\x01", "!control byte"},
    {"%", "!two hex digits"},
};

// Names table rows in test output and ctest by their input, bytes outside
// printable ASCII escaped (ctest test names must stay on one line).
void PrintTo(const Case& c, std::ostream* os) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  *os << '"';
  for (const char* p = c.input; *p != '\0'; ++p) {
    const auto b = static_cast<unsigned char>(*p);
    if (b >= 0x20 && b < 0x7F) {
      *os << *p;
    } else {
      *os << "\\x" << kHex[b >> 4] << kHex[b & 0xF];
    }
  }
  *os << '"';
}

void ExpectCase(const Case& c, const Result<CanonicalUrl>& got) {
  const std::string want = c.want;
  if (want[0] == '!') {
    ASSERT_FALSE(got.ok()) << "accepted as " << got->spec;
    EXPECT_EQ(got.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(got.status().message().find(want.substr(1)), std::string::npos)
        << "message: " << got.status().message();
  } else {
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->spec, want);
  }
}

class CanonicalizeTable : public testing::TestWithParam<Case> {};

TEST_P(CanonicalizeTable, Matches) {
  ExpectCase(GetParam(), Canonicalize(GetParam().input));
}

// Idempotence over every accepted input: the canonical form is a fixed point.
TEST_P(CanonicalizeTable, IsIdempotent) {
  auto first = Canonicalize(GetParam().input);
  if (!first.ok()) return;
  auto second = Canonicalize(first->spec);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->spec, first->spec);
  EXPECT_EQ(second->host, first->host);
}

INSTANTIATE_TEST_SUITE_P(Cases, CanonicalizeTable, testing::ValuesIn(kCanonicalCases));

class ResolveTable : public testing::TestWithParam<Case> {};

TEST_P(ResolveTable, Matches) {
  ExpectCase(GetParam(), ResolveAndCanonicalize(kRfcBase, GetParam().input));
}

TEST_P(ResolveTable, ResultIsIdempotent) {
  auto first = ResolveAndCanonicalize(kRfcBase, GetParam().input);
  if (!first.ok()) return;
  auto second = Canonicalize(first->spec);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->spec, first->spec);
}

INSTANTIATE_TEST_SUITE_P(Rfc3986, ResolveTable, testing::ValuesIn(kResolveCases));

// One resolver over the whole table, twice: its scratch buffers carry
// nothing from one reference (or one failure) to the next.
TEST(UrlResolverTest, ReusedResolverMatchesTheTable) {
  const UrlOptions opts;
  const UrlResolver resolver(kRfcBase, opts);
  EXPECT_TRUE(resolver.base_status().ok());
  for (int pass = 0; pass < 2; ++pass) {
    for (const Case& c : kResolveCases) {
      SCOPED_TRACE(testing::PrintToString(c));
      ExpectCase(c, resolver.Resolve(c.input));
    }
  }
}

TEST(UrlResolverTest, OwnsACopyOfItsBase) {
  const UrlOptions opts;
  auto base = std::make_unique<std::string>("http://a/b/c/d;p?q");
  UrlResolver resolver(*base, opts);
  base->assign("http://z/overwritten/");
  base.reset();
  UrlResolver moved = std::move(resolver);
  ExpectCase({"", "http://a/b/c/g"}, moved.Resolve("g"));
}

TEST(UrlResolverTest, BadBaseFailsEveryReference) {
  const UrlOptions opts;
  const UrlResolver resolver("ftp://a/", opts);
  EXPECT_EQ(resolver.base_status().code(), Status::Code::kInvalidArgument);
  ExpectCase({"", "!base: unsupported scheme"}, resolver.Resolve("g"));
  ExpectCase({"", "!base: unsupported scheme"}, resolver.Resolve("http://ok.test/"));
}

TEST(ResolveTest, RejectsBadBase) {
  const Case cases[] = {{"", "!base: empty"},
                        {"ftp://a/", "!base: unsupported scheme"},
                        {"/relative", "!base: no scheme"},
                        {"http:a", "!base: URL has no host"},
                        {"http://a/\xFF", "!base: invalid UTF-8"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    ExpectCase(c, ResolveAndCanonicalize(c.input, "g"));
  }
}

TEST(ResolveTest, BaseWithoutPathOrWithEncodedBytes) {
  ExpectCase({"", "http://a/g"}, ResolveAndCanonicalize("http://a", "g"));
  ExpectCase({"", "http://a/x%20y/g"}, ResolveAndCanonicalize("http://a/x y/z", "g"));
  // "http:g" is relative only against an http base.
  ExpectCase({"", "!no host"}, ResolveAndCanonicalize("https://a/b", "http:g"));
}

TEST(CanonicalizeTest, CanonicalUrlCarriesHostAndKey) {
  UrlOptions opts;
  opts.host_key_mode = HostKeyMode::kRegisteredDomain;
  auto got = Canonicalize("http://WWW.Example.CO.UK:8080/x", opts);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->host, "www.example.co.uk");
  EXPECT_EQ(got->host_key, "example.co.uk");
  auto by_host = Canonicalize("http://WWW.Example.CO.UK:8080/x");
  ASSERT_TRUE(by_host.ok());
  EXPECT_EQ(by_host->host_key, "www.example.co.uk");
}

TEST(CanonicalizeTest, CredentialsStrippedWhenAllowed) {
  UrlOptions opts;
  opts.allow_credentials = true;
  for (const char* in : {"http://user:pass@example.com/a", "http://user@example.com/a",
                         "http://@example.com/a"}) {
    auto got = Canonicalize(in, opts);
    ASSERT_TRUE(got.ok()) << in;
    EXPECT_EQ(got->spec, "http://example.com/a");
  }
}

TEST(CanonicalizeTest, SortQueryIsStableByName) {
  UrlOptions opts;
  opts.sort_query = true;
  const Case cases[] = {
      {"http://e.com/?b=2&a=1", "http://e.com/?a=1&b=2"},
      {"http://e.com/?b=1&a=2&b=0&a=1", "http://e.com/?a=2&a=1&b=1&b=0"},
      {"http://e.com/?z&utm_x=1&y=", "http://e.com/?y=&z"},
      {"http://e.com/?", "http://e.com/"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    auto got = Canonicalize(c.input, opts);
    ExpectCase(c, got);
    if (got.ok()) {
      EXPECT_EQ(Canonicalize(got->spec, opts)->spec, got->spec);
    }
  }
}

TEST(CanonicalizeTest, CustomStripParams) {
  UrlOptions opts;
  opts.strip_params = {"ref", "x_*"};
  ExpectCase({"", "http://e.com/p;sid=1?sid=2"},
             Canonicalize("http://e.com/p;ref=9;sid=1?x_a=1&REF=3&sid=2", opts));
  opts.strip_params.clear();
  ExpectCase({"", "http://e.com/;jsessionid=1?utm_source=2"},
             Canonicalize("http://e.com/;jsessionid=1?utm_source=2", opts));
}

TEST(CanonicalizeTest, LengthLimitAppliesToInputAndOutput) {
  UrlOptions opts;
  opts.max_length = 30;
  const std::string base = "http://example.com/";
  EXPECT_TRUE(Canonicalize(base + std::string(30 - base.size(), 'a'), opts).ok());
  auto too_long = Canonicalize(base + std::string(31 - base.size(), 'a'), opts);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("too long"), std::string::npos);
  // 19 input bytes, but each "é" becomes 6 bytes ("%C3%A9") in the output.
  auto grown = Canonicalize("http://e.com/\xC3\xA9\xC3\xA9\xC3\xA9", opts);
  ASSERT_FALSE(grown.ok());
  EXPECT_NE(grown.status().message().find("canonical URL too long"), std::string::npos);
}

TEST(CanonicalizeTest, HugeInputIsRejectedNotParsed) {
  const std::string huge = "http://example.com/" + std::string(1 << 20, 'a');
  auto got = Canonicalize(huge);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("too long (1048595 bytes, limit 2048)"),
            std::string::npos)
      << got.status().message();
  auto resolved = ResolveAndCanonicalize("http://a/", huge);
  EXPECT_FALSE(resolved.ok());
}

TEST(CanonicalizeTest, LongHostLabelsRejected) {
  const std::string label63(63, 'a');
  EXPECT_TRUE(Canonicalize("http://" + label63 + ".com/").ok());
  auto got = Canonicalize("http://" + label63 + "a.com/");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("label longer than 63"), std::string::npos);
}

// Every single byte after a valid prefix: never a crash, and accepted results
// are fixed points.
TEST(CanonicalizeTest, EveryByteValueIsHandled) {
  for (int b = 0; b < 256; ++b) {
    const std::string in = std::string("http://e.com/a") + static_cast<char>(b) + "z";
    auto got = Canonicalize(in);
    if (b < 0x20 || b >= 0x7F) {
      EXPECT_FALSE(got.ok()) << "byte " << b;
      continue;
    }
    if (!got.ok()) continue;  // e.g. '%' without hex digits
    EXPECT_EQ(Canonicalize(got->spec)->spec, got->spec) << "byte " << b;
  }
}

TEST(HostKeyTest, Modes) {
  struct Row {
    const char* host;
    const char* registered;
  };
  const Row rows[] = {
      {"www.example.co.uk", "example.co.uk"},
      {"example.co.uk", "example.co.uk"},
      {"a.b.example.com", "example.com"},
      {"user.github.io", "user.github.io"},  // github.io is a public suffix
      {"co.uk", "co.uk"},
      {"localhost", "localhost"},
      {"127.0.0.1", "127.0.0.1"},
      {"[::1]", "[::1]"},
      {"www.xn--bcher-kva.de", "xn--bcher-kva.de"},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(HostKeyFor(r.host, HostKeyMode::kHost), r.host);
    EXPECT_EQ(HostKeyFor(r.host, HostKeyMode::kRegisteredDomain), r.registered) << r.host;
  }
}

TEST(FingerprintTest, IsXxh3Of128BitsOfTheSpec) {
  const std::string spec = "http://example.com/";
  const XXH128_hash_t h = XXH3_128bits(spec.data(), spec.size());
  const Fingerprint fp = FingerprintOf(spec);
  EXPECT_EQ(fp.hi, h.high64);
  EXPECT_EQ(fp.lo, h.low64);
  EXPECT_EQ(fp.low64(), h.low64);
  EXPECT_EQ(HostHash("example.com"), XXH3_64bits("example.com", 11));
}

TEST(FingerprintTest, EqualSpellingsShareAFingerprint) {
  const char* spellings[] = {"HTTP://Example.COM:80/a/./b/../c?utm_source=x#top",
                             "http://example.com/a/c", "http://example.com./a/%63"};
  const Fingerprint want = FingerprintOf("http://example.com/a/c");
  for (const char* s : spellings) {
    auto got = Canonicalize(s);
    ASSERT_TRUE(got.ok()) << s;
    EXPECT_EQ(FingerprintOf(got->spec), want) << s;
  }
}

TEST(FingerprintTest, DistinctSpecsDiffer) {
  std::set<std::pair<uint64_t, uint64_t>> seen;
  for (int i = 0; i < 10000; ++i) {
    const Fingerprint fp = FingerprintOf("http://example.com/" + std::to_string(i));
    EXPECT_TRUE(seen.insert({fp.hi, fp.lo}).second) << i;
  }
}

TEST(FingerprintTest, BytesRoundTripBigEndian) {
  const Fingerprint fp{0x0102030405060708ULL, 0x090A0B0C0D0E0F10ULL};
  std::string bytes = "x";
  fp.AppendTo(&bytes);
  ASSERT_EQ(bytes.size(), 1 + Fingerprint::kSize);
  EXPECT_EQ(bytes.substr(1), std::string("\x01\x02\x03\x04\x05\x06\x07\x08"
                                         "\x09\x0A\x0B\x0C\x0D\x0E\x0F\x10",
                                         16));
  EXPECT_EQ(Fingerprint::FromBytes(bytes.data() + 1), fp);
  // Byte order equals numeric order, so RocksDB keys sort like the values.
  const Fingerprint smaller{0x0102030405060708ULL, 0xFF};
  std::string a, b;
  smaller.AppendTo(&a);
  fp.AppendTo(&b);
  EXPECT_LT(a, b);
  EXPECT_FALSE(smaller == fp);
}

TEST(HostHashTest, DiffersAcrossHosts) {
  EXPECT_EQ(HostHash("example.com"), HostHash(std::string("example.com")));
  EXPECT_NE(HostHash("example.com"), HostHash("example.org"));
  EXPECT_NE(HostHash(""), HostHash("a"));
}

}  // namespace
}  // namespace crawlfront
