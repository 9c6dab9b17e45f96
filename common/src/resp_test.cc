#include "crawlfront/common/resp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace crawlfront {
namespace {

// Feeds `wire` in one piece and returns all values, or the first error.
Result<std::vector<RespValue>> ParseAll(RespParser::Mode mode, std::string_view wire,
                                        RespLimits limits = {}) {
  RespParser parser(mode, limits);
  parser.Feed(wire);
  std::vector<RespValue> out;
  for (size_t i = 0; i <= wire.size(); ++i) {
    RespValue v;
    Result<bool> got = parser.Next(&v);
    if (!got.ok()) return got.status();
    if (!*got) return out;
    out.push_back(std::move(v));
  }
  ADD_FAILURE() << "parser produced more values than input bytes";
  return out;
}

RespValue Parse1(std::string_view wire) {
  auto all = ParseAll(RespParser::Mode::kReply, wire);
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all.ok() ? all->size() : 0u, 1u) << wire;
  return all.ok() && !all->empty() ? (*all)[0] : RespValue::Error("no value");
}

TEST(RespParserTest, ScalarReplies) {
  struct Case {
    std::string wire;
    RespType type;
    std::string str;
    int64_t integer;
  } cases[] = {
      {"+OK\r\n", RespType::kSimpleString, "OK", 0},
      {"-ERR bad\r\n", RespType::kError, "ERR bad", 0},
      {":-42\r\n", RespType::kInteger, "", -42},
      {":9223372036854775807\r\n", RespType::kInteger, "", INT64_MAX},
      {"$5\r\nhe\r\no\r\n", RespType::kBulkString, "he\r\no", 0},
      {"$0\r\n\r\n", RespType::kBulkString, "", 0},
      {"$-1\r\n", RespType::kNull, "", 0},
      {"*-1\r\n", RespType::kNull, "", 0},
      {"_\r\n", RespType::kNull, "", 0},
      {"(12345678901234567890123\r\n", RespType::kBigNumber, "12345678901234567890123",
       0},
      {"!9\r\nERR oops!\r\n", RespType::kError, "ERR oops!", 0},
      {"=8\r\ntxt:abcd\r\n", RespType::kVerbatim, "abcd", 0},
  };
  for (const Case& c : cases) {
    RespValue v = Parse1(c.wire);
    EXPECT_EQ(v.type, c.type) << c.wire;
    EXPECT_EQ(v.str, c.str) << c.wire;
    EXPECT_EQ(v.integer, c.integer) << c.wire;
  }
}

TEST(RespParserTest, Resp3DoubleAndBoolean) {
  EXPECT_DOUBLE_EQ(Parse1(",3.25\r\n").number, 3.25);
  EXPECT_TRUE(std::isinf(Parse1(",inf\r\n").number));
  EXPECT_TRUE(Parse1("#t\r\n").boolean);
  EXPECT_FALSE(Parse1("#f\r\n").boolean);
}

TEST(RespParserTest, NestedAggregates) {
  RespValue v = Parse1("*3\r\n:1\r\n*2\r\n+a\r\n$1\r\nb\r\n%1\r\n+k\r\n~1\r\n#t\r\n");
  ASSERT_EQ(v.type, RespType::kArray);
  ASSERT_EQ(v.elements.size(), 3u);
  EXPECT_EQ(v.elements[1].elements[1].str, "b");
  const RespValue& map = v.elements[2];
  ASSERT_EQ(map.type, RespType::kMap);
  ASSERT_NE(map.Find("k"), nullptr);
  EXPECT_EQ(map.Find("k")->type, RespType::kSet);
}

