// RocksDB records of user filters: keys, snapshots and recovery.

#include "bf_store.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "crawlfront/common/huge_pages.h"

namespace crawlfront {
namespace {

std::string NamePrefix(char tag, std::string_view name) {
  std::string k(1, tag);
  AppendBe32(&k, static_cast<uint32_t>(name.size()));
  k.append(name);
  return k;
}

// memcmp against itself shifted by one: word-wide, where a byte loop over a
// large filter's chunks took tens of ms.
bool AllZero(std::string_view bytes) {
  return bytes.empty() ||
         (bytes[0] == 0 && std::memcmp(bytes.data(), bytes.data() + 1, bytes.size() - 1) == 0);
}

// Writes the stored chunks of every sub-filter into the (all-zero) chain.
Status LoadBits(Store& store, std::string_view name, BfChain& chain) {
  std::string prefix = BfBitsPrefix(name);
  std::string upper = PrefixSuccessor(prefix);
  std::unique_ptr<rocksdb::Iterator> it(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.cf(Cf::kUserBloom)));
  for (it->Seek(prefix); it->Valid() && it->key().compare(upper) < 0; it->Next()) {
    if (it->key().size() != prefix.size() + 8) {
      return Status::Corruption("user bloom '" + std::string(name) + "': bad chunk key");
    }
    const char* p = it->key().data() + prefix.size();
    uint32_t link = ReadBe32(p);
    uint64_t offset = uint64_t{ReadBe32(p + 4)} * kBfStoreChunkBytes;
    if (link >= chain.link_count() || offset >= chain.link_filter(link).bytes()) {
      return Status::Corruption("user bloom '" + std::string(name) +
                                "': chunk out of range");
    }
    std::string_view data(it->value().data(), it->value().size());
    CRAWLFRONT_RETURN_IF_ERROR(chain.link_filter(link).WriteChunk(offset, data));
  }
  CRAWLFRONT_RETURN_IF_ERROR(FromRocks(it->status()));
  for (size_t i = 0; i < chain.link_count(); ++i) chain.link_filter(i).RecountBits();
  return Status::Ok();
}

// Replays log records keyed at or above f.snap_counter, in order.
Status ReplayLog(Store& store, UserBloomRegistry::Filter& f) {
  std::string prefix = BfLogPrefix(f.name);
  std::string upper = PrefixSuccessor(prefix);
  std::unique_ptr<rocksdb::Iterator> it(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.cf(Cf::kUserBloom)));
  f.counter = f.snap_counter;
  for (it->Seek(BfLogKey(f.name, f.snap_counter));
       it->Valid() && it->key().compare(upper) < 0; it->Next()) {
    rocksdb::Slice v = it->value();
    if (it->key().size() != prefix.size() + 8 || v.empty() || v.size() % 8 != 0) {
      return Status::Corruption("user bloom '" + f.name + "': bad log entry");
    }
    for (size_t at = 0; at < v.size(); at += 8) {
      uint64_t hash = ReadBe64(v.data() + at);
      BfStep step = f.chain.Add(hash);
      if (step == BfStep::kNeedLink) {
        CRAWLFRONT_RETURN_IF_ERROR(f.chain.AddLink());
        step = f.chain.Add(hash);
      }
      // An acknowledged add changed bits when it ran from the same state.
      if (step != BfStep::kAdded) f.force_snapshot = true;
    }
    f.counter = ReadBe64(it->key().data() + prefix.size()) + 1;
  }
  return FromRocks(it->status());
}

}  // namespace

UserBloomRegistry::Filter::Filter(std::string n, BfChain c)
    : name(std::move(n)), log_prefix(BfLogPrefix(name)), chain(std::move(c)) {
  Publish();
}

std::string BfMetaPrefix() { return "M"; }
std::string BfMetaKey(std::string_view name) { return "M" + std::string(name); }
std::string BfBitsPrefix(std::string_view name) { return NamePrefix('B', name); }
std::string BfLogPrefix(std::string_view name) { return NamePrefix('L', name); }

std::string BfBitsKey(std::string_view name, uint32_t link, uint32_t chunk) {
  std::string k = BfBitsPrefix(name);
  AppendBe32(&k, link);
  AppendBe32(&k, chunk);
  return k;
}

std::string BfLogKey(std::string_view name, uint64_t counter) {
  std::string k = BfLogPrefix(name);
  AppendBe64(&k, counter);
  return k;
}

std::string BfEncodeMeta(uint64_t snap_counter, std::string_view chain_header) {
  std::string v;
  AppendBe64(&v, snap_counter);
  v.append(chain_header);
  return v;
}

Status BfDecodeMeta(std::string_view value, uint64_t* snap_counter,
                    std::string_view* chain_header) {
  if (value.size() < 8) return Status::Corruption("user bloom meta truncated");
  *snap_counter = ReadBe64(value.data());
  *chain_header = value.substr(8);
  return Status::Ok();
}

