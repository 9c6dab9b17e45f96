#pragma once
// Large zeroed arrays on 2 MiB boundaries with transparent huge pages, for
// structures read at random (Bloom filters, the seen-set's cache): one TLB
// entry then covers 2 MiB instead of 4 KiB (docs/bloom.md measures it).

#include <cstddef>

namespace crawlfront {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Maps `bytes` of zeroed memory (faulted in lazily) starting on a 2 MiB
// boundary, with huge pages requested, or refused if !huge (madvise). Null
// if the mapping fails.
void* MapAligned(size_t bytes, bool huge);
// Unmaps what MapAligned returned; `bytes` as given to it.
void UnmapAligned(void* p, size_t bytes);
// Faults in every page of [p, p + bytes) writable now, so that a later copy
// into it (under a lock) does not wait for the kernel.
void Prefault(void* p, size_t bytes);

}  // namespace crawlfront
