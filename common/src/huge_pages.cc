#include "crawlfront/common/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace crawlfront {

void* MapAligned(size_t bytes, bool huge) {
  // Over-map by a huge page so the array can start on a 2 MiB boundary, then
  // trim both ends.
  const size_t len = bytes + kHugePageBytes;
  void* raw = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t tail = aligned + bytes;
  if (start + len > tail) munmap(reinterpret_cast<void*>(tail), start + len - tail);
  madvise(reinterpret_cast<void*>(aligned), bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void UnmapAligned(void* p, size_t bytes) {
  if (p != nullptr) munmap(p, bytes);
}

void Prefault(void* p, size_t bytes) {
  if (p == nullptr || bytes == 0) return;
#ifdef MADV_POPULATE_WRITE
  if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  // Kernels before 5.14: one write per 4 KiB page.
  auto* bytes_p = static_cast<volatile char*>(p);
  for (size_t i = 0; i < bytes; i += 4096) bytes_p[i] = 0;
}

}  // namespace crawlfront