TEST(RespParserTest, ByteAtATimeEqualsOneShot) {
  const std::string wire =
      "*2\r\n$3\r\nfoo\r\n*1\r\n:7\r\n+PONG\r\n%2\r\n+a\r\n:1\r\n+b\r\n$-1\r\n";
  auto whole = ParseAll(RespParser::Mode::kReply, wire);
  ASSERT_TRUE(whole.ok());
  RespParser parser(RespParser::Mode::kReply);
  std::vector<RespValue> pieces;
  for (char c : wire) {
    parser.Feed(std::string_view(&c, 1));
    RespValue v;
    Result<bool> got = parser.Next(&v);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (*got) pieces.push_back(v);
  }
  EXPECT_EQ(pieces, *whole);
  EXPECT_EQ(pieces.size(), 3u);
  EXPECT_FALSE(parser.in_progress());
}

// Values, then the first error's text, as a byte-at-a-time feed yields them:
// the general path only, since no whole aggregate is ever buffered.
std::vector<std::string> ByteAtATime(std::string_view wire, RespLimits limits) {
  RespParser parser(RespParser::Mode::kReply, limits);
  std::vector<std::string> got;
  for (char c : wire) {
    parser.Feed(std::string_view(&c, 1));
    RespValue v;
    Result<bool> r = parser.Next(&v);
    if (!r.ok()) {
      got.push_back("error: " + r.status().message());
      return got;
    }
    if (*r) got.push_back(v.ToDebugString());
  }
  return got;
}

std::vector<std::string> OneShot(std::string_view wire, RespLimits limits) {
  auto all = ParseAll(RespParser::Mode::kReply, wire, limits);
  std::vector<std::string> got;
  if (all.ok()) {
    for (const RespValue& v : *all) got.push_back(v.ToDebugString());
  } else {
    got.push_back("error: " + all.status().message());
  }
  return got;
}

// A whole buffered reply takes the one-pass path (resp_whole.cc); it
// must yield exactly what the general path yields, errors and limits included.
TEST(RespParserTest, WholeReplyFastPathAgreesWithGeneralPath) {
  RespLimits small;
  small.max_bulk_len = 8;
  small.max_array_len = 4;
  small.max_nesting = 2;
  small.max_frame_bytes = 64;
  small.max_inline_len = 24;
  const std::vector<std::string> wires = {
      "*2\r\n$3\r\nfoo\r\n:-12\r\n",
      "*3\r\n+OK\r\n-ERR no\r\n*0\r\n",
      "*1\r\n*2\r\n$0\r\n\r\n*1\r\n:7\r\n",  // nesting 3: over `small`
      "*2\r\n$-1\r\n:1\r\n",                   // null bulk: general path
      "*2\r\n_\r\n#t\r\n",                     // RESP3 types: general path
      "*5\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n",  // over max_array_len
      "*1\r\n$9\r\n123456789\r\n",             // over max_bulk_len
      "*2\r\n$3\r\nfooX\r\n:1\r\n",            // bulk without CRLF
      "*2\r\n:1x\r\n:2\r\n",                   // bad integer
      "*2\r\n:\r\n:2\r\n",                     // empty integer
      "*1\r\n+a\rb\nc\r\n",                    // bare CR and LF in a line
      "*1\r\n+" + std::string(30, 'x') + "\r\n",  // line over max_inline_len
      "*4\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n",
      "*-1\r\n:3\r\n",
      "*01\r\n:3\r\n",
      "*+1\r\n:3\r\n",
      "*1\r\n*1\r\n*0\r\n",  // an empty array past the nesting limit is fine
      "*3\r\n:1\r\n:2\r\n",  // incomplete
  };
  for (const std::string& wire : wires) {
    for (RespLimits limits : {RespLimits{}, small}) {
      EXPECT_EQ(OneShot(wire, limits), ByteAtATime(wire, limits)) << wire;
    }
  }
  // And the tree is the right one.
  RespValue v = Parse1("*2\r\n*2\r\n$3\r\nabc\r\n:5\r\n+OK\r\n");
  ASSERT_EQ(v.elements.size(), 2u);
  EXPECT_EQ(v.elements[0].elements[0], RespValue::Bulk("abc"));
  EXPECT_EQ(v.elements[0].elements[1], RespValue::Integer(5));
  EXPECT_EQ(v.elements[1], RespValue::SimpleString("OK"));
}

