#include "memtable_arena.h"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "crawlfront/common/huge_pages.h"

namespace crawlfront {
namespace {

size_t RoundUpToHugePage(size_t n) {
  return (n + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
}

// Chunks faulted in ahead by a background thread. The kernel zeroes a huge
// page at its first write, and in the add step's profile that was 5-6% of
// the io thread's time, inside RocksDB's memtable insert (docs/benchmarks.md,
// session 24). A few chunks wait ready; when none does, the writer maps one
// itself, as before.
class ChunkSupply {
 public:
  static constexpr size_t kReady = 2;  // 4 MiB held while idle

  // Never destroyed: its detached thread may run during static destruction.
  static ChunkSupply& Instance() {
    static ChunkSupply* supply = new ChunkSupply;
    return *supply;
  }

  // A faulted-in chunk of kHugePageBytes, or null.
  void* Take() {
    std::lock_guard lock(mu_);
    if (!started_) {
      started_ = true;
      std::thread([this] { Run(); }).detach();
    }
    void* p = nullptr;
    if (!ready_.empty()) {
      p = ready_.back();
      ready_.pop_back();
    }
    cv_.notify_one();
    return p;
  }

 private:
  void Run() {
    pthread_setname_np(pthread_self(), "crawlfront:mem");
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return ready_.size() < kReady; });
      lock.unlock();
      void* p = MapAligned(kHugePageBytes, /*huge=*/true);
      if (p != nullptr) Prefault(p, kHugePageBytes);
      lock.lock();
      if (p != nullptr) {
        ready_.push_back(p);
      } else {
        // Out of memory: the writer maps its own (and fails there, visibly).
        cv_.wait_for(lock, std::chrono::seconds(1));
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<void*> ready_;
  bool started_ = false;
};

}  // namespace

HugePageArena::~HugePageArena() {
  for (const Chunk& c : chunks_) UnmapAligned(c.data, c.size);
}

char* HugePageArena::MapChunk(size_t size) {
  void* p = size == kHugePageBytes ? ChunkSupply::Instance().Take() : nullptr;
  if (p == nullptr) p = MapAligned(size, /*huge=*/true);
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
