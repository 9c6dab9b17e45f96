// CRC32C for RocksDB's write-ahead log. Debian's librocksdb is built
// without SSE4.2 ("Fast CRC32 supported: Not supported on x86" in its LOG),
// so every WAL record was checksummed a byte-table at a time: 15% of the
// writer thread when adding URLs. RocksDB calls crc32c::Extend through the
// PLT, so this definition in our binary takes its place (like a program's
// own malloc replacing libc's). Same polynomial and conventions; the test
// compares it with the library's own on random input.
#include "wal_crc32c.h"

#include <dlfcn.h>
#include <nmmintrin.h>

#include <cstdint>
#include <cstring>

namespace crawlfront {
namespace {

__attribute__((target("sse4.2"))) uint32_t HardwareExtend(uint32_t crc, const char* p,
                                                         size_t n) {
  uint64_t l = crc ^ 0xffffffffu;
  for (; n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0; --n) {
    l = _mm_crc32_u8(static_cast<uint32_t>(l), static_cast<uint8_t>(*p++));
  }
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    l = _mm_crc32_u64(l, word);
  }
  for (; n > 0; --n) l = _mm_crc32_u8(static_cast<uint32_t>(l), static_cast<uint8_t>(*p++));
  return static_cast<uint32_t>(l) ^ 0xffffffffu;
}

// A function-local static: RocksDB may checksum before this file's statics
// are initialized. Without SSE4.2, RocksDB's own (always there: librocksdb
// is linked, and WalCrc32cTest checks dlsym finds it).
Crc32cExtendFn Chosen() {
  static const Crc32cExtendFn chosen = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? &HardwareExtend : LibraryCrc32cExtend();
  }();
  return chosen;
}

thread_local uint64_t calls_here = 0;

}  // namespace

uint64_t WalCrc32cCallsOnThisThread() { return calls_here; }

Crc32cExtendFn LibraryCrc32cExtend() {
  return reinterpret_cast<Crc32cExtendFn>(
      dlsym(RTLD_NEXT, "_ZN7rocksdb6crc32c6ExtendEjPKcm"));
}

const char* WalCrc32cImplementation() {
  return Chosen() == &HardwareExtend ? "SSE4.2" : "RocksDB's own";
}

}  // namespace crawlfront

namespace rocksdb::crc32c {

uint32_t Extend(uint32_t crc, const char* buf, size_t size) {
  ++crawlfront::calls_here;
  return crawlfront::Chosen()(crc, buf, size);
}

}  // namespace rocksdb::crc32c
