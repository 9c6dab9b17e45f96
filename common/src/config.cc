#include "crawlfront/common/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace crawlfront {

using config_internal::Entry;
using config_internal::Kind;
using config_internal::TableCore;
using config_internal::Value;
using std::chrono::milliseconds;

namespace {

constexpr int64_t kMsPerSecond = 1000;
constexpr int64_t kMsPerMinute = 60 * kMsPerSecond;
constexpr int64_t kMsPerHour = 60 * kMsPerMinute;

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string FormatDouble(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  // TOML needs a '.' or exponent to read a float back as a float.
  if (s.find_first_of(".eEni") == std::string::npos) s += ".0";
  return s;
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

// The TOML spelling of a value of entry `e`.
std::string Render(const Entry& e, const Value& v) {
  switch (e.kind) {
    case Kind::kBool:
      return std::get<bool>(v) ? "true" : "false";
    case Kind::kInt:
      return std::to_string(std::get<int64_t>(v));
    case Kind::kDouble:
      return FormatDouble(std::get<double>(v));
    case Kind::kDuration:
      return Quote(FormatDuration(milliseconds(std::get<int64_t>(v))));
    case Kind::kString:
    case Kind::kEnum:
      return Quote(std::get<std::string>(v));
    case Kind::kStringList: {
      std::vector<std::string> quoted;
      for (const auto& s : std::get<std::vector<std::string>>(v))
        quoted.push_back(Quote(s));
      return "[" + Join(quoted, ", ") + "]";
    }
  }
  return "";
}

// What the entry accepts, as said in errors and help.
std::string Expected(const Entry& e) {
  switch (e.kind) {
    case Kind::kBool:
      return "boolean";
    case Kind::kInt:
      return "integer in [" + std::to_string(e.int_min) + ", " +
             std::to_string(e.int_max) + "]";
    case Kind::kDouble:
      return "float in [" + FormatDouble(e.double_min) + ", " +
             FormatDouble(e.double_max) + "]";
    case Kind::kDuration:
      return "duration in [" + FormatDuration(milliseconds(e.int_min)) + ", " +
             FormatDuration(milliseconds(e.int_max)) +
             "] (integer ms, or a string like \"250ms\", \"2s\", \"5m\", \"1h\")";
    case Kind::kString:
      return "string";
    case Kind::kStringList:
      return "array of strings";
    case Kind::kEnum: {
      std::vector<std::string> quoted;
      for (const auto& s : e.allowed) quoted.push_back(Quote(s));
      return "one of " + Join(quoted, ", ");
    }
  }
  return "";
}

// Bounds and enum membership; the message says what was expected.
Status Validate(const Entry& e, const Value& v) {
  bool ok = true;
  if (e.kind == Kind::kInt || e.kind == Kind::kDuration) {
    int64_t x = std::get<int64_t>(v);
    ok = x >= e.int_min && x <= e.int_max;
  } else if (e.kind == Kind::kDouble) {
    double x = std::get<double>(v);
    ok = x >= e.double_min && x <= e.double_max;  // false for NaN
  } else if (e.kind == Kind::kEnum) {
    const auto& s = std::get<std::string>(v);
    ok = std::find(e.allowed.begin(), e.allowed.end(), s) != e.allowed.end();
  }
  if (!ok) return Status::InvalidArgument("expected " + Expected(e) + ", got " + Render(e, v));
  if (e.check) {
    std::string expected = e.check(v);
    if (!expected.empty()) {
      return Status::InvalidArgument("expected " + expected + ", got " + Render(e, v));
    }
  }
  return Status::Ok();
}

std::string NodeTypeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    default:
      return "nothing";
  }
}

