// kFetch values (fetch_record.h): version 1 | outcome | be32 status | be32
// attempt | be64 at_ms | be64 fetch_ms | flags (1: sitemap) | be16 reason
// length | reason |
// be16 etag length | etag | be16 last_modified length | last_modified.

#include "crawlfront/frontier/fetch_record.h"

#include <algorithm>

#include "crawlfront/common/url.h"
#include "crawlfront/frontier/store.h"

namespace crawlfront {
namespace {

constexpr uint8_t kFetchVersion = 1;
constexpr size_t kFixedBytes = 1 + 1 + 4 + 4 + 8 + 8 + 1 + 2;
constexpr uint8_t kSitemapFlag = 1;

}  // namespace

const char* UrlOutcomeName(UrlOutcome o) {
  switch (o) {
    case UrlOutcome::kNone: return "";
    case UrlOutcome::kFetched: return "fetched";
    case UrlOutcome::kFailed: return "failed";
    case UrlOutcome::kRetry: return "retry";
    case UrlOutcome::kDisallowed: return "disallowed";
    case UrlOutcome::kRobotsBlocked: return "robots_blocked";
    case UrlOutcome::kExpired: return "expired";
  }
  return "";
}

std::string FetchKey(std::string_view prefix, std::string_view url) {
  std::string k;
  k.reserve(prefix.size() + 16);
  k.append(prefix);
  FingerprintOf(url).AppendTo(&k);
  return k;
}

std::string EncodeFetchRecord(const FetchRecord& r) {
  const size_t n = std::min(r.reason.size(), kMaxFetchReason);
  std::string v;
  v.reserve(kFixedBytes + n);
  v.push_back(static_cast<char>(kFetchVersion));
  v.push_back(static_cast<char>(r.outcome));
  AppendBe32(&v, static_cast<uint32_t>(r.status));
  AppendBe32(&v, r.attempt);
  AppendBe64(&v, static_cast<uint64_t>(r.at_ms));
  AppendBe64(&v, static_cast<uint64_t>(r.fetch_ms));
  v.push_back(static_cast<char>(r.sitemap ? kSitemapFlag : 0));
  AppendBe16(&v, static_cast<uint16_t>(n));
  v.append(r.reason, 0, n);
  for (const std::string* s : {&r.etag, &r.last_modified}) {
    const size_t len = std::min<size_t>(s->size(), UINT16_MAX);
    AppendBe16(&v, static_cast<uint16_t>(len));
    v.append(*s, 0, len);
  }
  return v;
}

bool DecodeFetchRecord(std::string_view b, FetchRecord* r) {
  if (b.size() < kFixedBytes || static_cast<uint8_t>(b[0]) != kFetchVersion) return false;
  const auto outcome = static_cast<uint8_t>(b[1]);
  if (outcome == 0 || outcome > static_cast<uint8_t>(UrlOutcome::kExpired)) return false;
  const size_t n = ReadBe16(b.data() + kFixedBytes - 2);
  if (b.size() < kFixedBytes + n) return false;
  std::string_view rest = b.substr(kFixedBytes + n);
  for (std::string* s : {&r->etag, &r->last_modified}) {
    if (rest.size() < 2 || rest.size() - 2 < ReadBe16(rest.data())) return false;
    const size_t len = ReadBe16(rest.data());
    s->assign(rest.substr(2, len));
    rest.remove_prefix(2 + len);
  }
  if (!rest.empty()) return false;
  r->outcome = static_cast<UrlOutcome>(outcome);
  r->status = static_cast<int32_t>(ReadBe32(b.data() + 2));
  r->attempt = ReadBe32(b.data() + 6);
  r->at_ms = static_cast<int64_t>(ReadBe64(b.data() + 10));
  r->fetch_ms = static_cast<int64_t>(ReadBe64(b.data() + 18));
  const auto flags = static_cast<uint8_t>(b[26]);
  if ((flags & ~kSitemapFlag) != 0) return false;
  r->sitemap = (flags & kSitemapFlag) != 0;
  r->reason.assign(b.substr(kFixedBytes, n));
  return true;
}

}  // namespace crawlfront
