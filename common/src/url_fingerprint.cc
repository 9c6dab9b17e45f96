// URL fingerprints and host hashes (XXH3).

#include <xxhash.h>

#include "crawlfront/common/url.h"

namespace crawlfront {
namespace {

void AppendBigEndian(uint64_t v, std::string* out) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xFF));
  }
}

uint64_t ReadBigEndian(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

void Fingerprint::AppendTo(std::string* out) const {
  AppendBigEndian(hi, out);
  AppendBigEndian(lo, out);
}

Fingerprint Fingerprint::FromBytes(const char* bytes) {
  return Fingerprint{ReadBigEndian(bytes), ReadBigEndian(bytes + 8)};
}

Fingerprint FingerprintOf(std::string_view canonical_spec) {
  const XXH128_hash_t h = XXH3_128bits(canonical_spec.data(), canonical_spec.size());
  return Fingerprint{h.high64, h.low64};
}

uint64_t HostHash(std::string_view host_key) {
  return XXH3_64bits(host_key.data(), host_key.size());
}

}  // namespace crawlfront
