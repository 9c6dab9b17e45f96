// libFuzzer target: FromHeader + WriteChunk on arbitrary bytes must return a
// Status, never crash. Input: a header (kHeaderBytes) then chunk records of
// [8-byte offset][1-byte length][data].
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "crawlfront/common/bloom.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using crawlfront::BlockedBloom;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t header_len = std::min(in.size(), BlockedBloom::kHeaderBytes);
  // A 1 MiB cap keeps the fuzzer's memory small; the checks are the same.
  auto bloom = BlockedBloom::FromHeader(in.substr(0, header_len), {}, 1 << 20);
  if (!bloom.ok()) return 0;
  in.remove_prefix(header_len);
  for (int round = 0; round < 64 && in.size() >= 9; ++round) {
    uint64_t offset = 0;
    std::memcpy(&offset, in.data(), 8);
    const size_t len = std::min<size_t>(static_cast<uint8_t>(in[8]), in.size() - 9);
    bloom->WriteChunk(offset, in.substr(9, len)).IgnoreError();
    in.remove_prefix(9 + len);
  }
  for (uint64_t h = 0; h < 16; ++h) bloom->Add(h * 0x9e3779b97f4a7c15ULL);
  (void)bloom->EstimatedFalsePositiveRate();
  return 0;
}