TEST(RespParserTest, RequestsAndInlineCommands) {
  struct Case {
    std::string wire;
    std::vector<std::vector<std::string>> commands;
  } cases[] = {
      {"*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n", {{"ECHO", "hi"}}},
      {"PING\r\n", {{"PING"}}},
      {"PING\n", {{"PING"}}},
      {"\r\n\r\nECHO  a   b\r\n", {{"ECHO", "a", "b"}}},
      {"SET \"a b\" 'c d' \"\\x41\\n\"\r\n", {{"SET", "a b", "c d", "A\n"}}},
      {"*0\r\n*-1\r\nPING\r\n", {{"PING"}}},
      {"*1\r\n$4\r\nPING\r\nPING x\r\n*1\r\n$4\r\nQUIT\r\n",
       {{"PING"}, {"PING", "x"}, {"QUIT"}}},
  };
  for (const Case& c : cases) {
    RespParser parser(RespParser::Mode::kRequest);
    parser.Feed(c.wire);
    std::vector<std::vector<std::string>> got;
    std::vector<std::string> args;
    for (size_t i = 0; i < 10; ++i) {
      Result<bool> r = parser.NextCommand(&args);
      ASSERT_TRUE(r.ok()) << c.wire << ": " << r.status().ToString();
      if (!*r) break;
      got.push_back(args);
    }
    EXPECT_EQ(got, c.commands) << c.wire;
  }
}

// The commands a request stream fed in `pieces` gives, through NextCommand
// or Next, then "error: <message>" if it fails.
std::vector<std::vector<std::string>> CommandsFed(const std::vector<std::string_view>& pieces,
                                                  RespLimits limits, bool use_next_command) {
  RespParser parser(RespParser::Mode::kRequest, limits);
  std::vector<std::vector<std::string>> got;
  std::vector<std::string> args{"stale"};
  for (std::string_view piece : pieces) {
    parser.Feed(piece);
    for (;;) {
      Result<bool> r = false;
      if (use_next_command) {
        r = parser.NextCommand(&args);
      } else {
        RespValue v;
        r = parser.Next(&v);
        args.clear();
        for (const RespValue& e : v.elements) args.push_back(e.str);
      }
      if (!r.ok()) {
        got.push_back({"error: " + r.status().message()});
        return got;
      }
      if (!*r) break;
      got.push_back(args);
    }
  }
  return got;
}

// The same for a stream fed in two pieces, split at `split`.
std::vector<std::vector<std::string>> Commands(std::string_view wire, size_t split,
                                               RespLimits limits, bool use_next_command) {
  return CommandsFed({wire.substr(0, split), wire.substr(split)}, limits, use_next_command);
}

TEST(RespParserTest, WholeRequestFastPathAgreesWithGeneralPath) {
  RespLimits small;
  small.max_bulk_len = 8;
  small.max_array_len = 3;
  small.max_frame_bytes = 40;
  const std::string streams[] = {
      "*3\r\n$6\r\nBF.ADD\r\n$1\r\nk\r\n$5\r\nitem1\r\n*1\r\n$4\r\nPING\r\n",
      "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*2\r\n$4\r\nECHO\r\n$5\r\na\r\nbc\r\n",
      "*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\nPING\r\n*1\r\n$4\r\nQUIT\r\n",
      "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n",  // over max_array_len
      "*1\r\n$9\r\n123456789\r\n",                           // over max_bulk_len
      "*3\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n",  // frame
      "*1\r\n$3\r\nabcXY",                      // body not terminated by CRLF
      "*1\r\n$-1\r\n",                          // null bulk in a request
      "*1\r\n$+3\r\nabc\r\n",                   // signed length
      "*1\r\n$0000000000000000003\r\nabc\r\n",  // 19 digits
      "*1\r\n:1\r\n",                           // not a bulk string
      "*2\r\n$1\r\na\r\n",                      // truncated
      "*01\r\n$01\r\na\r\n",                    // leading zeros are fine
      "*1\r\n$1\na\r\n",                        // header without CR
  };
  for (const std::string& wire : streams) {
    for (size_t split = 0; split <= wire.size(); ++split) {
      EXPECT_EQ(Commands(wire, split, small, true), Commands(wire, split, small, false))
          << wire << " split at " << split;
    }
  }
}

