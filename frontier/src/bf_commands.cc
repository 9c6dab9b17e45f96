// BF.* registration, argument parsing and the write commands. Error texts
// are RedisBloom's (src/rebloom.c) so existing clients see what they expect.

#include "crawlfront/frontier/bf_commands.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bf_handlers.h"
#include "crawlfront/common/ascii.h"
#include "store_round.h"

namespace crawlfront {
namespace {

constexpr std::string_view kReadOnly =
    "ERR crawlfront:seen is read-only; use FRONTIER.ADD";

void ReplyOutcome(RespWriter& out, BfAddOutcome o, uint64_t cap) {
  switch (o) {
    case BfAddOutcome::kExists:
      out.Integer(0);
      break;
    case BfAddOutcome::kAdded:
      out.Integer(1);
      break;
    case BfAddOutcome::kFull:
      out.Error("ERR non scaling filter is full");
      break;
    case BfAddOutcome::kNoMemory:
      out.Error("ERR new sub-filter exceeds max memory for Bloom filters (" +
                std::to_string(cap) + " bytes)");
      break;
    case BfAddOutcome::kTooManyLinks:
      out.Error("ERR max number of sub-filters reached");
      break;
  }
}

bool IsAnswer(BfAddOutcome o) {
  return o == BfAddOutcome::kExists || o == BfAddOutcome::kAdded;
}

// One integer (multi == false) or an array that ends early at a full
// filter, as RedisBloom does.
void ReplyOutcomes(const BfCommandContext& c, RespWriter& out,
                   const std::vector<BfAddOutcome>& outcomes, bool multi) {
  uint64_t cap = c.registry->options().max_total_bytes;
  if (!multi) return ReplyOutcome(out, outcomes.at(0), cap);
  thread_local std::vector<uint8_t> bits;
  bits.clear();
  for (BfAddOutcome o : outcomes) {
    if (!IsAnswer(o)) break;
    bits.push_back(o == BfAddOutcome::kAdded);
  }
  if (bits.size() == outcomes.size()) return out.ZeroOneArray(bits);
  out.ArrayHeader(outcomes.size());
  for (BfAddOutcome o : outcomes) ReplyOutcome(out, o, cap);
}

// A long BF.MADD / BF.INSERT: one piece of the items per step of its
// connection (ContinueWith), so the io thread's other connections are
// served between pieces; 10^6 items in one go held the thread ~230 ms.
struct AddSteps {
  std::optional<BfParams> create;  // none for NOCREATE
  size_t at = 0;                   // the next item's argument
  std::vector<BfAddOutcome> outcomes;
};

// The next piece of `add`; true when the reply is written. A piece before
// the last writes its own log record; the last joins the round's write.
bool AddStep(const BfCommandContext& c, CallContext& ctx, AddSteps& add) {
  auto args = ctx.args();
  const size_t n = std::min(kBfPiece, args.size() - add.at);
  const bool last = add.at + n == args.size();
  thread_local std::vector<BfAddOutcome> part;
  WriteGroup* group = last ? JoinStoreRound(ctx, c.registry->store()) : nullptr;
  const BfParams* create = add.create ? &*add.create : nullptr;
  Status st = c.registry->Add(args[1], args.subspan(add.at, n), create, &part, group);
  if (!st.ok()) {
    BfReplyStatus(ctx.reply(), st);
    return true;
  }
  add.outcomes.insert(add.outcomes.end(), part.begin(), part.end());
  add.at += n;
  // Add ends at a full filter (or another outcome that is no answer).
  const bool stopped = part.size() < n || !IsAnswer(part.back());
  if (!last && !stopped) return false;
  ReplyOutcomes(c, ctx.reply(), add.outcomes, true);
  return true;
}

// Adds args[first..] and replies.
void AddAndReply(const BfCommandContext& c, CallContext& ctx, size_t first,
                 const BfParams* create, bool multi) {
  auto args = ctx.args();
  if (args.size() - first > kBfPiece) {
    auto add = std::make_shared<AddSteps>();
    if (create != nullptr) add->create = *create;
    add->at = first;
    add->outcomes.reserve(args.size() - first);
    return ctx.ContinueWith(
        [&c, add](CallContext& step) { return AddStep(c, step, *add); });
  }
  thread_local std::vector<BfAddOutcome> outcomes;  // no allocation per call
  // Group commit: the log records join the round's write; the reply is sent
  // only once that write succeeded.
  WriteGroup* group = JoinStoreRound(ctx, c.registry->store());
  Status st = c.registry->Add(args[1], args.subspan(first), create, &outcomes, group);
  if (!st.ok()) return BfReplyStatus(ctx.reply(), st);
  ReplyOutcomes(c, ctx.reply(), outcomes, multi);
}

void BfAdd(const BfCommandContext& c, CallContext& ctx, bool multi) {
  if (BfIsSeenName(ctx.args()[1])) return ctx.reply().Error(kReadOnly);
  BfParams defaults;
  AddAndReply(c, ctx, 2, &defaults, multi);
}

// BF.RESERVE key error_rate capacity [EXPANSION n] [NONSCALING]
// Returns an error text, or "" with *p filled.
std::string ParseReserve(std::span<const std::string> args, BfParams* p) {
  std::optional<double> error = BfParseDouble(args[2]);
  if (!error) return "ERR bad error rate";
  if (!(*error > 0 && *error < 1)) return "ERR (0 < error rate range < 1) ";
  std::optional<int64_t> capacity = BfParseInt(args[3]);
  if (!capacity) return "ERR bad capacity";
  if (*capacity <= 0) return "ERR (capacity should be larger than 0)";
  p->error_rate = *error;
  p->capacity = static_cast<uint64_t>(*capacity);
  std::optional<int64_t> expansion;
  for (size_t i = 4; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "NONSCALING")) {
      p->nonscaling = true;
    } else if (EqualsIgnoreCase(args[i], "EXPANSION")) {
      if (++i == args.size()) return "ERR no expansion";
      expansion = BfParseInt(args[i]);
      if (!expansion || *expansion > UINT32_MAX) return "ERR bad expansion";
      if (*expansion < 1) return "ERR expansion should be greater or equal to 1";
    } else {
      return "ERR unknown argument '" + args[i].substr(0, 64) + "'";
    }
  }
  if (p->nonscaling && expansion) return "Nonscaling filters cannot expand";
  if (expansion) p->expansion = static_cast<uint32_t>(*expansion);
  return "";
}

