#include "bloom_simd.h"

#include <algorithm>

#if defined(__x86_64__)
#if defined(__GNUC__) && !defined(__clang__)
// gcc 12's AVX-512 headers read _mm512_undefined values: false alarms.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace crawlfront::bloom_simd {

#if defined(__x86_64__)

namespace {
constexpr uint32_t kGolden = 0x9e3779b9;
constexpr uint32_t kGolden8 = 0xab25f4c1;  // kGolden^8 mod 2^32: next 8 probes
}  // namespace

bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}

bool HaveAvx512() {
  static const bool have =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
  return have;
}

// Lane i holds h * kGolden^i: the i-th probe of the scalar loop. Its top 9
// bits address the block's 512 bits; the top 4 pick a 32-bit word.
__attribute__((target("avx2"), always_inline)) inline bool Probe(const uint64_t* block,
                                                                uint32_t h, uint32_t k) {
  const __m256i powers = _mm256_setr_epi32(
      1, static_cast<int>(kGolden), static_cast<int>(0xe35e67b1),
      static_cast<int>(0x734297e9), static_cast<int>(0x35fbe861),
      static_cast<int>(0xdeb7c719), static_cast<int>(0x0448b211),
      static_cast<int>(0x3459b749));
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(block));
  const __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(block) + 1);
  int all = 1;
  for (uint32_t done = 0; done < k; done += 8, h *= kGolden8) {
    const __m256i hv = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(h)), powers);
    const __m256i word = _mm256_srli_epi32(hv, 28);
    // permutevar uses the word's low 3 bits; bit 3 chooses the upper half.
    const __m256 pick_hi = _mm256_castsi256_ps(_mm256_slli_epi32(word, 28));
    const __m256i value = _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lo, word)),
        _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi, word)), pick_hi));
    const __m256i shift = _mm256_and_si256(_mm256_srli_epi32(hv, 23), _mm256_set1_epi32(31));
    __m256i bits = _mm256_sllv_epi32(_mm256_set1_epi32(1), shift);
    if (k - done < 8) {
      const __m256i live =
          _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(k - done)), lanes);
      bits = _mm256_and_si256(bits, live);
    }
    // No early exit: a branch on the loaded bits would stall every later
    // lookup's load behind this one's cache miss whenever it mispredicts.
    all &= _mm256_testc_si256(value, bits);
  }
  return all != 0;
}

__attribute__((target("avx2"))) bool ProbeAvx2(const uint64_t* block, uint32_t h,
                                               uint32_t k) {
  return Probe(block, h, k);
}

// The whole batch in one vector-enabled loop: a call per key (ProbeAvx2 cannot
// inline into code built without AVX2) cost about as much as the probe.
__attribute__((target("avx2"))) void MayContainBatchAvx2(const uint64_t* words,
                                                         uint64_t num_blocks, uint32_t k,
                                                         const uint64_t* hashes, size_t n,
                                                         uint8_t* out) {
  auto block = [&](uint64_t hash) { return words + BlockIndex(hash, num_blocks) * 8; };  // 8 words a block
  for (size_t i = 0; i < std::min(n, kPrefetchAhead); ++i) {
    __builtin_prefetch(block(hashes[i]), 0, 3);
  }
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) __builtin_prefetch(block(hashes[i + kPrefetchAhead]), 0, 3);
    out[i] = Probe(block(hashes[i]), static_cast<uint32_t>(hashes[i] >> 32), k) ? 1 : 0;
  }
}

__attribute__((target("avx512f,avx512vpopcntdq"))) uint64_t AddAvx512(uint64_t* block,
                                                                      uint32_t h,
                                                                      uint32_t k) {
  // The mask is built in a register: a stack array read back as one wide
  // load would wait for the previous key's pending store to drain.
  __m512i mask = _mm512_setzero_si512();
  for (uint32_t i = 0; i < k; ++i, h *= kGolden) {
    const uint32_t bit = h >> 23;
    mask = _mm512_mask_or_epi64(mask, static_cast<__mmask8>(1u << (bit >> 6)), mask,
                                _mm512_set1_epi64(static_cast<long long>(1ull << (bit & 63))));
  }
  const __m512i old = _mm512_load_si512(block);
  const __m512i fresh = _mm512_andnot_si512(old, mask);
  const auto added = static_cast<uint64_t>(_mm512_reduce_add_epi64(_mm512_popcnt_epi64(fresh)));
  if (added != 0) _mm512_store_si512(block, _mm512_or_si512(old, mask));
  return added;
}

#else  // not x86-64: the scalar paths only

bool HaveAvx2() { return false; }
bool HaveAvx512() { return false; }
bool ProbeAvx2(const uint64_t*, uint32_t, uint32_t) { return false; }
void MayContainBatchAvx2(const uint64_t*, uint64_t, uint32_t, const uint64_t*, size_t,
                         uint8_t*) {}
uint64_t AddAvx512(uint64_t*, uint32_t, uint32_t) { return 0; }

#endif

}  // namespace crawlfront::bloom_simd
