#pragma once
// Table-driven configuration (STYLE.md: "one table (name, type, bounds,
// default), not scattered ifs"). A daemon declares each key once:
//
//   ConfigTable<FrontierOptions> table;
//   table.Add("server.listen", &FrontierOptions::listen, "127.0.0.1:7000",
//             "Address of the RESP server.");
//   table.Add("server.port_backlog", &FrontierOptions::backlog, 128, 1, 65535, "...");
//   table.AddEnum("storage.durability", &FrontierOptions::durability, "wal",
//                 {"wal", "fsync"}, "...");
//
// and gets TOML loading with line-numbered errors, `--set key=value` overrides,
// dedicated flags, help text and a TOML dump of the effective values from it.
// Precedence: defaults < config file < command line (in argument order).
//
// Keys are "section.key" (any depth; each part [A-Za-z0-9_-]+) and map to TOML
// tables: "server.listen" is `listen` in `[server]`.

#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront {

// Parses a duration: an integer number of milliseconds ("250") or an integer
// with a unit: "250ms", "2s", "5m", "1h". Fails with InvalidArgument on
// anything else (fractions, negative values, overflow).
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// Renders a duration in the largest unit that is exact: 7200000 -> "2h",
// 1500 -> "1500ms". ParseDuration(FormatDuration(d)) == d.
std::string FormatDuration(std::chrono::milliseconds d);

// A dedicated command-line flag for one key: {"listen", "server.listen"} makes
// `--listen X` (or `--listen=X`) mean `--set server.listen=X`. A flag for a
// boolean key may stand alone (`--verbose` means true).
struct FlagAlias {
  std::string flag;  // without the leading "--"
  std::string key;
};

// A daemon's command line, parsed by ConfigTable::ParseArgs.
struct CommandLine {
  std::string config_path;              // --config PATH; empty: no file
  std::vector<std::string> overrides;   // "key=value" from --set and aliases, in order
  bool help = false;                    // --help or -h was given
  std::vector<std::string> positional;  // arguments that are not flags
};

namespace config_internal {

// The value of a key independent of the options type. Durations are int64
// milliseconds; enums are their names.
using Value = std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

enum class Kind { kBool, kInt, kDouble, kString, kStringList, kDuration, kEnum };

// One row of the table.
struct Entry {
  std::string key;
  Kind kind = Kind::kString;
  std::string help;
  int64_t int_min = 0, int_max = 0;  // kInt and kDuration (ms)
  double double_min = 0, double_max = 0;
  std::vector<std::string> allowed;  // kEnum
  Value default_value;
  std::function<void(void* opts, const Value&)> store;  // value already validated
  std::function<Value(const void* opts)> load;
  // A rule beyond type and bounds: returns what was expected ("a power of
  // two"), or "" when `v` is fine.
  std::function<std::string(const Value& v)> check;
};

// The type-independent engine behind ConfigTable<Opts>; `opts` pointers are
// the caller's options struct, touched only through Entry::store/load.
class TableCore {
 public:
  void AddEntry(Entry entry);
  void SetCheck(std::string_view key, std::function<std::string(const Value&)> check);
  Status definition_error() const { return definition_error_; }
  void SetDefaults(void* opts) const;
  Status LoadString(std::string_view text, std::string_view source, void* opts) const;
  Status LoadFile(const std::string& path, void* opts) const;
  Status ApplyOverride(std::string_view assignment, void* opts) const;
  Result<CommandLine> ParseArgs(int argc, const char* const* argv,
                                const std::vector<FlagAlias>& aliases) const;
  std::string HelpText(const std::vector<FlagAlias>& aliases) const;
  std::string Dump(const void* opts) const;
  Status CheckValues(const void* opts) const;
  Result<std::vector<std::string>> MissingKeys(std::string_view toml_text) const;
  const Entry* Find(std::string_view key) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
  Status definition_error_;
};

}  // namespace config_internal

// The table of keys for an options struct `Opts` (copyable, default
// constructible). Build it once at start-up; after that every method is const
// and safe to call from several threads.
//
// A mistake in the table itself (duplicate key, bad key syntax, a default out
// of its bounds, a key that is also another key's section) is recorded and
// returned by every Load*/ApplyOverride/ParseArgs call and by
// definition_error(), so tests catch it.
template <typename Opts>
class ConfigTable {
 public:
  // Boolean key. TOML: true/false. Command line: "true"/"false".
  void Add(std::string key, bool Opts::*field, bool def, std::string help) {
    AddSimple(std::move(key), config_internal::Kind::kBool, field, def, std::move(help));
  }