void BfReserve(const BfCommandContext& c, CallContext& ctx) {
  auto args = ctx.args();
  if (args.size() > 7) return BfReplyWrongArity(ctx);
  if (BfIsSeenName(args[1])) return ctx.reply().Error(kReadOnly);
  BfParams params;
  std::string err = ParseReserve(args, &params);
  if (!err.empty()) return ctx.reply().Error(err);
  Status st = c.registry->Reserve(args[1], params);
  if (!st.ok()) return BfReplyStatus(ctx.reply(), st);
  ctx.reply().SimpleString("OK");
}

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION n] [NOCREATE] [NONSCALING]
// ITEMS item... Returns an error text ("" when fine); *items_at is the
// index of the first item, *create false for NOCREATE.
std::string ParseInsert(std::span<const std::string> args, BfParams* p, size_t* items_at,
                        bool* create) {
  int64_t capacity = static_cast<int64_t>(p->capacity);
  int64_t expansion = p->expansion;
  size_t i = 2;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (EqualsIgnoreCase(a, "ITEMS")) break;
    if (EqualsIgnoreCase(a, "NOCREATE")) {
      *create = false;
    } else if (EqualsIgnoreCase(a, "NONSCALING")) {
      p->nonscaling = true;
    } else if (EqualsIgnoreCase(a, "ERROR")) {
      if (!has_value) return "arity";
      std::optional<double> e = BfParseDouble(args[++i]);
      if (!e) return "Bad error rate";
      p->error_rate = *e;
    } else if (EqualsIgnoreCase(a, "CAPACITY") || EqualsIgnoreCase(a, "EXPANSION")) {
      if (!has_value) return "arity";
      std::optional<int64_t> v = BfParseInt(args[++i]);
      bool is_capacity = EqualsIgnoreCase(a, "CAPACITY");
      if (!v) return is_capacity ? "Bad capacity" : "Bad expansion";
      (is_capacity ? capacity : expansion) = *v;
    } else {
      return "Unknown argument received";
    }
  }
  if (i + 1 >= args.size()) return "arity";  // no ITEMS, or nothing after it
  if (!(p->error_rate > 0 && p->error_rate < 1) || capacity < 1 || expansion < 1 ||
      expansion > UINT32_MAX) {
    return "Bad argument received";
  }
  p->capacity = static_cast<uint64_t>(capacity);
  p->expansion = static_cast<uint32_t>(expansion);
  *items_at = i + 1;
  return "";
}