Result<std::unique_ptr<UserBloomRegistry::Filter>> BfLoadFilter(Store& store,
                                                                std::string_view name,
                                                                std::string_view meta) {
  uint64_t snap_counter;
  std::string_view header;
  CRAWLFRONT_RETURN_IF_ERROR(BfDecodeMeta(meta, &snap_counter, &header));
  auto chain = BfChain::FromHeader(header, BlockedBloom::kDefaultMaxBytes);
  if (!chain.ok()) {
    return Status::Corruption("user bloom '" + std::string(name) +
                              "': bad header: " + chain.status().message());
  }
  auto f = std::make_unique<UserBloomRegistry::Filter>(std::string(name),
                                                       std::move(chain).value());
  f->snap_counter = snap_counter;
  CRAWLFRONT_RETURN_IF_ERROR(LoadBits(store, name, f->chain));
  CRAWLFRONT_RETURN_IF_ERROR(ReplayLog(store, *f));
  f->Publish();  // replay may have added sub-filters
  return f;
}

BfSnapshotImage& BfSnapshotImage::operator=(BfSnapshotImage&& o) noexcept {
  if (this == &o) return *this;
  UnmapAligned(data, data_bytes);
  name = std::move(o.name);
  counter = o.counter;
  header = std::move(o.header);
  chunks = std::move(o.chunks);
  data = std::exchange(o.data, nullptr);
  data_bytes = std::exchange(o.data_bytes, 0);
  return *this;
}

BfSnapshotImage::~BfSnapshotImage() { UnmapAligned(data, data_bytes); }

uint64_t BfSnapshotImage::bytes() const {
  uint64_t n = header.size() + 64;
  for (const Chunk& c : chunks) n += c.key.size() + c.bits.size() + 16;
  return n;
}

namespace {

void MapImage(BfSnapshotImage& image, uint64_t bytes) {
  image.data_bytes = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  image.data = static_cast<char*>(MapAligned(image.data_bytes, /*huge=*/true));
  if (image.data == nullptr) {
    image.data_bytes = 0;
    throw std::bad_alloc();
  }
}

}  // namespace

BfSnapshotImage BfPrepareSnapshot(uint64_t bytes) {
  BfSnapshotImage image;
  if (bytes == 0) return image;
  MapImage(image, bytes);
  Prefault(image.data, image.data_bytes);
  return image;
}

BfSnapshotImage BfCaptureSnapshot(const UserBloomRegistry::Filter& f,
                                  BfSnapshotImage prepared) {
  BfSnapshotImage image = std::move(prepared);
  image.name = f.name;
  image.counter = f.counter;
  image.header = f.chain.EncodeHeader();
  uint64_t total = 0;
  for (size_t link = 0; link < f.chain.link_count(); ++link) {
    total += f.chain.link(link).filter->bytes();
  }
  if (total == 0) return image;
  if (image.data_bytes < total) {  // grew since it was prepared
    UnmapAligned(std::exchange(image.data, nullptr), std::exchange(image.data_bytes, 0));
    MapImage(image, total);
  }
  char* next = image.data;
  for (size_t link = 0; link < f.chain.link_count(); ++link) {
    const BlockedBloom& filter = *f.chain.link(link).filter;
    uint64_t offset = 0;
    for (uint32_t i = 0; offset < filter.bytes(); ++i, offset += kBfStoreChunkBytes) {
      const uint64_t end = std::min(filter.bytes(), offset + kBfStoreChunkBytes);
      filter.CopyBytes(offset, end, next);
      const std::string_view bits(next, end - offset);
      if (AllZero(bits)) continue;  // the next chunk overwrites it
      image.chunks.push_back({BfBitsKey(f.name, static_cast<uint32_t>(link), i), bits});
      next += bits.size();
    }
  }
  return image;
}

BfSnapshotImage BfCaptureNew(const UserBloomRegistry::Filter& f) {
  BfSnapshotImage image;
  image.name = f.name;
  image.counter = f.counter;
  image.header = f.chain.EncodeHeader();
  return image;
}

void BfAppendSnapshot(Store& store, const BfSnapshotImage& image, rocksdb::WriteBatch* batch) {
  auto* cf = store.cf(Cf::kUserBloom);
  std::string bits = BfBitsPrefix(image.name);
  batch->DeleteRange(cf, bits, PrefixSuccessor(bits));
  for (const auto& c : image.chunks) batch->Put(cf, c.key, c.bits);
  batch->Put(cf, BfMetaKey(image.name), BfEncodeMeta(image.counter, image.header));
  batch->DeleteRange(cf, BfLogKey(image.name, 0), BfLogKey(image.name, image.counter));
}

}  // namespace crawlfront
