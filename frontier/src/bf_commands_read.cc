// BF.EXISTS / BF.MEXISTS / BF.INFO / BF.CARD / BF.SCANDUMP / BF.LOADCHUNK,
// and the read-only view of the frontier's seen-set under kSeenFilterName.

#include <algorithm>
#include <memory>
#include <vector>

#include "bf_handlers.h"
#include "crawlfront/common/ascii.h"
#include "crawlfront/frontier/seen_set.h"

namespace crawlfront {
namespace {

// The seen-set's answer for a URL: it is canonicalized first, as the
// frontier does on add; something that is not a URL was never seen.
Result<bool> SeenContains(const BfCommandContext& c, std::string_view url) {
  Result<CanonicalUrl> canon = Canonicalize(url, c.url_options);
  if (!canon.ok()) return false;
  return c.seen->Contains(SeenKey{HostHash(canon->host_key), FingerprintOf(canon->spec)});
}

// Fills out[i] for each item from the seen-set.
Status SeenExists(const BfCommandContext& c, std::span<const std::string> items,
                  std::vector<uint8_t>* out) {
  out->assign(items.size(), 0);
  if (c.seen == nullptr) return Status::Ok();
  for (size_t i = 0; i < items.size(); ++i) {
    Result<bool> r = SeenContains(c, items[i]);
    if (!r.ok()) return r.status();
    (*out)[i] = *r ? 1 : 0;
  }
  return Status::Ok();
}

BfInfo SeenInfo(const SeenSet& seen) {
  SeenSetStats stats = seen.GetStats();
  BfInfo info;
  for (uint32_t p = 0; p < seen.partitions(); ++p) {
    info.capacity += seen.GetPartitionStats(p).capacity;
  }
  info.bytes = stats.filter_bytes;
  info.filters = seen.partitions();
  info.items = stats.items;
  info.expansion = 2;  // a rebuild doubles a partition's capacity
  return info;
}

Result<BfInfo> LookupInfo(const BfCommandContext& c, std::string_view name) {
  if (!BfIsSeenName(name)) return c.registry->Info(name);
  if (c.seen == nullptr) return Status::NotFound("ERR not found");
  return SeenInfo(*c.seen);
}

void ReplyExpansion(RespWriter& out, const BfInfo& info) {
  if (info.nonscaling) return out.Null();
  out.Integer(info.expansion);
}

// One field as a one-element array, as RedisBloom does.
void ReplyInfoField(RespWriter& out, const BfInfo& info, const std::string& field) {
  std::string f = AsciiLower(field);
  if (f != "capacity" && f != "size" && f != "filters" && f != "items" &&
      f != "expansion") {
    return out.Error("Invalid information value");
  }
  out.ArrayHeader(1);
  if (f == "capacity") return out.Integer(static_cast<int64_t>(info.capacity));
  if (f == "size") return out.Integer(static_cast<int64_t>(info.bytes));
  if (f == "filters") return out.Integer(static_cast<int64_t>(info.filters));
  if (f == "items") return out.Integer(static_cast<int64_t>(info.items));
  ReplyExpansion(out, info);
}

// Fills *found for items, from the seen-set or a user filter.
Status ExistsInto(const BfCommandContext& c, std::string_view name,
                  std::span<const std::string> items, std::vector<uint8_t>* found) {
  if (BfIsSeenName(name)) return SeenExists(c, items, found);
  c.registry->Exists(name, items, found);
  return Status::Ok();
}

// A long BF.MEXISTS: one piece per step of its connection, as a long
// BF.MADD (bf_commands.cc).
struct ExistsSteps {
  size_t at = 2;  // the next item's argument
  std::vector<uint8_t> found;
};

bool ExistsStep(const BfCommandContext& c, CallContext& ctx, ExistsSteps& s) {
  auto args = ctx.args();
  const size_t piece = BfIsSeenName(args[1]) ? kSeenPiece : kBfPiece;
  const size_t n = std::min(piece, args.size() - s.at);
  thread_local std::vector<uint8_t> part;
  Status st = ExistsInto(c, args[1], args.subspan(s.at, n), &part);
  if (!st.ok()) {
    BfReplyStatus(ctx.reply(), st);
    return true;
  }
  s.found.insert(s.found.end(), part.begin(), part.end());
  s.at += n;
  if (s.at < args.size()) return false;
  ctx.reply().ZeroOneArray(s.found);
  return true;
}

}  // namespace

void BfExists(const BfCommandContext& c, CallContext& ctx) {
  auto args = ctx.args();
  bool multi = AsciiLower(args[0]) == "bf.mexists";
  const size_t piece = BfIsSeenName(args[1]) ? kSeenPiece : kBfPiece;
  if (args.size() - 2 > piece) {
    auto steps = std::make_shared<ExistsSteps>();
    steps->found.reserve(args.size() - 2);
    return ctx.ContinueWith(
        [&c, steps](CallContext& step) { return ExistsStep(c, step, *steps); });
  }
  thread_local std::vector<uint8_t> found;  // no allocation per call
  Status st = ExistsInto(c, args[1], args.subspan(2), &found);
  if (!st.ok()) return BfReplyStatus(ctx.reply(), st);
  if (!multi) return ctx.reply().Integer(found.at(0));
  ctx.reply().ZeroOneArray(found);
}

void BfInfoCmd(const BfCommandContext& c, CallContext& ctx) {
  auto args = ctx.args();
  if (args.size() > 3) return BfReplyWrongArity(ctx);
  Result<BfInfo> info = LookupInfo(c, args[1]);
  if (!info.ok()) return BfReplyStatus(ctx.reply(), info.status());
  RespWriter& out = ctx.reply();
  if (args.size() == 3) return ReplyInfoField(out, *info, args[2]);
  out.MapHeader(5);
  out.SimpleString("Capacity");
  out.Integer(static_cast<int64_t>(info->capacity));
  out.SimpleString("Size");
  out.Integer(static_cast<int64_t>(info->bytes));
  out.SimpleString("Number of filters");
  out.Integer(static_cast<int64_t>(info->filters));
  out.SimpleString("Number of items inserted");
  out.Integer(static_cast<int64_t>(info->items));
  out.SimpleString("Expansion rate");
  ReplyExpansion(out, *info);
}

void BfCard(const BfCommandContext& c, CallContext& ctx) {
  std::string_view name = ctx.args()[1];
  if (!BfIsSeenName(name)) {
    return ctx.reply().Integer(static_cast<int64_t>(c.registry->Card(name)));
  }
  uint64_t items = c.seen ? c.seen->GetStats().items : 0;
  ctx.reply().Integer(static_cast<int64_t>(items));
}

void BfScanDump(const BfCommandContext& c, CallContext& ctx) {
  auto args = ctx.args();
  if (BfIsSeenName(args[1])) {
    return ctx.reply().Error(
        "ERR crawlfront:seen cannot be dumped; use crawlctl checkpoint");
  }
  std::optional<int64_t> iter = BfParseInt(args[2]);
  if (!iter) {
    // RedisBloom looks the key up first.
    if (!c.registry->Info(args[1]).ok()) return ctx.reply().Error("ERR not found");
    return ctx.reply().Error("Second argument must be numeric");
  }
  Result<BfDumpChunk> chunk = c.registry->ScanDump(args[1], *iter);
  if (!chunk.ok()) return BfReplyStatus(ctx.reply(), chunk.status());
  ctx.reply().ArrayHeader(2);
  ctx.reply().Integer(chunk->next);
  ctx.reply().Bulk(chunk->data);
}

void BfLoadChunk(const BfCommandContext& c, CallContext& ctx) {
  auto args = ctx.args();
  std::optional<int64_t> iter = BfParseInt(args[2]);
  if (!iter) return ctx.reply().Error("ERR Second argument must be numeric");
  if (BfIsSeenName(args[1])) {
    return ctx.reply().Error("ERR crawlfront:seen is read-only; use FRONTIER.ADD");
  }
  Status st = c.registry->LoadChunk(args[1], *iter, args[3]);
  if (!st.ok()) return BfReplyStatus(ctx.reply(), st);
  ctx.reply().SimpleString("OK");
}

}  // namespace crawlfront