  // Integer key with inclusive bounds. Any integral field type whose bounds fit
  // in int64.
  template <typename T>
  requires(std::integral<T> && !std::same_as<T, bool>) void Add(
      std::string key, T Opts::*field, std::type_identity_t<T> def,
      std::type_identity_t<T> min, std::type_identity_t<T> max, std::string help) {
    config_internal::Entry e =
        MakeEntry(std::move(key), config_internal::Kind::kInt, std::move(help));
    e.int_min = ToInt64(min);
    e.int_max = ToInt64(max);
    e.default_value = ToInt64(def);
    e.store = [field](void* o, const config_internal::Value& v) {
      static_cast<Opts*>(o)->*field = static_cast<T>(std::get<int64_t>(v));
    };
    e.load = [field](const void* o) -> config_internal::Value {
      return ToInt64(static_cast<const Opts*>(o)->*field);
    };
    core_.AddEntry(std::move(e));
  }

  // A rule for an added key beyond its type and bounds, checked wherever a
  // value is loaded (so its errors carry file and line): `check` returns what
  // was expected, or "" when the value is fine.
  void Check(std::string_view key,
             std::function<std::string(const config_internal::Value&)> check) {
    core_.SetCheck(key, std::move(check));
  }

  // Floating-point key with inclusive bounds. TOML integers are accepted too.
  void Add(std::string key, double Opts::*field, double def, double min, double max,
           std::string help) {
    config_internal::Entry e =
        MakeEntry(std::move(key), config_internal::Kind::kDouble, std::move(help));
    e.double_min = min;
    e.double_max = max;
    e.default_value = def;
    BindSame<double>(e, field);
    core_.AddEntry(std::move(e));
  }

  // String key.
  void Add(std::string key, std::string Opts::*field, std::string def, std::string help) {
    AddSimple(std::move(key), config_internal::Kind::kString, field, std::move(def),
              std::move(help));
  }

  // List of strings. TOML: an array of strings. Command line: comma-separated
  // items ("a,b"), or a TOML array ("[\"a,1\", \"b\"]") when items hold commas.
  void Add(std::string key, std::vector<std::string> Opts::*field,
           std::vector<std::string> def, std::string help) {
    AddSimple(std::move(key), config_internal::Kind::kStringList, field, std::move(def),
              std::move(help));
  }

  // Duration with inclusive bounds. TOML: an integer (milliseconds) or a
  // string accepted by ParseDuration ("250ms", "2s", "5m", "1h").
  void Add(std::string key, std::chrono::milliseconds Opts::*field,
           std::chrono::milliseconds def, std::chrono::milliseconds min,
           std::chrono::milliseconds max, std::string help) {
    config_internal::Entry e =
        MakeEntry(std::move(key), config_internal::Kind::kDuration, std::move(help));
    e.int_min = min.count();
    e.int_max = max.count();
    e.default_value = static_cast<int64_t>(def.count());
    e.store = [field](void* o, const config_internal::Value& v) {
      static_cast<Opts*>(o)->*field = std::chrono::milliseconds(std::get<int64_t>(v));
    };
    e.load = [field](const void* o) -> config_internal::Value {
      return static_cast<int64_t>((static_cast<const Opts*>(o)->*field).count());
    };
    core_.AddEntry(std::move(e));
  }

  // String restricted to a set of names, e.g. durability = "wal" | "fsync".
  void AddEnum(std::string key, std::string Opts::*field, std::string def,
               std::vector<std::string> allowed, std::string help) {
    config_internal::Entry e =
        MakeEntry(std::move(key), config_internal::Kind::kEnum, std::move(help));
    e.allowed = std::move(allowed);
    e.default_value = std::move(def);
    BindSame<std::string>(e, field);
    core_.AddEntry(std::move(e));
  }

  // A C++ enum spelled by names in the config: {{"wal", Durability::kWal}, ...}.
  template <typename E>
  requires std::is_enum_v<E>
  void AddEnum(std::string key, E Opts::*field, E def,
               std::vector<std::pair<std::string, E>> names, std::string help) {
    config_internal::Entry e =
        MakeEntry(std::move(key), config_internal::Kind::kEnum, std::move(help));
    for (const auto& [name, value] : names) e.allowed.push_back(name);
    e.default_value = NameOf(names, def);
    e.store = [field, names](void* o, const config_internal::Value& v) {
      for (const auto& [name, value] : names) {
        if (name == std::get<std::string>(v)) static_cast<Opts*>(o)->*field = value;
      }
    };
    e.load = [field, names](const void* o) -> config_internal::Value {
      return NameOf(names, static_cast<const Opts*>(o)->*field);
    };
    core_.AddEntry(std::move(e));
  }

  // OK, or the first mistake made while building the table.
  Status definition_error() const { return core_.definition_error(); }

  // An Opts with every key at its default.
  Opts Defaults() const {
    Opts opts;
    core_.SetDefaults(&opts);
    return opts;
  }