void BfInsert(const BfCommandContext& c, CallContext& ctx) {
  auto args = ctx.args();
  if (BfIsSeenName(args[1])) return ctx.reply().Error(kReadOnly);
  BfParams params;
  size_t items_at = 0;
  bool create = true;
  std::string err = ParseInsert(args, &params, &items_at, &create);
  if (err == "arity") return BfReplyWrongArity(ctx);
  if (!err.empty()) return ctx.reply().Error(err);
  AddAndReply(c, ctx, items_at, create ? &params : nullptr, true);
}

CommandSpec Spec(int arity, uint32_t flags, std::string summary,
                 std::function<void(CallContext&)> handler) {
  CommandSpec spec;
  spec.arity = arity;
  spec.flags = flags;
  spec.summary = std::move(summary);
  spec.group = "bf";
  spec.handler = std::move(handler);
  return spec;
}

}  // namespace

std::optional<double> BfParseDouble(std::string_view s) {
  if (s.empty() || s.size() > 64 || std::isspace(static_cast<unsigned char>(s[0]))) {
    return std::nullopt;
  }
  std::string copy(s);  // strtod needs a terminator
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || std::isnan(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> BfParseInt(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

bool BfIsSeenName(std::string_view name) { return name == kSeenFilterName; }

void BfReplyStatus(RespWriter& out, const Status& st) {
  const std::string& m = st.message();
  if (m.rfind("ERR ", 0) == 0) return out.Error(m);
  out.Error("ERR " + m);
}

void BfReplyWrongArity(CallContext& ctx) {
  ctx.reply().Error("ERR wrong number of arguments for '" + AsciiLower(ctx.args()[0]) +
                    "' command");
}

void RegisterBfCommands(RespServer& server, UserBloomRegistry& registry, SeenSet* seen,
                        UrlOptions url_options) {
  auto c = std::make_shared<BfCommandContext>();
  c->registry = &registry;
  c->seen = seen;
  c->url_options = std::move(url_options);
  const uint32_t kWrite = kCmdWrite;
  const uint32_t kRead = kCmdReadonly | kCmdFast;
  // Adds and probes keep the filter's lock across a pipelined run (pass_hold.h).
  const uint32_t kAddHold = kWrite | kCmdKeepsHold;
  const uint32_t kReadHold = kRead | kCmdKeepsHold;
  server.Register("BF.RESERVE", Spec(-4, kWrite, "Creates an empty Bloom filter",
                                     [c](CallContext& ctx) { BfReserve(*c, ctx); }));
  // The next pipelined request's block is loaded while this one runs.
  auto prefetch_item = [c](std::span<const std::string> args) {
    c->registry->Prefetch(args[1], args[2]);
  };
  CommandSpec add = Spec(3, kAddHold, "Adds an item to a Bloom filter",
                         [c](CallContext& ctx) { BfAdd(*c, ctx, false); });
  add.prefetch = prefetch_item;
  server.Register("BF.ADD", std::move(add));
  server.Register("BF.MADD", Spec(-3, kAddHold, "Adds items to a Bloom filter",
                                  [c](CallContext& ctx) { BfAdd(*c, ctx, true); }));
  server.Register("BF.INSERT",
                  Spec(-4, kAddHold, "Adds items, creating the filter with options",
                       [c](CallContext& ctx) { BfInsert(*c, ctx); }));
  CommandSpec exists = Spec(3, kReadHold, "Checks whether an item may have been added",
                            [c](CallContext& ctx) { BfExists(*c, ctx); });
  exists.prefetch = prefetch_item;
  server.Register("BF.EXISTS", std::move(exists));
  server.Register("BF.MEXISTS",
                  Spec(-3, kReadHold, "Checks whether items may have been added",
                       [c](CallContext& ctx) { BfExists(*c, ctx); }));
  server.Register("BF.INFO", Spec(-2, kRead, "Returns information about a Bloom filter",
                                  [c](CallContext& ctx) { BfInfoCmd(*c, ctx); }));
  server.Register("BF.CARD", Spec(2, kRead, "Returns the number of items added",
                                  [c](CallContext& ctx) { BfCard(*c, ctx); }));
  server.Register("BF.SCANDUMP",
                  Spec(3, kCmdReadonly, "Dumps a Bloom filter incrementally",
                       [c](CallContext& ctx) { BfScanDump(*c, ctx); }));
  server.Register("BF.LOADCHUNK", Spec(4, kWrite, "Restores a Bloom filter from SCANDUMP",
                                       [c](CallContext& ctx) { BfLoadChunk(*c, ctx); }));
}

}  // namespace crawlfront
