#pragma once
// RocksDB's crc32c::Extend, replaced with the SSE4.2 instruction when the
// CPU has it (wal_crc32c.cc says why).

#include <cstddef>
#include <cstdint>

namespace crawlfront {

// "SSE4.2" or "RocksDB's own": what checksums the WAL's records. Store::Open
// logs it (and, calling it, links the replacement into every binary that
// opens a store).
const char* WalCrc32cImplementation();

// How often this thread has called the replacement: a write that reaches
// RocksDB's WAL on this thread calls it (its test checks that RocksDB does
// not bind its own).
uint64_t WalCrc32cCallsOnThisThread();

// The library's own crc32c::Extend, for the test that compares the two;
// nullptr if it cannot be found.
using Crc32cExtendFn = uint32_t (*)(uint32_t crc, const char* data, size_t n);
Crc32cExtendFn LibraryCrc32cExtend();

}  // namespace crawlfront
