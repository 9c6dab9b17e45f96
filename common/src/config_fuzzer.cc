// Feeds arbitrary bytes to ConfigTable::LoadString and ApplyOverride.
// Properties: no crash, and accepted values dump to TOML that loads back to
// the same values.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "crawlfront/common/config.h"

namespace {

struct FuzzOpts {
  bool flag = false;
  int64_t count = 0;
  double ratio = 0;
  std::string name;
  std::vector<std::string> list;
  std::chrono::milliseconds delay{0};
  std::string mode;
};

const crawlfront::ConfigTable<FuzzOpts>& Table() {
  static const auto* table = [] {
    auto* t = new crawlfront::ConfigTable<FuzzOpts>;
    t->Add("a.flag", &FuzzOpts::flag, false, "");
    t->Add("a.count", &FuzzOpts::count, 1, -5, 1000000, "");
    t->Add("a.ratio", &FuzzOpts::ratio, 0.5, -1e9, 1e9, "");
    t->Add("name", &FuzzOpts::name, "x", "");
    t->Add("b.c.list", &FuzzOpts::list, {"u"}, "");
    t->Add("b.delay", &FuzzOpts::delay, std::chrono::milliseconds(5),
           std::chrono::milliseconds(0), std::chrono::milliseconds(86400000), "");
    t->AddEnum("b.mode", &FuzzOpts::mode, "wal", {"wal", "fsync"}, "");
    return t;
  }();
  return *table;
}

}  // namespace

// Dump(opts) must load back to the same dump.
void CheckRoundTrip(const crawlfront::ConfigTable<FuzzOpts>& table,
                    const FuzzOpts& opts) {
  std::string dump = table.Dump(opts);
  FuzzOpts again = table.Defaults();
  if (!table.LoadString(dump, &again).ok() || table.Dump(again) != dump) std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& table = Table();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  FuzzOpts opts = table.Defaults();
  if (table.LoadString(text, &opts, "fuzz").ok()) CheckRoundTrip(table, opts);
  // The same bytes as a --set argument.
  FuzzOpts overridden = table.Defaults();
  if (table.ApplyOverride(text, &overridden).ok()) CheckRoundTrip(table, overridden);
  return 0;
}