// A long request arriving in pieces is built as strings, not RespValues
// (the general path); Next and NextCommand give the same arguments.
TEST(RespParserTest, LongRequestInPiecesKeepsEveryArgument) {
  std::vector<std::string> want{"FRONTIER.ADD"};
  for (int i = 0; i < 3000; ++i) {
    want.push_back("http://h" + std::to_string(i % 7) + ".test/" + std::string(i % 50, 'x'));
  }
  const std::string wire = EncodeCommand(want) + "PING a\r\n" + EncodeCommand({"ECHO", ""});
  std::vector<std::string_view> pieces;
  for (size_t at = 0; at < wire.size(); at += 4093) {
    pieces.push_back(std::string_view(wire).substr(at, 4093));
  }
  const std::vector<std::vector<std::string>> expected{want, {"PING", "a"}, {"ECHO", ""}};
  EXPECT_EQ(CommandsFed(pieces, RespLimits{}, true), expected);
  EXPECT_EQ(CommandsFed(pieces, RespLimits{}, false), expected);
}

// The argument vector of a request fed in 4 KiB reads.
std::vector<std::string> RequestFedInReads(const std::vector<std::string>& request) {
  const std::string wire = EncodeCommand(request);
  RespParser parser(RespParser::Mode::kRequest);
  std::vector<std::string> args;
  for (size_t at = 0; at < wire.size(); at += 4096) {
    parser.Feed(std::string_view(wire).substr(at, 4096));
    if (*parser.NextCommand(&args)) break;
  }
  return args;
}

// A long request's declared count is reserved once it has sent 4 bytes per
// argument (so the vector is not moved at each doubling), and not before:
// 100,000 empty arguments (6 bytes each) never get there.
TEST(RespParserTest, LongRequestReservesItsCountOnceItsBytesAreIn) {
  std::vector<std::string> urls{"BF.MADD", "f"};
  for (int i = 0; i < 99998; ++i) urls.push_back("http://h.test/p" + std::to_string(i));
  std::vector<std::string> args = RequestFedInReads(urls);
  EXPECT_EQ(args, urls);
  EXPECT_EQ(args.capacity(), urls.size());
  std::vector<std::string> empty(100000, "");
  empty[0] = "BF.MADD";
  args = RequestFedInReads(empty);
  EXPECT_EQ(args, empty);
  EXPECT_GT(args.capacity(), empty.size()) << "grown, not reserved";
}

TEST(RespParserTest, NextCommandReusesAndResizesArgs) {
  RespParser parser(RespParser::Mode::kRequest);
  parser.Feed("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*1\r\n$4\r\nPING\r\n");
  std::vector<std::string> args = {"stale", "x", "y", "z"};
  ASSERT_TRUE(*parser.NextCommand(&args));
  EXPECT_EQ(args, (std::vector<std::string>{"SET", "k", "v"}));
  ASSERT_TRUE(*parser.NextCommand(&args));
  EXPECT_EQ(args, (std::vector<std::string>{"PING"}));
  EXPECT_FALSE(*parser.NextCommand(&args));
  EXPECT_TRUE(args.empty());
}

