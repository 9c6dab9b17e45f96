#pragma once
// Vector paths of BlockedBloom's probe and add (x86-64 only). They set and
// test exactly the bits the scalar code does, so filters and snapshots are
// the same whichever path made them. Chosen at run time by CPU support.

#include <cstddef>
#include <cstdint>

namespace crawlfront::bloom_simd {

// Prefetch distance of the batch loops: enough misses in flight to cover
// DRAM latency (about 100 ns) at a few ns per key, small enough for L1.
inline constexpr size_t kPrefetchAhead = 16;

// The block of `hash` among n (Lemire's multiply-shift range reduction:
// uniform in [0, n) without a division). The hash is rotated so the low 32
// bits choose the block; the high 32 bits pick the bit positions.
inline uint64_t BlockIndex(uint64_t hash, uint64_t n) {
  __extension__ using U128 = unsigned __int128;
  return static_cast<uint64_t>((U128{(hash << 32) | (hash >> 32)} * n) >> 64);
}

// True when this build and CPU can run ProbeAvx2 / AddAvx512.
bool HaveAvx2();
bool HaveAvx512();

// All k probe bits of hash h (the hash's high 32 bits) set in the 64-byte
// block? Branch-free per 8 probes: no mispredicted early exit stalls the
// next keys' cache misses (docs/bloom.md).
bool ProbeAvx2(const uint64_t* block, uint32_t h, uint32_t k);
// ProbeAvx2 for each of n hashes into a filter of num_blocks blocks at
// `words`: out[i] = 1 if all bits of hashes[i] are set, else 0.
void MayContainBatchAvx2(const uint64_t* words, uint64_t num_blocks, uint32_t k,
                         const uint64_t* hashes, size_t n, uint8_t* out);
// Sets the k probe bits with one 512-bit load and at most one store (none
// if nothing changes); returns the number of bits it turned on. One store
// per key instead of eight keeps the store queue from filling while misses
// are pending. Single writer only.
uint64_t AddAvx512(uint64_t* block, uint32_t h, uint32_t k);

}  // namespace crawlfront::bloom_simd
