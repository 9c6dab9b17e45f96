// libFuzzer target: RespParser over arbitrary bytes in both modes, with
// small limits so every limit path is reachable. Re-encodes what parses.
#include <cstddef>
#include <cstdint>
#include <string>

#include "crawlfront/common/resp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using crawlfront::RespParser;
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
  return 0;
}