  // Applies the keys present in TOML `text` on top of *opts (keys absent from
  // the text keep their value). `source` names the text in errors
  // ("<source>:<line>: unknown key 'server.lisen'"). All errors of the text
  // are reported, one per line. On failure *opts is unchanged.
  Status LoadString(std::string_view text, Opts* opts,
                    std::string_view source = "<config>") const {
    return Atomically(opts,
                      [&](Opts* tmp) { return core_.LoadString(text, source, tmp); });
  }

  // LoadString on the contents of a file; IoError if it cannot be read.
  Status LoadFile(const std::string& path, Opts* opts) const {
    return Atomically(opts, [&](Opts* tmp) { return core_.LoadFile(path, tmp); });
  }

  // Applies one "section.key=value" (as given to --set); the value is parsed
  // per the key's type. On failure *opts is unchanged.
  Status ApplyOverride(std::string_view assignment, Opts* opts) const {
    return core_.ApplyOverride(assignment, opts);
  }

  // Parses argv[1..argc): --config PATH, --set KEY=VALUE (repeatable),
  // --help/-h, the dedicated flags of `aliases`, and positional arguments;
  // "--" ends the flags. Values are checked later, by Load. Fails on an unknown
  // flag, a missing value, or an alias naming an unknown key.
  Result<CommandLine> ParseArgs(int argc, const char* const* argv,
                                const std::vector<FlagAlias>& aliases = {}) const {
    return core_.ParseArgs(argc, argv, aliases);
  }

  // The effective options: defaults, then the file (if any), then overrides.
  Result<Opts> Load(const CommandLine& command_line) const {
    Opts opts = Defaults();
    CRAWLFRONT_RETURN_IF_ERROR(definition_error());
    if (!command_line.config_path.empty()) {
      CRAWLFRONT_RETURN_IF_ERROR(LoadFile(command_line.config_path, &opts));
    }
    for (const std::string& assignment : command_line.overrides) {
      CRAWLFRONT_RETURN_IF_ERROR(ApplyOverride(assignment, &opts));
    }
    return opts;
  }

  // One paragraph per key: name, default, type/bounds, dedicated flag, help.
  std::string HelpText(const std::vector<FlagAlias>& aliases = {}) const {
    return core_.HelpText(aliases);
  }

  // The values of `opts` as a TOML document that LoadString accepts back.
  std::string Dump(const Opts& opts) const { return core_.Dump(&opts); }

  // Every value of `opts` against its key's bounds and rules (Check), for
  // options built in code rather than loaded: "key: expected ..., got ...".
  Status CheckValues(const Opts& opts) const { return core_.CheckValues(&opts); }

  // Keys of the table that the TOML `toml_text` does not set (in table order);
  // InvalidArgument if the text does not parse. Keeps sample configs complete.
  Result<std::vector<std::string>> MissingKeys(std::string_view toml_text) const {
    return core_.MissingKeys(toml_text);
  }

 private:
  template <typename T>
  static int64_t ToInt64(T v) {
    // Clamped: TOML integers are int64, so wider values never come from a file.
    if (!std::in_range<int64_t>(v)) return v < 0 ? INT64_MIN : INT64_MAX;
    return static_cast<int64_t>(v);
  }

  template <typename E>
  static std::string NameOf(const std::vector<std::pair<std::string, E>>& names, E v) {
    for (const auto& [name, value] : names) {
      if (value == v) return name;
    }
    return "";  // not in the table: fails the enum check as a default
  }

  static config_internal::Entry MakeEntry(std::string key, config_internal::Kind kind,
                                          std::string help) {
    config_internal::Entry e;
    e.key = std::move(key);
    e.kind = kind;
    e.help = std::move(help);
    return e;
  }

  // Binds a field whose C++ type is the Value alternative T.
  template <typename T>
  static void BindSame(config_internal::Entry& e, T Opts::*field) {
    e.store = [field](void* o, const config_internal::Value& v) {
      static_cast<Opts*>(o)->*field = std::get<T>(v);
    };
    e.load = [field](const void* o) -> config_internal::Value {
      return static_cast<const Opts*>(o)->*field;
    };
  }

  template <typename T>
  void AddSimple(std::string key, config_internal::Kind kind, T Opts::*field, T def,
                 std::string help) {
    config_internal::Entry e = MakeEntry(std::move(key), kind, std::move(help));
    e.default_value = std::move(def);
    BindSame<T>(e, field);
    core_.AddEntry(std::move(e));
  }

  template <typename Fn>
  Status Atomically(Opts* opts, Fn fn) const {
    Opts tmp = *opts;
    Status st = fn(&tmp);
    if (st.ok()) *opts = std::move(tmp);
    return st;
  }

  config_internal::TableCore core_;
};

}  // namespace crawlfront
