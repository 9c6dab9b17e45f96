// libFuzzer target: RespParser over arbitrary bytes in both modes, with
// small limits so every limit path is reachable. Re-encodes what parses, and
// checks that the fast paths agree with the general one: NextCommand's whole
// request with Next(), and a whole buffered reply with a byte-at-a-time feed
// (which never buffers a whole aggregate).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "crawlfront/common/resp.h"

namespace {

using crawlfront::RespParser;

// Commands (then the error text, if any) from `input` fed in two pieces.
std::vector<std::vector<std::string>> Commands(std::string_view input,
                                               crawlfront::RespLimits limits,
                                               bool use_next_command) {
  RespParser parser(RespParser::Mode::kRequest, limits);
  std::vector<std::vector<std::string>> got;
  std::vector<std::string> args;
  size_t split = input.size() / 2;
  for (std::string_view piece : {input.substr(0, split), input.substr(split)}) {
    parser.Feed(piece);
    for (size_t i = 0; i <= input.size(); ++i) {
      crawlfront::Result<bool> r = false;
      if (use_next_command) {
        r = parser.NextCommand(&args);
      } else {
        crawlfront::RespValue v;
        r = parser.Next(&v);
        args.clear();
        for (const auto& e : v.elements) args.push_back(e.str);
      }
      if (!r.ok()) {
        got.push_back({r.status().message()});
        return got;
      }
      if (!*r) break;
      got.push_back(args);
    }
  }
  return got;
}

// Replies (then the error text, if any) from `input`, fed whole or a byte at
// a time.
std::vector<std::string> Replies(std::string_view input, crawlfront::RespLimits limits,
                                 bool byte_at_a_time) {
  RespParser parser(RespParser::Mode::kReply, limits);
  std::vector<std::string> got;
  size_t step = byte_at_a_time ? 1 : input.size();
  for (size_t at = 0; at < input.size(); at += step) {
    parser.Feed(input.substr(at, step));
    for (size_t i = 0; i <= input.size(); ++i) {
      crawlfront::RespValue v;
      crawlfront::Result<bool> r = parser.Next(&v);
      if (!r.ok()) {
        got.push_back(r.status().message());
        return got;
      }
      if (!*r) break;
      got.push_back(v.ToDebugString());
    }
  }
  return got;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  crawlfront::RespLimits limits;
  limits.max_bulk_len = 1024;
  limits.max_array_len = 64;
  limits.max_inline_len = 256;
  limits.max_nesting = 4;
  limits.max_frame_bytes = 4096;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (RespParser::Mode mode : {RespParser::Mode::kReply, RespParser::Mode::kRequest}) {
    RespParser parser(mode, limits);
    // Feed in two pieces so the incremental path is exercised too.
    size_t split = size / 2;
    parser.Feed(input.substr(0, split));
    crawlfront::RespValue value;
    for (size_t i = 0; i <= size; ++i) {
      auto got = parser.Next(&value);
      if (!got.ok() || !*got) break;
    }
    parser.Feed(input.substr(split));
    for (size_t i = 0; i <= size; ++i) {
      auto got = parser.Next(&value);
      if (!got.ok() || !*got) break;
      std::string out;
      crawlfront::RespWriter writer(&out, 3);
      writer.Value(value);
    }
  }
  if (Commands(input, limits, true) != Commands(input, limits, false)) std::abort();
  if (Replies(input, limits, true) != Replies(input, limits, false)) std::abort();
  return 0;
}
