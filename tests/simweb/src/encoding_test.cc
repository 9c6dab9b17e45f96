// Content-coding negotiation and the codecs (encoding.h).

#include "crawlfront/simweb/encoding.h"

#include <gtest/gtest.h>

#include <string>

namespace crawlfront::simweb {
namespace {

constexpr ContentCoding kAll[] = {ContentCoding::kGzip, ContentCoding::kBrotli,
                                  ContentCoding::kZstd};

TEST(EncodingTest, ParsesCodingLists) {
  auto all = ParseCodingList("gzip, br,zstd");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, std::vector<ContentCoding>(std::begin(kAll), std::end(kAll)));
  auto none = ParseCodingList("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  for (const char* bad : {"gzip,gzip", "deflate", "identity", "gzip,", "BR;q=1"}) {
    EXPECT_FALSE(ParseCodingList(bad).ok()) << bad;
  }
  EXPECT_TRUE(ParseCodingList("BR").ok());  // names are case-insensitive
}

TEST(EncodingTest, ChoosesByWeightThenServerOrder) {
  const std::vector<ContentCoding> offered(std::begin(kAll), std::end(kAll));
  struct Case {
    const char* accept;
    ContentCoding want;
  };
  const Case cases[] = {
      {"", ContentCoding::kIdentity},
      {"identity", ContentCoding::kIdentity},
      {"deflate, gzip, br, zstd", ContentCoding::kGzip},  // libcurl's list: server order
      {"zstd", ContentCoding::kZstd},
      {"gzip;q=0.5, br;q=0.8", ContentCoding::kBrotli},
      {"gzip;q=1.0, br;q=0.999", ContentCoding::kGzip},
      {"*", ContentCoding::kGzip},
      {"*;q=0.1, br", ContentCoding::kBrotli},
      {"*, gzip;q=0", ContentCoding::kBrotli},
      {"gzip;q=0, br;q=0, zstd;q=0", ContentCoding::kIdentity},
      {"x-gzip", ContentCoding::kGzip},
      {" GZIP ; Q=0.5 ", ContentCoding::kGzip},
      {"gzip;q=2, br;q=x, zstd;q=0.", ContentCoding::kIdentity},  // malformed weights
      {"gzip;level=1", ContentCoding::kIdentity},  // not a weight: element ignored
      {",,br,,", ContentCoding::kBrotli},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ChooseCoding(c.accept, offered), c.want) << "'" << c.accept << "'";
  }
  EXPECT_EQ(ChooseCoding("gzip, br", {ContentCoding::kZstd}), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseCoding("gzip, br", {ContentCoding::kBrotli, ContentCoding::kGzip}),
            ContentCoding::kBrotli);
  EXPECT_EQ(ChooseCoding("gzip", {}), ContentCoding::kIdentity);
}

TEST(EncodingTest, RoundTripsAndIsDeterministic) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "<a href=\"/p/" + std::to_string(i % 97) + "\">x</a>\n";
  for (ContentCoding c : kAll) {
    for (const std::string& body : {std::string(), std::string("x"), text}) {
      std::string encoded = Encode(c, body);
      EXPECT_EQ(encoded, Encode(c, body)) << CodingName(c);
      auto decoded = Decode(c, encoded);
      ASSERT_TRUE(decoded.ok()) << CodingName(c) << ": " << decoded.status().ToString();
      EXPECT_EQ(*decoded, body) << CodingName(c);
    }
    EXPECT_LT(Encode(c, text).size(), text.size() / 4) << CodingName(c);
  }
  EXPECT_EQ(Encode(ContentCoding::kIdentity, text), text);
}

TEST(EncodingTest, DecodeRefusesDamagedStreams) {
  const std::string body(10000, 'a');
  for (ContentCoding c : kAll) {
    std::string encoded = Encode(c, body);
    EXPECT_FALSE(Decode(c, encoded.substr(0, encoded.size() / 2)).ok()) << CodingName(c);
    EXPECT_FALSE(Decode(c, encoded + "junk").ok()) << CodingName(c);
    EXPECT_FALSE(Decode(c, "not compressed at all").ok()) << CodingName(c);
  }
}

}  // namespace
}  // namespace crawlfront::simweb