// Converts a TOML node to the entry's value (not yet bounds-checked).
Result<Value> FromNode(const Entry& e, const toml::node& n) {
  auto wrong = [&] {
    return Status::InvalidArgument("expected " + Expected(e) + ", got " +
                                   NodeTypeName(n));
  };
  switch (e.kind) {
    case Kind::kBool:
      if (auto b = n.as_boolean()) return Value(b->get());
      return wrong();
    case Kind::kInt:
      if (auto i = n.as_integer()) return Value(i->get());
      return wrong();
    case Kind::kDouble:
      if (auto d = n.as_floating_point()) return Value(d->get());
      if (auto i = n.as_integer()) return Value(static_cast<double>(i->get()));
      return wrong();
    case Kind::kDuration:
      if (auto i = n.as_integer()) return Value(i->get());
      if (auto s = n.as_string()) {
        auto d = ParseDuration(s->get());
        if (!d.ok())
          return Status::InvalidArgument("expected " + Expected(e) + ", got " +
                                         Quote(s->get()));
        return Value(static_cast<int64_t>(d->count()));
      }
      return wrong();
    case Kind::kString:
    case Kind::kEnum:
      if (auto s = n.as_string()) return Value(s->get());
      return wrong();
    case Kind::kStringList: {
      auto a = n.as_array();
      if (!a) return wrong();
      std::vector<std::string> items;
      for (const toml::node& item : *a) {
        auto s = item.as_string();
        if (!s) return wrong();
        items.push_back(s->get());
      }
      return Value(std::move(items));
    }
  }
  return wrong();
}

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Result<Value> ListFromText(const Entry& e, std::string_view text) {
  if (!text.empty() && text.front() == '[') {
    try {
      toml::table t = toml::parse("v = " + std::string(text));
      return FromNode(e, *t.get("v"));
    } catch (const toml::parse_error& err) {
      return Status::InvalidArgument("expected a TOML array of strings: " +
                                     std::string(err.description()));
    }
  }
  std::vector<std::string> items;
  size_t start = 0;
  while (!text.empty() && start <= text.size()) {  // ends after the last comma
    size_t comma = std::min(text.find(',', start), text.size());
    items.emplace_back(Trim(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return Value(std::move(items));
}

// Converts command-line text to the entry's value (not yet bounds-checked).
Result<Value> FromText(const Entry& e, std::string_view text) {
  auto wrong = [&] {
    return Status::InvalidArgument("expected " + Expected(e) + ", got " + Quote(text));
  };
  switch (e.kind) {
    case Kind::kBool:
      if (text == "true" || text == "false") return Value(text == "true");
      return wrong();
    case Kind::kInt: {
      int64_t i = 0;
      if (ParseNumber(text, &i)) return Value(i);
      return wrong();
    }
    case Kind::kDouble: {
      double d = 0;
      if (ParseNumber(text, &d)) return Value(d);
      return wrong();
    }
    case Kind::kDuration: {
      auto d = ParseDuration(text);
      if (d.ok()) return Value(static_cast<int64_t>(d->count()));
      return wrong();
    }
    case Kind::kString:
    case Kind::kEnum:
      return Value(std::string(text));
    case Kind::kStringList:
      return ListFromText(e, text);
  }
  return wrong();
}

// RFC 3629 UTF-8 (no overlongs, surrogates or code points past U+10FFFF), as
// TOML requires, so a --set string can always be dumped as TOML.
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80                 ? 1
                 : c >= 0xC2 && c <= 0xDF ? 2
                 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4
                                          : 0;
    if (len == 0 || i + len > s.size()) return false;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    for (size_t k = 1; k < len; ++k) {
      auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
    }
    i += len;
  }
  return true;
}

bool ValidKey(std::string_view key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  char prev = 0;
  for (char c : key) {
    bool bare = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    if (!bare && c != '.') return false;
    if (c == '.' && prev == '.') return false;
    prev = c;
  }
  return true;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string Section(std::string_view key) {
  size_t dot = key.rfind('.');
  return dot == std::string_view::npos ? "" : std::string(key.substr(0, dot));
}

std::string LastPart(std::string_view key) {
  size_t dot = key.rfind('.');
  return std::string(dot == std::string_view::npos ? key : key.substr(dot + 1));
}

struct LocatedError {
  uint32_t line;
  std::string text;
};

}  // namespace

Result<milliseconds> ParseDuration(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::string_view unit = text.substr(digits);
  int64_t scale = 0;
  if (unit.empty() || unit == "ms") scale = 1;
  if (unit == "s") scale = kMsPerSecond;
  if (unit == "m") scale = kMsPerMinute;
  if (unit == "h") scale = kMsPerHour;
  int64_t n = 0;
  if (digits == 0 || scale == 0 || !ParseNumber(text.substr(0, digits), &n)) {
    return Status::InvalidArgument("bad duration " + Quote(text) +
                                   ": expected an integer with unit ms, s, m or h");
  }
  int64_t ms = 0;
  if (__builtin_mul_overflow(n, scale, &ms)) {
    return Status::InvalidArgument("duration " + Quote(text) + " is too large");
  }
  return milliseconds(ms);
}

std::string FormatDuration(milliseconds d) {
  int64_t ms = d.count();
  if (ms != 0 && ms % kMsPerHour == 0) return std::to_string(ms / kMsPerHour) + "h";
  if (ms != 0 && ms % kMsPerMinute == 0) return std::to_string(ms / kMsPerMinute) + "m";
  if (ms != 0 && ms % kMsPerSecond == 0) return std::to_string(ms / kMsPerSecond) + "s";
  return std::to_string(ms) + "ms";
}

namespace config_internal {

void TableCore::AddEntry(Entry entry) {
  auto fail = [&](const std::string& why) {
    if (definition_error_.ok()) {
      definition_error_ = Status::Internal("config key '" + entry.key + "': " + why);
    }
  };
  if (!ValidKey(entry.key)) return fail("not of the form section.key ([A-Za-z0-9_-])");
  for (const Entry& other : entries_) {
    if (other.key == entry.key) return fail("declared twice");
    if (other.key.starts_with(entry.key + ".") ||
        entry.key.starts_with(other.key + ".")) {
      return fail("clashes with key '" + other.key + "' (a key cannot be a section)");
    }
  }
  if ((entry.kind == Kind::kInt || entry.kind == Kind::kDuration) &&
      entry.int_min > entry.int_max) {
    return fail("min > max");
  }
  if (entry.kind == Kind::kDouble && !(entry.double_min <= entry.double_max)) {
    return fail("min > max");
  }
  Status st = Validate(entry, entry.default_value);
  if (!st.ok()) return fail("bad default: " + st.message());
  entries_.push_back(std::move(entry));
}

void TableCore::SetCheck(std::string_view key, std::function<std::string(const Value&)> check) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.key == key; });
  if (it == entries_.end()) {
    if (definition_error_.ok()) {
      definition_error_ = Status::Internal("check for unknown config key '" + std::string(key) + "'");
    }
    return;
  }
  it->check = std::move(check);
  Status st = Validate(*it, it->default_value);
  if (!st.ok() && definition_error_.ok()) {
    definition_error_ = Status::Internal("config key '" + it->key + "': bad default: " + st.message());
  }
}

