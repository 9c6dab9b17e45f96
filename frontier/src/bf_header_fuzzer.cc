// Fuzzes the BF.LOADCHUNK path: a chain header from untrusted bytes, then a
// chunk written into it. Must never crash, whatever the input.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "bf_chain.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using crawlfront::BfChain;
  if (size < 2) return 0;
  // Two bytes (little-endian): the header's length; then header, then chunk.
  size_t split = std::min<size_t>(size - 2, data[0] | (size_t{data[1]} << 8));
  const char* p = reinterpret_cast<const char*>(data) + 2;
  std::string_view header(p, split);
  std::string_view chunk(p + split, size - 2 - split);
  auto chain = BfChain::FromHeader(header, uint64_t{16} << 20);
  if (!chain.ok()) return 0;
  // What parsed once must parse again after re-encoding (bit counts may
  // differ: the loaded chain is still all zero).
  if (!BfChain::FromHeader(chain->EncodeHeader(), uint64_t{16} << 20).ok()) std::abort();
  chain->WriteRange(0, chunk).IgnoreError();
  chain->Contains(42);
  return 0;
}
