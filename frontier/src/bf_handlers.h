#pragma once
// Handlers of the BF.* commands (bf_commands.cc: writes and registration,
// bf_commands_read.cc: reads, dump/load and the reserved seen-set name).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crawlfront/common/url.h"
#include "crawlfront/frontier/bf_commands.h"
#include "crawlfront/frontier/resp_server.h"

namespace crawlfront {

struct BfCommandContext {
  UserBloomRegistry* registry = nullptr;
  SeenSet* seen = nullptr;  // may be null
  UrlOptions url_options;
};

// Items per step of a long BF.MADD, BF.INSERT or BF.MEXISTS
// (CallContext::ContinueWith): about 2 ms of adds on this project's VM.
inline constexpr size_t kBfPiece = 8192;
// BF.MEXISTS on the seen-set canonicalizes each URL first.
inline constexpr size_t kSeenPiece = 1024;

// Redis's number parsing: the whole string, no spaces; NaN rejected.
std::optional<double> BfParseDouble(std::string_view s);
std::optional<int64_t> BfParseInt(std::string_view s);

bool BfIsSeenName(std::string_view name);
// Error reply for a Status whose message may lack an error code.
void BfReplyStatus(RespWriter& out, const Status& st);
void BfReplyWrongArity(CallContext& ctx);

void BfExists(const BfCommandContext& c, CallContext& ctx);   // BF.EXISTS, BF.MEXISTS
void BfInfoCmd(const BfCommandContext& c, CallContext& ctx);  // BF.INFO
void BfCard(const BfCommandContext& c, CallContext& ctx);     // BF.CARD
void BfScanDump(const BfCommandContext& c, CallContext& ctx);
void BfLoadChunk(const BfCommandContext& c, CallContext& ctx);

}  // namespace crawlfront