const Entry* TableCore::Find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

void TableCore::SetDefaults(void* opts) const {
  for (const Entry& e : entries_) e.store(opts, e.default_value);
}

namespace {

// "unknown key 'x'", or "unknown section 'x'" for a table, with the closest
// known name when it is a likely misspelling.
std::string Unknown(const TableCore& core, std::string_view path, bool is_table) {
  std::vector<std::string> names;
  for (const Entry& e : core.entries()) {
    names.push_back(is_table ? Section(e.key) : e.key);
  }
  std::string msg = std::string(is_table ? "unknown section '" : "unknown key '") +
                    std::string(path) + "'";
  const std::string* best = nullptr;
  size_t best_distance = 3;  // suggest only close misspellings
  for (const std::string& name : names) {
    size_t d = EditDistance(path, name);
    if (!name.empty() && d < best_distance) best = &name, best_distance = d;
  }
  if (best) msg += " (did you mean '" + *best + "'?)";
  return msg;
}

bool IsSection(const TableCore& core, std::string_view path) {
  for (const Entry& e : core.entries()) {
    if (e.key.size() > path.size() && e.key.starts_with(path) &&
        e.key[path.size()] == '.') {
      return true;
    }
  }
  return false;
}

// Applies every key of `table` (whose dotted path is `prefix`); collects errors.
void ApplyTable(const TableCore& core, const toml::table& table,
                const std::string& prefix, void* opts,
                std::vector<LocatedError>* errors) {
  for (const auto& [k, node] : table) {
    std::string path =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    uint32_t line = k.source().begin.line;
    const Entry* e = core.Find(path);
    if (e == nullptr && node.is_table() && IsSection(core, path)) {
      ApplyTable(core, *node.as_table(), path, opts, errors);
      continue;
    }
    if (e == nullptr) {
      errors->push_back({line, Unknown(core, path, node.is_table())});
      continue;
    }
    Result<Value> v = FromNode(*e, node);
    Status st = v.ok() ? Validate(*e, *v) : v.status();
    if (!st.ok()) {
      errors->push_back({line, "key '" + path + "': " + st.message()});
      continue;
    }
    e->store(opts, *v);
  }
}

}  // namespace

