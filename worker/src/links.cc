#include "crawlfront/worker/links.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "crawlfront/common/url.h"
#include "html_tokenizer.h"

namespace crawlfront {
namespace {

using html::Token;
using html::TokenType;

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (Lower(c) >= 'a' && Lower(c) <= 'f');
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Whether the `separators`-separated list `list` holds `word` (ASCII
// case-insensitive): rel="Alternate nofollow", content="noindex, nofollow".
bool ListContains(std::string_view list, std::string_view word,
                  std::string_view separators) {
  while (!list.empty()) {
    const size_t end = list.find_first_of(separators);
    if (EqualsIgnoreCase(TrimSpace(list.substr(0, end)), word)) return true;
    if (end == std::string_view::npos) break;
    list.remove_prefix(end + 1);
  }
  return false;
}

bool RelContains(const Token& tag, std::string_view word) {
  const html::Attribute* rel = tag.Find("rel");
  return rel != nullptr && ListContains(rel->value, word, " \t\n\f\r");
}

// Bytes a URI reference may hold raw; '[' and ']' only if `brackets`
// (they are legal in an IPv6 host but nowhere else).
bool MayStayRaw(unsigned char c, bool brackets) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
    return true;
  }
  if (brackets && (c == '[' || c == ']')) return true;
  return std::string_view("-._~:/?@!$&'()*+,;=").find(static_cast<char>(c)) !=
         std::string_view::npos;
}

// Turns an attribute value into an RFC 3986 URI reference the way a browser's
// URL parser would read it: outer spaces and controls trimmed, tabs and
// newlines removed, '\' as '/' before the query, the fragment dropped, and
// everything else that is not URI syntax percent-encoded.
void CleanHref(std::string_view href, bool brackets, std::string* cleaned) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  while (!href.empty() && static_cast<unsigned char>(href.front()) <= 0x20) {
    href.remove_prefix(1);
  }
  while (!href.empty() && static_cast<unsigned char>(href.back()) <= 0x20) {
    href.remove_suffix(1);
  }
  href = href.substr(0, href.find('#'));
  std::string& out = *cleaned;
  out.clear();
  bool in_query = false;
  for (size_t i = 0; i < href.size(); ++i) {
    const auto c = static_cast<unsigned char>(href[i]);
    if (c == '\t' || c == '\n' || c == '\r') continue;
    in_query = in_query || c == '?';
    if (c == '\\' && !in_query) {
      out.push_back('/');
    } else if (c == '%') {
      const bool escape = i + 2 < href.size() && IsHex(href[i + 1]) && IsHex(href[i + 2]);
      out.append(escape ? "%" : "%25");
    } else if (MayStayRaw(c, brackets)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
}

// Resolves and canonicalizes hrefs against a base in one step (common/'s
// UrlResolver, the same rules as every URL the frontier takes in); keeps its
// buffers between calls because this is the hot part of extraction.
class Resolver {
 public:
  // `base` empty or unusable: only absolute hrefs resolve.
  explicit Resolver(std::string_view base) : base_(base, UrlOpts()) {}

  // The canonical absolute http(s) URL, or nothing.
  std::optional<std::string> Resolve(std::string_view href) {
    CleanHref(href, /*brackets=*/true, &cleaned_);
    Result<CanonicalUrl> url = ResolveCleaned();
    // '[' and ']' are legal only in an IPv6 host: failing that, escape them.
    if (!url.ok() && cleaned_.find_first_of("[]") != std::string::npos) {
      CleanHref(href, /*brackets=*/false, &cleaned_);
      url = ResolveCleaned();
    }
    if (!url.ok()) return std::nullopt;
    return std::move(url->spec);
  }

 private:
  static const UrlOptions& UrlOpts() {
    static const UrlOptions kOpts;  // built once (strip_params)
    return kOpts;
  }

  Result<CanonicalUrl> ResolveCleaned() {
    // Absolute hrefs need no base.
    if (!base_.base_status().ok()) return Canonicalize(cleaned_, UrlOpts());
    return base_.Resolve(cleaned_);
  }

  UrlResolver base_;
  std::string cleaned_;
};

// The URL of <meta http-equiv="refresh" content="5; url='...'"> (HTML5's
// "shared declarative refresh steps"), or empty.
std::string_view RefreshUrl(std::string_view content) {
  size_t p = 0;
  while (p < content.size() && IsSpace(content[p])) ++p;
  while (p < content.size() &&
         ((content[p] >= '0' && content[p] <= '9') || content[p] == '.')) {
    ++p;
  }
  while (p < content.size() && IsSpace(content[p])) ++p;
  if (p < content.size() && (content[p] == ';' || content[p] == ',')) ++p;
  while (p < content.size() && IsSpace(content[p])) ++p;
  std::string_view rest = content.substr(p);
  if (rest.size() >= 3 && EqualsIgnoreCase(rest.substr(0, 3), "url")) {
    const std::string_view after = TrimSpace(rest.substr(3));
    if (!after.empty() && after[0] == '=') rest = TrimSpace(after.substr(1));
  }
  if (!rest.empty() && (rest[0] == '"' || rest[0] == '\'')) {
    const size_t close = rest.find(rest[0], 1);
    return rest.substr(1, close == std::string_view::npos ? close : close - 1);
  }
  return TrimSpace(rest);
}

// Gathers raw hrefs in document order, deduplicated before resolution
// (resolving is the expensive step, and pages repeat links a lot).
class Collector {
 public:
  explicit Collector(const LinkOptions& opts)
      : opts_(opts), max_raw_(opts.max_links * 4 + 16) {}

  void OnStartTag(const Token& tag, ExtractedLinks* out);
  const std::vector<const std::string*>& raw() const { return order_; }
  const std::optional<std::string>& base_href() const { return base_href_; }
  bool overflow() const { return overflow_; }

 private:
  void Add(const html::Attribute* attr, bool nofollow, ExtractedLinks* out);
  void OnMeta(const Token& tag, ExtractedLinks* out);

  const LinkOptions& opts_;
  const size_t max_raw_;
  std::unordered_set<std::string> seen_;   // node-based: pointers stay valid
  std::vector<const std::string*> order_;  // into seen_
  std::optional<std::string> base_href_;
  bool overflow_ = false;
};

void Collector::OnStartTag(const Token& tag, ExtractedLinks* out) {
  const std::string_view name = tag.name;
  if (name == "a" || name == "area") {
    Add(tag.Find("href"), RelContains(tag, "nofollow"), out);
  } else if (name == "frame" || name == "iframe") {
    Add(tag.Find("src"), false, out);
  } else if (name == "link") {
    if (RelContains(tag, "alternate") || RelContains(tag, "canonical") ||
        RelContains(tag, "next")) {
      Add(tag.Find("href"), RelContains(tag, "nofollow"), out);
    }
  } else if (name == "base") {
    const html::Attribute* href = tag.Find("href");
    if (href != nullptr && !base_href_) base_href_ = std::string(href->value);
  } else if (name == "meta") {
    OnMeta(tag, out);
  }
}

void Collector::OnMeta(const Token& tag, ExtractedLinks* out) {
  const html::Attribute* content = tag.Find("content");
  if (content == nullptr) return;
  const html::Attribute* equiv = tag.Find("http-equiv");
  if (equiv != nullptr && EqualsIgnoreCase(TrimSpace(equiv->value), "refresh")) {
    const std::string_view url = RefreshUrl(content->value);
    const html::Attribute fake{"href", url};
    if (!url.empty()) Add(&fake, false, out);
  }
  const html::Attribute* meta_name = tag.Find("name");
  if (meta_name == nullptr) return;
  const std::string_view name = TrimSpace(meta_name->value);
  const bool ours = EqualsIgnoreCase(name, "robots") ||
                    (!opts_.robots_token.empty() && EqualsIgnoreCase(name, opts_.robots_token));
  if (ours && (ListContains(content->value, "nofollow", ",") ||
               ListContains(content->value, "none", ","))) {
    out->meta_nofollow = true;
  }
}

void Collector::Add(const html::Attribute* attr, bool nofollow, ExtractedLinks* out) {
  if (attr == nullptr) return;
  const std::string_view href = TrimSpace(attr->value);
  if (href.empty() || href[0] == '#') return;  // the page itself
  if (nofollow && opts_.respect_nofollow) {
    ++out->nofollow_skipped;
    return;
  }
  if (order_.size() >= max_raw_) {
    overflow_ = true;
    return;
  }
  const auto [it, inserted] = seen_.emplace(href);
  if (inserted) order_.push_back(&*it);
}

}  // namespace

ExtractedLinks ExtractLinks(std::string_view html, std::string_view page_url,
                            const LinkOptions& opts) {
  ExtractedLinks out;
  Collector collector(opts);
  html::HtmlTokenizer tokenizer(html);
  Token token;
  while (tokenizer.Next(&token)) {
    if (token.type == TokenType::kStartTag) collector.OnStartTag(token, &out);
  }
  out.truncated = collector.overflow();

  if (collector.base_href()) {
    Resolver page_resolver(page_url);
    out.base = page_resolver.Resolve(*collector.base_href());
  }
  if (out.meta_nofollow && opts.respect_nofollow) {
    out.nofollow_skipped += collector.raw().size();
    return out;
  }
  Resolver resolver(out.base ? std::string_view(*out.base) : page_url);
  // `kept` views the strings in out.links: the reserve() below is never
  // exceeded, so they are not moved while the views live.
  std::unordered_set<std::string_view> kept;
  out.links.reserve(std::min(collector.raw().size(), opts.max_links));
  for (const std::string* raw : collector.raw()) {
    std::optional<std::string> url = resolver.Resolve(*raw);
    if (!url || kept.count(*url) != 0) continue;
    if (out.links.size() == opts.max_links) {
      out.truncated = true;
      break;
    }
    out.links.push_back(std::move(*url));
    kept.insert(out.links.back());
  }
  return out;
}

// "unavailable_after: DATE" and "max-snippet: N" are directives with a
// colon, not crawler names.
bool RobotsTagSaysNofollow(std::string_view value, std::string_view token) {
  value = TrimSpace(value);
  const size_t colon = value.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view name = TrimSpace(value.substr(0, colon));
    auto name_char = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    };
    const bool is_name =
        !name.empty() && std::all_of(name.begin(), name.end(), name_char) &&
        !ListContains("unavailable_after,max-snippet,max-image-preview,max-video-preview", name,
                      ",");
    if (is_name) {
      if (token.empty() || !EqualsIgnoreCase(name, token)) return false;
      value.remove_prefix(colon + 1);
    }
  }
  return ListContains(value, "nofollow", ",") || ListContains(value, "none", ",");
}

}  // namespace crawlfront
