#include "crawlfront/worker/robots.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace crawlfront {
namespace {

// Longer lines are cut here (Google's parser uses the same order of
// magnitude): no real rule is this long, and it bounds the matching cost.
constexpr size_t kMaxLineBytes = 16 * 1024;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return AsciiLower(c) - 'a' + 10;
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

// Characters a URL may carry unencoded (RFC 3986 unreserved + reserved, '%').
bool MayStayRaw(unsigned char c) {
  if (IsUnreserved(c)) return true;
  return std::string_view(":/?#[]@!$&'()*+,;=%").find(static_cast<char>(c)) !=
         std::string_view::npos;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// Brings a pattern or a path to one spelling so that equivalent encodings
// match (RFC 9309 section 2.2.2): %XX of an unreserved character is decoded,
// other %xx get upper-case hex, and bytes a URL cannot hold raw (non-ASCII,
// controls, space, "<>\"{}|\\^`") are percent-encoded.
std::string NormalizeEncoding(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '%' && i + 2 < in.size() && IsHex(in[i + 1]) && IsHex(in[i + 2])) {
      const auto decoded =
          static_cast<unsigned char>(HexValue(in[i + 1]) * 16 + HexValue(in[i + 2]));
      if (IsUnreserved(decoded)) {
        out.push_back(static_cast<char>(decoded));
      } else {
        out.push_back('%');
        out.push_back(kHex[decoded >> 4]);
        out.push_back(kHex[decoded & 0xF]);
      }
      i += 2;
    } else if (MayStayRaw(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace

// Segments between '*'s, each at its leftmost place after the one before:
// if any placement exists, the leftmost ones do, since a segment placed
// earlier leaves more room for the rest. Each search is linear (glibc's
// memmem), so a rule costs O(|path| + |pattern|). Backtracking over the
// last '*' cost O(|path| * |pattern|): a 500 KiB robots.txt of rules like
// "/*aaa...a7" took 0.43 s per check of a 1000-byte path.
bool RobotsPatternMatches(std::string_view pattern, std::string_view path) {
  const bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  size_t star = pattern.find('*');
  const std::string_view first = pattern.substr(0, star);
  if (!path.starts_with(first)) return false;
  if (star == std::string_view::npos) return !anchored || path.size() == first.size();
  size_t at = first.size();
  for (;;) {
    const size_t next = pattern.find('*', star + 1);
    const std::string_view seg = pattern.substr(star + 1, next - star - 1);
    if (next == std::string_view::npos && anchored) {
      // The last segment ends the path, after what is placed already.
      return path.size() - at >= seg.size() && path.ends_with(seg);
    }
    if (!seg.empty()) {
      const void* hit = memmem(path.data() + at, path.size() - at, seg.data(), seg.size());
      if (hit == nullptr) return false;
      at = static_cast<size_t>(static_cast<const char*>(hit) - path.data()) + seg.size();
    }
    if (next == std::string_view::npos) return true;
    star = next;
  }
}

namespace {

// The leading [A-Za-z_-] run: "Googlebot/2.1 (+http://...)" -> "Googlebot".
std::string_view ProductToken(std::string_view value) {
  size_t n = 0;
  while (n < value.size()) {
    const char c = value[n];
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
    if (!ok) break;
    ++n;
  }
  return value.substr(0, n);
}

enum class Key { kUserAgent, kAllow, kDisallow, kCrawlDelay, kSitemap, kUnknown };

// Accepts the spellings and frequent typos that Google's parser accepts.
Key ClassifyKey(std::string_view key) {
  struct Spelling {
    std::string_view text;
    Key key;
  };
  static constexpr Spelling kSpellings[] = {
      {"user-agent", Key::kUserAgent},   {"useragent", Key::kUserAgent},
      {"user agent", Key::kUserAgent},   {"allow", Key::kAllow},
      {"disallow", Key::kDisallow},      {"dissallow", Key::kDisallow},
      {"dissalow", Key::kDisallow},      {"disalow", Key::kDisallow},
      {"diasllow", Key::kDisallow},      {"disallaw", Key::kDisallow},
      {"crawl-delay", Key::kCrawlDelay}, {"crawldelay", Key::kCrawlDelay},
      {"crawl delay", Key::kCrawlDelay}, {"sitemap", Key::kSitemap},
      {"site-map", Key::kSitemap},
  };
  for (const Spelling& s : kSpellings) {
    if (EqualsIgnoreCase(key, s.text)) return s.key;
  }
  return Key::kUnknown;
}

// Splits "key: value" (comment already removed). Like Google's parser, a
// line without ':' is accepted when it is exactly two whitespace-separated
// words ("Disallow /x"). Returns false for lines that are not key/value.
bool SplitKeyValue(std::string_view line, std::string_view* key,
                   std::string_view* value) {
  line = Trim(line);
  size_t sep = line.find(':');
  size_t value_start = sep + 1;
  if (sep == std::string_view::npos) {
    sep = line.find_first_of(" \t");
    if (sep == std::string_view::npos) return false;
    value_start = sep;
    if (Trim(line.substr(value_start)).find_first_of(" \t") != std::string_view::npos) {
      return false;
    }
  }
  *key = Trim(line.substr(0, sep));
  *value = Trim(line.substr(value_start));
  return !key->empty();
}

// Leading number of `value` ("1.5", "10 seconds"); with `whole`, nothing may follow.
std::optional<double> ParseDelay(std::string_view value, bool whole = false) {
  double seconds = 0;
  const char* const last = value.data() + value.size();
  const auto [end, ec] = std::from_chars(value.data(), last, seconds);
  if (ec != std::errc() || end == value.data() || (whole && end != last)) {
    return std::nullopt;
  }
  if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
  return seconds;
}

// Rules and delay gathered for one kind of group (ours or "*").
struct GroupRules {
  bool seen = false;
  std::vector<RobotsRule> rules;
  std::optional<double> delay;
};

// Line-by-line state machine of RFC 9309 section 2.1: consecutive
// user-agent lines open a group; a rule line closes the header.
class Parser {
 public:
  explicit Parser(std::string_view product_token) : token_(ProductToken(product_token)) {}

  void Line(std::string_view line) {
    line = line.substr(0, std::min(line.find('#'), kMaxLineBytes));
    std::string_view key, value;
    if (!SplitKeyValue(line, &key, &value)) return;
    switch (ClassifyKey(key)) {
      case Key::kUserAgent:
        return UserAgent(value);
      case Key::kAllow:
        return Rule(value, true);
      case Key::kDisallow:
        return Rule(value, false);
      case Key::kCrawlDelay:
        return Delay(value);
      case Key::kSitemap:
        return Sitemap(value);
      case Key::kUnknown:
        return;  // Unknown lines do not close a header.
    }
  }

  // Our groups if any named us, else the "*" groups (RFC 9309 section 2.2.1).
  GroupRules& Selected() { return ours_.seen ? ours_ : global_; }
  std::vector<std::string>& sitemaps() { return sitemaps_; }

 private:
  void UserAgent(std::string_view value) {
    if (!in_header_) current_ours_ = current_global_ = false;
    in_header_ = true;
    if (!value.empty() && value[0] == '*' && (value.size() == 1 || IsSpace(value[1]))) {
      current_global_ = global_.seen = true;
    } else if (!token_.empty() && EqualsIgnoreCase(ProductToken(value), token_)) {
      current_ours_ = ours_.seen = true;
    }
  }

  void Rule(std::string_view value, bool allow) {
    in_header_ = false;
    if (value.empty()) return;  // "Disallow:" with no path matches nothing.
    RobotsRule rule{NormalizeEncoding(value), allow};
    if (current_ours_) ours_.rules.push_back(rule);
    if (current_global_) global_.rules.push_back(std::move(rule));
  }

  void Delay(std::string_view value) {
    in_header_ = false;
    const std::optional<double> delay = ParseDelay(value);
    if (!delay) return;
    if (current_ours_ && !ours_.delay) ours_.delay = delay;
    if (current_global_ && !global_.delay) global_.delay = delay;
  }

  void Sitemap(std::string_view value) {
    if (value.empty()) return;
    if (std::find(sitemaps_.begin(), sitemaps_.end(), value) != sitemaps_.end()) return;
    sitemaps_.emplace_back(value);
  }

  std::string_view token_;
  bool in_header_ = false;
  bool current_ours_ = false;
  bool current_global_ = false;
  GroupRules ours_;
  GroupRules global_;
  std::vector<std::string> sitemaps_;
};

// Applies the size cap and strips a UTF-8 BOM. A line cut by the cap is
// dropped: half a path would change the rule's meaning.
std::string_view UsableBody(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  if (body.size() <= kRobotsMaxBytes) return body;
  const std::string_view capped = body.substr(0, kRobotsMaxBytes);
  const char next = body[kRobotsMaxBytes];
  if (next == '\n' || next == '\r') return capped;
  const size_t last_break = capped.find_last_of("\r\n");
  return last_break == std::string_view::npos ? std::string_view()
                                              : capped.substr(0, last_break + 1);
}

}  // namespace

RobotsRules RobotsRules::AllowAll() { return RobotsRules(); }

RobotsRules RobotsRules::DisallowAll() {
  RobotsRules rules;
  rules.rules_.push_back({"/", false});
  rules.Finish();
  return rules;
}

void RobotsRules::Finish() {
  // Longest first, Allow first among equals (it wins a tie); the pattern
  // itself last, so duplicates end up adjacent and the order is canonical.
  std::sort(rules_.begin(), rules_.end(), [](const RobotsRule& a, const RobotsRule& b) {
    if (a.pattern.size() != b.pattern.size()) return a.pattern.size() > b.pattern.size();
    if (a.allow != b.allow) return a.allow;
    return a.pattern < b.pattern;
  });
  rules_.erase(std::unique(rules_.begin(), rules_.end()), rules_.end());
  pattern_bytes_ = 0;
  for (const RobotsRule& rule : rules_) pattern_bytes_ += rule.pattern.size();
}

bool RobotsRules::Allowed(std::string_view path_and_query) const {
  path_and_query = path_and_query.substr(0, path_and_query.find('#'));
  std::string path = NormalizeEncoding(path_and_query);
  if (path.empty() || path[0] != '/') path.insert(path.begin(), '/');
  if (std::string_view(path).substr(0, path.find('?')) == "/robots.txt") return true;
  for (const RobotsRule& rule : rules_) {
    if (RobotsPatternMatches(rule.pattern, path)) return rule.allow;
  }
  return true;
}

// Serialized form, one item per line, each line ending in '\n':
//   "robots 1" | "d <seconds>" | "a <pattern>" | "x <pattern>" | "s <sitemap>"
// Values never hold '\n' or '\r' (the parser splits lines on them).
std::string RobotsRules::Serialize() const {
  std::string out = "robots 1\n";
  if (crawl_delay_) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof(buf), *crawl_delay_);
    out.append("d ").append(buf, res.ptr).push_back('\n');
  }
  for (const RobotsRule& rule : rules_) {
    out.append(rule.allow ? "a " : "x ").append(rule.pattern).push_back('\n');
  }
  for (const std::string& sitemap : sitemaps_) {
    out.append("s ").append(sitemap).push_back('\n');
  }
  return out;
}

Result<RobotsRules> RobotsRules::Deserialize(std::string_view data) {
  constexpr std::string_view kHeader = "robots 1\n";
  if (data.substr(0, kHeader.size()) != kHeader) {
    return Status::Corruption("robots rules: missing or unknown version header");
  }
  data.remove_prefix(kHeader.size());
  RobotsRules rules;
  while (!data.empty()) {
    const size_t end = data.find('\n');
    if (end == std::string_view::npos)
      return Status::Corruption("robots rules: truncated");
    const std::string_view line = data.substr(0, end);
    data.remove_prefix(end + 1);
    if (line.size() < 3 || line[1] != ' ') {
      return Status::Corruption("robots rules: malformed line");
    }
    const std::string_view value = line.substr(2);
    switch (line[0]) {
      case 'd':
        if (rules.crawl_delay_) return Status::Corruption("robots rules: two delays");
        rules.crawl_delay_ = ParseDelay(value, /*whole=*/true);
        if (!rules.crawl_delay_) {
          return Status::Corruption("robots rules: bad crawl delay");
        }
        break;
      case 'a':
      case 'x':
        rules.rules_.push_back({std::string(value), line[0] == 'a'});
        break;
      case 's':
        rules.sitemaps_.emplace_back(value);
        break;
      default:
        return Status::Corruption("robots rules: unknown line tag");
    }
  }
  rules.Finish();
  return rules;
}

std::string_view RobotsProductToken(std::string_view user_agent) {
  return ProductToken(user_agent);
}

RobotsRules ParseRobots(std::string_view body, std::string_view product_token) {
  body = UsableBody(body);
  Parser parser(product_token);
  while (!body.empty()) {
    const size_t end = body.find_first_of("\r\n");
    parser.Line(body.substr(0, end));
    if (end == std::string_view::npos) break;
    // CR, LF and CRLF all end a line; the empty line CRLF leaves is harmless.
    body.remove_prefix(end + 1);
  }
  RobotsRules result;
  GroupRules& selected = parser.Selected();
  result.rules_ = std::move(selected.rules);
  result.crawl_delay_ = selected.delay;
  result.sitemaps_ = std::move(parser.sitemaps());
  result.Finish();
  return result;
}

RobotsRules ForFetchOutcome(int http_status, std::string_view body,
                            std::string_view product_token) {
  if (http_status >= 200 && http_status <= 299) return ParseRobots(body, product_token);
  if (http_status == 429) return RobotsRules::DisallowAll();
  if (http_status >= 300 && http_status <= 499) return RobotsRules::AllowAll();
  return RobotsRules::DisallowAll();
}

}  // namespace crawlfront
