#include "bf_chain.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace crawlfront {
namespace {

constexpr char kMagic[4] = {'C', 'F', 'S', 'B'};
constexpr uint8_t kVersion = 1;
constexpr size_t kFixedBytes = 4 + 1 + 1 + 4 + 8 + 8 + 8 + 4;
constexpr size_t kLinkFixedBytes = 8 + 8 + 8;
constexpr size_t kLinkBytes = kLinkFixedBytes + BlockedBloom::kHeaderBytes;
// The registry's per-filter mutex serializes every add, so sub-filters take
// plain stores instead of locked read-modify-writes.
constexpr BloomOptions kLinkOptions{.single_writer = true};

void AppendDouble(std::string* out, double v) {
  AppendBe64(out, std::bit_cast<uint64_t>(v));
}
double ReadDouble(const char* p) { return std::bit_cast<double>(ReadBe64(p)); }

bool ValidError(double e) { return e > 0 && e < 1; }

// The error rate of a chain's first sub-filter.
double FirstLinkError(const BfParams& params) {
  return params.nonscaling ? params.error_rate : params.error_rate * BfChain::kTightening;
}

// Saturates instead of wrapping, so an absurd capacity cannot pass a budget.
uint64_t GeometryBytes(uint64_t capacity, double error) {
  constexpr uint64_t kBlockBytes = BlockedBloom::kBlockBits / 8;
  BlockedBloom::Geometry g = BlockedBloom::ChooseGeometry(capacity, error);
  if (g.num_blocks > UINT64_MAX / kBlockBytes) return UINT64_MAX;
  return g.num_blocks * kBlockBytes;
}

Status ValidateParams(const BfParams& p) {
  if (!ValidError(p.error_rate))
    return Status::InvalidArgument("ERR (0 < error rate range < 1) ");
  if (p.capacity == 0)
    return Status::InvalidArgument("ERR (capacity should be larger than 0)");
  if (p.expansion == 0) {
    return Status::InvalidArgument("ERR expansion should be greater or equal to 1");
  }
  return Status::Ok();
}

}  // namespace

uint64_t BfChain::FirstLinkBytes(const BfParams& params) {
  return GeometryBytes(params.capacity, FirstLinkError(params));
}

Result<BfChain> BfChain::Create(const BfParams& params, uint64_t max_bytes) {
  CRAWLFRONT_RETURN_IF_ERROR(ValidateParams(params));
  BfChain chain;
  chain.params_ = params;
  double error = FirstLinkError(params);
  auto filter = BlockedBloom::Make(params.capacity, error, kLinkOptions, max_bytes);
  if (!filter.ok()) return filter.status();
  chain.links_.push_back(BfLink{std::make_unique<BlockedBloom>(std::move(filter).value()),
                                params.capacity, error, 0});
  return chain;
}

// As RedisBloom: probe every sub-filter first (an item in an old one is
// not new), then grow if the last one is at capacity.
BfStep BfChain::Add(uint64_t hash, size_t skip) {
  if (Contains(hash, skip)) return BfStep::kExists;
  BfLink& last = links_.back();
  if (last.items >= last.capacity) {
    return params_.nonscaling ? BfStep::kFull : BfStep::kNeedLink;
  }
  if (!last.filter->Add(hash)) return BfStep::kExists;
  ++last.items;
  ++items_;
  return BfStep::kAdded;
}

void BfChain::ContainsBatch(std::span<const uint64_t> hashes, size_t links,
                            uint8_t* out) const {
  std::memset(out, 0, hashes.size());
  uint8_t hit[256];
  for (size_t at = 0; at < hashes.size(); at += sizeof hit) {
    auto part = hashes.subspan(at, std::min(sizeof hit, hashes.size() - at));
    for (size_t l = 0; l < std::min(links, links_.size()); ++l) {
      links_[l].filter->MayContainBatch(part, hit);
      for (size_t i = 0; i < part.size(); ++i) out[at + i] |= hit[i];
    }
  }
}

size_t BfChain::PrepareAdds(std::span<const uint64_t> hashes, uint8_t* in_older) const {
  const size_t older = links_.size() - 1;
  ContainsBatch(hashes, older, in_older);
  uint8_t ignored[256];
  for (size_t at = 0; at < hashes.size(); at += sizeof ignored) {
    auto part = hashes.subspan(at, std::min(sizeof ignored, hashes.size() - at));
    links_.back().filter->MayContainBatch(part, ignored);
  }
  return older;
}

bool BfChain::Contains(uint64_t hash, size_t skip) const {
  for (size_t i = links_.size(); i-- > skip;) {  // newest first
    if (links_[i].filter->MayContain(hash)) return true;
  }
  return false;
}

uint64_t BfChain::NextLinkBytes() const {
  const BfLink& last = links_.back();
  uint64_t capacity;
  if (__builtin_mul_overflow(last.capacity, uint64_t{params_.expansion}, &capacity)) {
    return UINT64_MAX;
  }
  return GeometryBytes(capacity, last.error * kTightening);
}

