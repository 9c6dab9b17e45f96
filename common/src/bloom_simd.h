#pragma once
// Vector paths of BlockedBloom's probe and add (x86-64 only). They set and
// test exactly the bits the scalar code does, so filters and snapshots are
// the same whichever path made them. Chosen at run time by CPU support.

#include <cstdint>

namespace crawlfront::bloom_simd {

// True when this build and CPU can run ProbeAvx2 / AddAvx512.
bool HaveAvx2();
bool HaveAvx512();

// All k probe bits of hash h (the hash's high 32 bits) set in the 64-byte
// block? Branch-free per 8 probes: no mispredicted early exit stalls the
// next keys' cache misses (docs/bloom.md).
bool ProbeAvx2(const uint64_t* block, uint32_t h, uint32_t k);
// Sets the k probe bits with one 512-bit load and at most one store (none
// if nothing changes); returns the number of bits it turned on. One store
// per key instead of eight keeps the store queue from filling while misses
// are pending. Single writer only.
uint64_t AddAvx512(uint64_t* block, uint32_t h, uint32_t k);

}  // namespace crawlfront::bloom_simd
