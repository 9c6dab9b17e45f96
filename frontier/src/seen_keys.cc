#include <chrono>

#include "seen_partition.h"

namespace crawlfront {
namespace {
constexpr uint8_t kSnapVersion = 1;
constexpr size_t kSnapFixed = 1 + 5 * 8;
}  // namespace

std::string PartitionPrefix(uint32_t p) {
  std::string k;
  AppendBe16(&k, static_cast<uint16_t>(p));
  return k;
}

std::string SeenKeyBytes(uint32_t p, const Fingerprint& fp) {
  std::string k(kSeenKeyBytes, '\0');
  EncodeSeenKey(p, fp, k.data());
  return k;
}

void EncodeSeenKey(uint32_t p, const Fingerprint& fp, char* out) {
  out[0] = static_cast<char>(p >> 8);
  out[1] = static_cast<char>(p);
  for (int i = 0; i < 8; ++i) out[2 + i] = static_cast<char>(fp.hi >> (56 - 8 * i));
  for (int i = 0; i < 8; ++i) out[10 + i] = static_cast<char>(fp.lo >> (56 - 8 * i));
}

BloomOptions SeenBloomOptions() { return BloomOptions{.single_writer = true}; }

std::string LogKey(uint32_t p, uint64_t counter) {
  std::string k = PartitionPrefix(p);
  AppendBe64(&k, counter);
  return k;
}

std::string SnapHeaderKey(uint32_t p) { return PartitionPrefix(p) + "H"; }

std::string SnapChunkKey(uint32_t p, uint32_t chunk) {
  std::string k = PartitionPrefix(p) + "C";
  AppendBe32(&k, chunk);
  return k;
}

std::string SnapHeader::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kSnapVersion));
  AppendBe64(&out, counter);
  AppendBe64(&out, items);
  AppendBe64(&out, capacity);
  AppendBe64(&out, rebuilds);
  AppendBe64(&out, static_cast<uint64_t>(time_ms));
  out += filter_header;
  return out;
}

Result<SnapHeader> SnapHeader::Decode(std::string_view b) {
  if (b.size() < kSnapFixed) return Status::Corruption("snapshot header truncated");
  if (static_cast<uint8_t>(b[0]) != kSnapVersion) {
    return Status::Corruption("snapshot header version " +
                              std::to_string(static_cast<uint8_t>(b[0])));
  }
  SnapHeader h;
  const char* p = b.data() + 1;
  h.counter = ReadBe64(p);
  h.items = ReadBe64(p + 8);
  h.capacity = ReadBe64(p + 16);
  h.rebuilds = ReadBe64(p + 24);
  h.time_ms = static_cast<int64_t>(ReadBe64(p + 32));
  h.filter_header.assign(b.substr(kSnapFixed));
  return h;
}

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace crawlfront