Status TableCore::LoadString(std::string_view text, std::string_view source,
                             void* opts) const {
  CRAWLFRONT_RETURN_IF_ERROR(definition_error_);
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& err) {
    const auto& pos = err.source().begin;
    return Status::InvalidArgument(
        std::string(source) + ":" + std::to_string(pos.line) + ":" +
        std::to_string(pos.column) +
        ": TOML syntax error: " + std::string(err.description()));
  }
  std::vector<LocatedError> errors;
  ApplyTable(*this, table, "", opts, &errors);
  if (errors.empty()) return Status::Ok();
  std::stable_sort(errors.begin(), errors.end(),
                   [](const auto& a, const auto& b) { return a.line < b.line; });
  std::vector<std::string> lines;
  for (const auto& err : errors) {
    lines.push_back(std::string(source) + ":" + std::to_string(err.line) + ": " +
                    err.text);
  }
  return Status::InvalidArgument(Join(lines, "\n"));
}

Status TableCore::LoadFile(const std::string& path, void* opts) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError("cannot open config file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError("cannot read config file '" + path + "'");
  return LoadString(text.str(), path, opts);
}

Status TableCore::ApplyOverride(std::string_view assignment, void* opts) const {
  CRAWLFRONT_RETURN_IF_ERROR(definition_error_);
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    return Status::InvalidArgument("override '" + std::string(assignment) +
                                   "': expected section.key=value");
  }
  if (!IsUtf8(assignment)) {
    return Status::InvalidArgument("override is not valid UTF-8");
  }
  std::string_view key = assignment.substr(0, eq);
  const Entry* e = Find(key);
  if (e == nullptr) {
    return Status::InvalidArgument("override '" + std::string(assignment) +
                                   "': " + Unknown(*this, key, false));
  }
  Result<Value> v = FromText(*e, assignment.substr(eq + 1));
  Status st = v.ok() ? Validate(*e, *v) : v.status();
  if (!st.ok()) {
    return Status::InvalidArgument("override '" + std::string(assignment) + "': key '" +
                                   e->key + "': " + st.message());
  }
  e->store(opts, *v);
  return Status::Ok();
}

