// libFuzzer target: the bytes are a frontier's reply to FRONTIER.LEASE, as
// RESP2/RESP3 on the wire. Every value the RESP parser yields goes through
// ParseLeases, whose contract is checked: an array is accepted with each
// entry either a lease or counted as skipped, anything else is refused, and
// no returned lease has an empty id, an unknown kind, or a recrawl validator
// that is not a safe header value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "worker_parse.h"

namespace {

void Check(const crawlfront::RespValue& reply) {
  size_t skipped = 0;
  auto leases = crawlfront::worker_internal::ParseLeases(reply, &skipped);
  if (leases.ok() != (reply.type == crawlfront::RespType::kArray)) std::abort();
  if (!leases.ok()) return;
  if (leases->size() + skipped != reply.elements.size()) std::abort();
  for (const auto& lease : *leases) {
    if (lease.id.empty() || (lease.kind != "page" && lease.kind != "robots")) std::abort();
    // Validators become request headers: never with CR, LF or other controls.
    if (!crawlfront::IsSafeHeaderValue(lease.etag) ||
        !crawlfront::IsSafeHeaderValue(lease.last_modified)) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Small limits keep each input cheap; the RESP codec has its own fuzzer.
  crawlfront::RespLimits limits;
  limits.max_bulk_len = 4096;
  limits.max_array_len = 256;
  limits.max_nesting = 4;
  limits.max_frame_bytes = 1 << 16;
  crawlfront::RespParser parser(crawlfront::RespParser::Mode::kReply, limits);
  parser.Feed(std::string_view(reinterpret_cast<const char*>(data), size));
  crawlfront::RespValue value;
  for (size_t i = 0; i <= size; ++i) {  // each value consumes at least one byte
    auto got = parser.Next(&value);
    if (!got.ok() || !*got) break;
    Check(value);
  }
  return 0;
}