TEST(RespParserTest, MalformedFramesAreErrors) {
  RespLimits small;
  small.max_bulk_len = 16;
  small.max_array_len = 4;
  small.max_inline_len = 32;
  small.max_nesting = 2;
  struct Case {
    RespParser::Mode mode;
    std::string wire;
    std::string message_part;
  } cases[] = {
      {RespParser::Mode::kReply, "?x\r\n", "unknown type byte"},
      {RespParser::Mode::kReply, ":12a\r\n", "invalid integer"},
      {RespParser::Mode::kReply, ":99999999999999999999\r\n", "invalid integer"},
      {RespParser::Mode::kReply, "$-2\r\n", "invalid bulk length"},
      {RespParser::Mode::kReply, "$abc\r\n", "invalid bulk length"},
      {RespParser::Mode::kReply, "$\r\n", "invalid bulk length"},
      {RespParser::Mode::kReply, "$17\r\n", "invalid bulk length"},
      {RespParser::Mode::kReply, "$4611686018427387904\r\n", "invalid bulk length"},
      {RespParser::Mode::kReply, "$3\r\nfooXY", "bulk string not terminated by CRLF"},
      {RespParser::Mode::kReply, "*5\r\n", "invalid multibulk length"},
      {RespParser::Mode::kReply, "%3\r\n", "invalid multibulk length"},
      {RespParser::Mode::kReply, "*-5\r\n", "invalid multibulk length"},
      {RespParser::Mode::kReply, "*1\r\n*1\r\n*1\r\n:1\r\n", "too deeply nested"},
      {RespParser::Mode::kReply, "+" + std::string(40, 'a'), "too big header line"},
      {RespParser::Mode::kReply, "#x\r\n", "invalid boolean"},
      {RespParser::Mode::kReply, ",1.5x\r\n", "invalid double"},
      {RespParser::Mode::kReply, "=2\r\nab\r\n", "invalid verbatim"},
      {RespParser::Mode::kReply, "\r\n", "empty header line"},
      {RespParser::Mode::kRequest, "*1\r\n:1\r\n", "expected '$', got ':'"},
      {RespParser::Mode::kRequest, "*1\r\n$-1\r\n", "invalid bulk length"},
      {RespParser::Mode::kRequest, "*1\r\n\x01\xff\r\n", "expected '$', got '\\x01'"},
      {RespParser::Mode::kRequest, std::string(40, 'x'), "too big inline request"},
      {RespParser::Mode::kRequest, "SET \"abc\r\n", "unbalanced quotes"},
  };
  for (const Case& c : cases) {
    auto all = ParseAll(c.mode, c.wire, small);
    ASSERT_FALSE(all.ok()) << "accepted: " << c.wire;
    EXPECT_EQ(all.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(all.status().message().find("Protocol error: " + c.message_part),
              std::string::npos)
        << c.wire << " -> " << all.status().message();
  }
}

TEST(RespParserTest, ErrorIsSticky) {
  RespParser parser(RespParser::Mode::kReply);
  parser.Feed("?\r\n+OK\r\n");
  RespValue v;
  EXPECT_FALSE(parser.Next(&v).ok());
  parser.Feed("+OK\r\n");
  EXPECT_FALSE(parser.Next(&v).ok());
}

TEST(RespParserTest, HugeArrayHeaderWaitsWithoutAllocating) {
  RespParser parser(RespParser::Mode::kRequest);
  parser.Feed("*1000000\r\n$4\r\nPING\r\n");
  std::vector<std::string> args;
  Result<bool> got = parser.NextCommand(&args);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(*got);
  EXPECT_TRUE(parser.in_progress());
  // Everything fed so far is consumed into the partial value, which holds
  // one element, not a million reserved slots.
  EXPECT_EQ(parser.buffered_bytes(), 0u);
}

TEST(RespParserTest, FrameByteLimit) {
  RespLimits limits;
  limits.max_frame_bytes = 64;
  std::string wire = "*10\r\n";
  for (int i = 0; i < 10; ++i) wire += "$10\r\n0123456789\r\n";
  auto all = ParseAll(RespParser::Mode::kRequest, wire, limits);
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("frame too large"), std::string::npos);
}

