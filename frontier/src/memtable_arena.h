// Memory for a memtable rep's entries and index on transparent huge pages.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

namespace crawlfront {

// A bump allocator over 2 MiB chunks with huge pages requested. A flush reads
// a memtable's entries in key order, which is random in memory; on RocksDB's
// arena (4 KiB pages) nearly every such read missed the TLB. Allocate is for
// one thread at a time (the store writes memtables without concurrency);
// bytes() may be read from any thread.
class HugePageArena {
 public:
  HugePageArena() = default;
  HugePageArena(const HugePageArena&) = delete;
  HugePageArena& operator=(const HugePageArena&) = delete;
  ~HugePageArena();

  // `bytes` aligned to `align` (a power of two up to 4096). Throws
  // std::bad_alloc when the system has no memory left.
  char* Allocate(size_t bytes, size_t align);
  // Bytes handed out, padding included; what is mapped is at most one chunk
  // more. Counting use rather than mappings keeps a memtable smaller than a
  // chunk from looking full at its first insert.
  size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  struct Chunk {
    void* data;
    size_t size;
  };
  char* MapChunk(size_t size);
  // One writer: a plain store, not a locked add per memtable insert.
  void Count(size_t n) {
    bytes_.store(bytes_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  std::vector<Chunk> chunks_;
  char* next_ = nullptr;
  size_t left_ = 0;
  std::atomic<size_t> bytes_{0};
};

// `bytes` of zeroed memory on huge pages, for an index read at random;
// released by FreeHugeArray with the same size. Throws std::bad_alloc.
void* AllocHugeArray(size_t bytes);
void FreeHugeArray(void* p, size_t bytes);

}  // namespace crawlfront