namespace {

const FlagAlias* FindAlias(const std::vector<FlagAlias>& aliases, std::string_view name) {
  for (const FlagAlias& a : aliases) {
    if (name.substr(0, 2) == "--" && name.substr(2) == a.flag) return &a;
  }
  return nullptr;
}

// Handles the flag argv[*i] ("--name" or "--name=value"), consuming its value
// argument if it takes one.
Status ParseFlag(const TableCore& core, int argc, const char* const* argv, int* i,
                 const std::vector<FlagAlias>& aliases, CommandLine* cl) {
  std::string_view arg = argv[*i];
  size_t eq = arg.find('=');
  std::string_view name = arg.substr(0, eq);
  const FlagAlias* alias = FindAlias(aliases, name);
  if (name != "--config" && name != "--set" && alias == nullptr) {
    return Status::InvalidArgument("unknown flag '" + std::string(name) + "'");
  }
  std::string value;
  if (eq != std::string_view::npos) {
    value = arg.substr(eq + 1);
  } else if (alias != nullptr && core.Find(alias->key)->kind == Kind::kBool) {
    value = "true";  // a boolean flag alone switches the key on
  } else if (*i + 1 < argc) {
    value = argv[++*i];
  } else {
    return Status::InvalidArgument("flag '" + std::string(name) + "' needs a value");
  }
  if (name == "--config") {
    cl->config_path = value;
  } else if (name == "--set") {
    cl->overrides.push_back(value);
  } else {
    cl->overrides.push_back(alias->key + "=" + value);
  }
  return Status::Ok();
}

}  // namespace

Result<CommandLine> TableCore::ParseArgs(int argc, const char* const* argv,
                                         const std::vector<FlagAlias>& aliases) const {
  CRAWLFRONT_RETURN_IF_ERROR(definition_error_);
  for (const FlagAlias& a : aliases) {
    if (Find(a.key) == nullptr) {
      return Status::Internal("flag --" + a.flag + " maps to unknown key '" + a.key +
                              "'");
    }
  }
  CommandLine cl;
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (flags_done || !arg.starts_with("-") || arg == "-") {
      cl.positional.emplace_back(arg);
    } else if (arg == "--") {
      flags_done = true;
    } else if (arg == "--help" || arg == "-h") {
      cl.help = true;
    } else {
      CRAWLFRONT_RETURN_IF_ERROR(ParseFlag(*this, argc, argv, &i, aliases, &cl));
    }
  }
  return cl;
}

std::string TableCore::HelpText(const std::vector<FlagAlias>& aliases) const {
  std::string out;
  for (const Entry& e : entries_) {
    out += e.key + " = " + Render(e, e.default_value) + "\n    " + Expected(e);
    for (const FlagAlias& a : aliases) {
      if (a.key == e.key) out += "; flag --" + a.flag;
    }
    out += "\n    " + e.help + "\n";
  }
  return out;
}

Status TableCore::CheckValues(const void* opts) const {
  CRAWLFRONT_RETURN_IF_ERROR(definition_error_);
  for (const Entry& e : entries_) {
    Status st = Validate(e, e.load(opts));
    if (!st.ok()) return Status::InvalidArgument(e.key + ": " + st.message());
  }
  return Status::Ok();
}

std::string TableCore::Dump(const void* opts) const {
  // Sections in order of first appearance; top-level keys must precede them.
  std::vector<std::string> sections = {""};
  std::map<std::string, std::string> body;
  for (const Entry& e : entries_) {
    std::string section = Section(e.key);
    if (!body.count(section) && !section.empty()) sections.push_back(section);
    body[section] += LastPart(e.key) + " = " + Render(e, e.load(opts)) + "\n";
  }
  std::string out;
  for (const std::string& section : sections) {
    if (!body.count(section)) continue;
    if (!section.empty()) out += (out.empty() ? "[" : "\n[") + section + "]\n";
    out += body[section];
  }
  return out;
}

Result<std::vector<std::string>> TableCore::MissingKeys(
    std::string_view toml_text) const {
  toml::table table;
  try {
    table = toml::parse(toml_text);
  } catch (const toml::parse_error& err) {
    return Status::InvalidArgument(
        "line " + std::to_string(err.source().begin.line) +
        ": TOML syntax error: " + std::string(err.description()));
  }
  std::vector<std::string> missing;
  for (const Entry& e : entries_) {
    if (!table.at_path(e.key)) missing.push_back(e.key);
  }
  return missing;
}

}  // namespace config_internal
}  // namespace crawlfront