Status BfChain::AddLink() {
  const BfLink& last = links_.back();
  uint64_t capacity;
  if (links_.size() >= kMaxLinks ||
      __builtin_mul_overflow(last.capacity, uint64_t{params_.expansion}, &capacity)) {
    return Status::InvalidArgument("ERR max number of sub-filters reached");
  }
  double error = last.error * kTightening;
  auto filter = BlockedBloom::Make(capacity, error, kLinkOptions);
  if (!filter.ok()) return filter.status();
  links_.push_back(BfLink{std::make_unique<BlockedBloom>(std::move(filter).value()),
                          capacity, error, 0});
  return Status::Ok();
}

uint64_t BfChain::capacity() const {
  uint64_t sum = 0;
  for (const BfLink& l : links_) sum += l.capacity;
  return sum;
}

uint64_t BfChain::bytes() const {
  uint64_t sum = 0;
  for (const BfLink& l : links_) sum += l.filter->bytes();
  return sum;
}

std::string BfChain::EncodeHeader() const {
  std::string out(kMagic, sizeof kMagic);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(params_.nonscaling ? 1 : 0));
  AppendBe32(&out, params_.expansion);
  AppendDouble(&out, params_.error_rate);
  AppendBe64(&out, params_.capacity);
  AppendBe64(&out, items_);
  AppendBe32(&out, static_cast<uint32_t>(links_.size()));
  for (const BfLink& l : links_) {
    AppendBe64(&out, l.capacity);
    AppendDouble(&out, l.error);
    AppendBe64(&out, l.items);
    out += l.filter->SerializeHeader();
  }
  return out;
}

namespace {

// Parses the fixed part; leaves the link count in *links.
Status DecodeFixed(std::string_view h, BfParams* params, uint64_t* items,
                   uint32_t* links) {
  if (h.size() < kFixedBytes || std::memcmp(h.data(), kMagic, sizeof kMagic) != 0) {
    return Status::Corruption("ERR received bad data");
  }
  const char* p = h.data() + 4;
  if (static_cast<uint8_t>(p[0]) != kVersion || static_cast<uint8_t>(p[1]) > 1) {
    return Status::Corruption("ERR received bad data");
  }
  params->nonscaling = p[1] == 1;
  params->expansion = ReadBe32(p + 2);
  params->error_rate = ReadDouble(p + 6);
  params->capacity = ReadBe64(p + 14);
  *items = ReadBe64(p + 22);
  *links = ReadBe32(p + 30);
  if (!ValidateParams(*params).ok() || *links == 0 || *links > BfChain::kMaxLinks ||
      (params->nonscaling && *links != 1) ||
      h.size() != kFixedBytes + uint64_t{*links} * kLinkBytes) {
    return Status::Corruption("ERR received bad data");
  }
  return Status::Ok();
}

}  // namespace

Result<BfChain> BfChain::FromHeader(std::string_view h, uint64_t max_bytes) {
  BfChain chain;
  uint32_t links = 0;
  CRAWLFRONT_RETURN_IF_ERROR(DecodeFixed(h, &chain.params_, &chain.items_, &links));
  uint64_t items_sum = 0;
  uint64_t bytes_left = max_bytes;
  for (uint32_t i = 0; i < links; ++i) {
    const char* p = h.data() + kFixedBytes + uint64_t{i} * kLinkBytes;
    BfLink link;
    link.capacity = ReadBe64(p);
    link.error = ReadDouble(p + 8);
    link.items = ReadBe64(p + 16);
    if (link.capacity == 0 || !ValidError(link.error) || link.items > link.capacity) {
      return Status::Corruption("ERR received bad data");
    }
    items_sum += link.items;
    auto filter = BlockedBloom::FromHeader(
        std::string_view(p + kLinkFixedBytes, BlockedBloom::kHeaderBytes), kLinkOptions,
        bytes_left);
    if (!filter.ok()) return filter.status();
    bytes_left -= filter->bytes();
    link.filter = std::make_unique<BlockedBloom>(std::move(filter).value());
    chain.links_.push_back(std::move(link));
  }
  if (items_sum != chain.items_) return Status::Corruption("ERR received bad data");
  return chain;
}

bool BfChain::Locate(uint64_t offset, size_t* link, uint64_t* inner) const {
  for (size_t i = 0; i < links_.size(); ++i) {
    uint64_t size = links_[i].filter->bytes();
    if (offset < size) {
      *link = i;
      *inner = offset;
      return true;
    }
    offset -= size;
  }
  return false;
}

void BfChain::ReadRange(uint64_t offset, uint64_t max_bytes, std::string* out) const {
  out->clear();
  size_t link;
  uint64_t inner;
  if (!Locate(offset, &link, &inner)) return;
  links_[link].filter->ReadChunk(inner, max_bytes, out);
}

Status BfChain::WriteRange(uint64_t offset, std::string_view data) {
  size_t link;
  uint64_t inner;
  if (!Locate(offset, &link, &inner)) {
    return Status::InvalidArgument("ERR invalid offset - no link found");
  }
  if (data.size() > links_[link].filter->bytes() - inner) {
    return Status::InvalidArgument("ERR invalid chunk - Too big for current filter");
  }
  return links_[link].filter->WriteChunk(inner, data);
}

}  // namespace crawlfront