TEST(RespWriterTest, Resp2AndResp3Encodings) {
  struct Case {
    const char* name;
    void (*write)(RespWriter&);
    const char* resp2;
    const char* resp3;
  } cases[] = {
      {"simple", [](RespWriter& w) { w.SimpleString("O\r\nK"); }, "+O  K\r\n",
       "+O  K\r\n"},
      {"error", [](RespWriter& w) { w.Error("ERR x"); }, "-ERR x\r\n", "-ERR x\r\n"},
      {"integer", [](RespWriter& w) { w.Integer(-7); }, ":-7\r\n", ":-7\r\n"},
      {"bulk", [](RespWriter& w) { w.Bulk("ab"); }, "$2\r\nab\r\n", "$2\r\nab\r\n"},
      {"null", [](RespWriter& w) { w.Null(); }, "$-1\r\n", "_\r\n"},
      {"nullarray", [](RespWriter& w) { w.NullArray(); }, "*-1\r\n", "_\r\n"},
      {"map", [](RespWriter& w) { w.MapHeader(2); }, "*4\r\n", "%2\r\n"},
      {"set", [](RespWriter& w) { w.SetHeader(1); }, "*1\r\n", "~1\r\n"},
      {"double", [](RespWriter& w) { w.Double(1.5); }, "$3\r\n1.5\r\n", ",1.5\r\n"},
      {"bool", [](RespWriter& w) { w.Bool(true); }, ":1\r\n", "#t\r\n"},
      {"verbatim", [](RespWriter& w) { w.Verbatim("txt", "hi"); }, "$2\r\nhi\r\n",
       "=6\r\ntxt:hi\r\n"},
      {"bignum", [](RespWriter& w) { w.BigNumber("123"); }, "$3\r\n123\r\n", "(123\r\n"},
  };
  for (const Case& c : cases) {
    std::string out2, out3;
    RespWriter w2(&out2, 2), w3(&out3, 3);
    c.write(w2);
    c.write(w3);
    EXPECT_EQ(out2, c.resp2) << c.name;
    EXPECT_EQ(out3, c.resp3) << c.name;
  }
}

TEST(RespWriterTest, ValueRoundTripsThroughParser) {
  const std::string wire =
      "*4\r\n%1\r\n+k\r\n,2.5\r\n~2\r\n#f\r\n_\r\n=7\r\nmkd:abc\r\n(-99\r\n";
  RespValue original = Parse1(wire);
  std::string out;
  RespWriter writer(&out, 3);
  writer.Value(original);
  EXPECT_EQ(out, wire);
  EXPECT_EQ(Parse1(out), original);
}

TEST(RespWriterTest, ZeroOneArrayMatchesIntegersAfterExistingOutput) {
  const std::vector<uint8_t> values = {1, 0, 0, 7, 1};
  std::string fast = "+x\r\n", slow = fast;
  RespWriter(&fast, 3).ZeroOneArray(values);
  RespWriter one_by_one(&slow, 3);
  one_by_one.ArrayHeader(values.size());
  for (uint8_t v : values) one_by_one.Integer(v != 0);
  EXPECT_EQ(fast, slow);
  EXPECT_EQ(fast, "+x\r\n*5\r\n:1\r\n:0\r\n:0\r\n:1\r\n:1\r\n");
  std::string empty;
  RespWriter(&empty, 2).ZeroOneArray({});
  EXPECT_EQ(empty, "*0\r\n");
}

TEST(RespWriterTest, EncodeCommandParsesBack) {
  std::vector<std::string> args = {"SET", std::string("k\0\r\n", 4), ""};
  RespParser parser(RespParser::Mode::kRequest);
  parser.Feed(EncodeCommand(args));
  std::vector<std::string> got;
  ASSERT_TRUE(*parser.NextCommand(&got));
  EXPECT_EQ(got, args);
}

}  // namespace
}  // namespace crawlfront
