#include "memtable_arena.h"

#include <cstdint>
#include <new>

#include "crawlfront/common/huge_pages.h"

namespace crawlfront {
namespace {

size_t RoundUpToHugePage(size_t n) {
  return (n + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
}

}  // namespace

HugePageArena::~HugePageArena() {
  for (const Chunk& c : chunks_) UnmapAligned(c.data, c.size);
}

char* HugePageArena::MapChunk(size_t size) {
  void* p = MapAligned(size, /*huge=*/true);
  if (p == nullptr) throw std::bad_alloc();
  chunks_.push_back({p, size});
  return static_cast<char*>(p);
}

char* HugePageArena::Allocate(size_t bytes, size_t align) {
  // Large requests get a chunk of their own rather than wasting the rest of
  // the current one.
  if (bytes > kHugePageBytes / 4) {
    Count(bytes);
    return MapChunk(RoundUpToHugePage(bytes));
  }
  const size_t pad = (align - reinterpret_cast<uintptr_t>(next_) % align) % align;
  if (next_ == nullptr || pad + bytes > left_) {
    next_ = MapChunk(kHugePageBytes);  // chunk starts are 2 MiB aligned
    left_ = kHugePageBytes;
    return Allocate(bytes, align);
  }
  char* p = next_ + pad;
  next_ = p + bytes;
  left_ -= pad + bytes;
  Count(pad + bytes);
  return p;
}

void* AllocHugeArray(size_t bytes) {
  void* p = MapAligned(RoundUpToHugePage(bytes), /*huge=*/true);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void FreeHugeArray(void* p, size_t bytes) { UnmapAligned(p, RoundUpToHugePage(bytes)); }

}  // namespace crawlfront
