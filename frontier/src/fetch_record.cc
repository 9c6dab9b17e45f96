// kFetch values (fetch_record.h): version 1 | outcome | be32 status | be32
// attempt | be64 at_ms | be64 fetch_ms | be16 reason length | reason.

#include "crawlfront/frontier/fetch_record.h"

#include <algorithm>

#include "crawlfront/frontier/store.h"

namespace crawlfront {
namespace {

constexpr uint8_t kFetchVersion = 1;
constexpr size_t kFixedBytes = 1 + 1 + 4 + 4 + 8 + 8 + 2;

}  // namespace

const char* FetchOutcomeName(FetchOutcome o) {
  switch (o) {
    case FetchOutcome::kNone: return "";
    case FetchOutcome::kFetched: return "fetched";
    case FetchOutcome::kFailed: return "failed";
    case FetchOutcome::kRetry: return "retry";
    case FetchOutcome::kDisallowed: return "disallowed";
    case FetchOutcome::kRobotsBlocked: return "robots_blocked";
    case FetchOutcome::kExpired: return "expired";
  }
  return "";
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
  AppendBe16(&v, static_cast<uint16_t>(n));
  v.append(r.reason, 0, n);
  return v;
}

bool DecodeFetchRecord(std::string_view b, FetchRecord* r) {
  if (b.size() < kFixedBytes || static_cast<uint8_t>(b[0]) != kFetchVersion) return false;
  const auto outcome = static_cast<uint8_t>(b[1]);
  if (outcome == 0 || outcome > static_cast<uint8_t>(FetchOutcome::kExpired)) return false;
  const size_t n = ReadBe16(b.data() + kFixedBytes - 2);
  if (b.size() != kFixedBytes + n) return false;
  r->outcome = static_cast<FetchOutcome>(outcome);
  r->status = static_cast<int32_t>(ReadBe32(b.data() + 2));
  r->attempt = ReadBe32(b.data() + 6);
  r->at_ms = static_cast<int64_t>(ReadBe64(b.data() + 10));
  r->fetch_ms = static_cast<int64_t>(ReadBe64(b.data() + 18));
  r->reason.assign(b.substr(kFixedBytes, n));
  return true;
}

}  // namespace crawlfront
