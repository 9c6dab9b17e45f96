// Sitemap parsing on expat (a streaming XML parser: entities, CDATA and
// comments handled as XML says, entity expansion bounded by expat's
// billion-laughs protection) and zlib for .xml.gz files.

#include "crawlfront/worker/sitemap.h"

#include <expat.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <unordered_set>

#include "crawlfront/common/url.h"

namespace crawlfront {
namespace {

constexpr size_t kMaxLocBytes = 4096;  // a longer <loc> is rejected, not kept
constexpr size_t kSniffBytes = 4096;   // of a gzip body, inflated to look inside

bool IsGzip(std::string_view b) {
  return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f &&
         static_cast<unsigned char>(b[1]) == 0x8b;
}

// Inflates the gzip `in` into *out, at most `max` bytes (*cut when there was
// more). Returns "" or why it stopped early.
std::string Gunzip(std::string_view in, size_t max, std::string* out, bool* cut) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "gzip: cannot start inflating";
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), UINT_MAX));
  std::string error;
  char buf[65536];
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const size_t got = sizeof buf - z.avail_out;
    if (out->size() + got > max) {
      out->append(buf, max - out->size());
      *cut = true;
      break;
    }
    out->append(buf, got);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK) {
      error = rc == Z_BUF_ERROR ? "gzip: truncated"
                                : std::string("gzip: ") + (z.msg ? z.msg : "bad data");
      break;
    }
  }
  inflateEnd(&z);
  return error;
}

// The first byte of markup: after a UTF-8 byte order mark and whitespace.
bool StartsLikeXml(std::string_view b) {
  if (b.starts_with("\xEF\xBB\xBF")) b.remove_prefix(3);
  const size_t i = b.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && b[i] == '<';
}

std::string_view LocalName(std::string_view name) {
  const size_t colon = name.rfind(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

std::string_view TrimXmlSpace(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Parser state: the depth of the open element, whether the entry open at
// depth 1 is a <url> (<sitemap> in an index), and its <loc> and <lastmod>
// text so far (either may come first).
struct State {
  XML_Parser parser = nullptr;
  const SitemapOptions* opts = nullptr;
  const UrlResolver* resolver = nullptr;
  SitemapLinks* out = nullptr;
  std::unordered_set<std::string> seen;
  int depth = 0;
  bool entry = false;
  std::string* field = nullptr;  // loc or lastmod while one is open
  std::string loc;
  std::string lastmod;
  bool not_sitemap = false;

  void TakeEntry() {
    const std::string_view text = TrimXmlSpace(loc);
    if (text.empty() || loc.size() > kMaxLocBytes) {
      ++out->rejected;
      return;
    }
    Result<CanonicalUrl> url = resolver->Resolve(text);
    if (!url.ok()) {
      ++out->rejected;
      return;
    }
    if (seen.contains(url->spec)) return;
    if (out->links.size() >= opts->max_links) {
      out->truncated = true;
      XML_StopParser(parser, XML_FALSE);
      return;
    }
    seen.insert(url->spec);
    out->links.push_back(std::move(url->spec));
    // Before 1970 is no date a crawl can use (and 0 means none).
    const int64_t when = ParseW3cDatetime(TrimXmlSpace(lastmod)).value_or(0);
    out->lastmod_s.push_back(std::max<int64_t>(when, 0));
  }
};

void OnStart(void* data, const XML_Char* name, const XML_Char** /*attrs*/) {
  State& s = *static_cast<State*>(data);
  const std::string_view local = LocalName(name);
  if (s.depth == 0) {
    if (local != "urlset" && local != "sitemapindex") {
      s.not_sitemap = true;
      XML_StopParser(s.parser, XML_FALSE);
      return;
    }
    s.out->is_sitemap = true;
    s.out->index = local == "sitemapindex";
  } else if (s.depth == 1) {
    s.entry = local == (s.out->index ? "sitemap" : "url");
    s.loc.clear();
    s.lastmod.clear();
  } else if (s.depth == 2 && s.entry && (local == "loc" || local == "lastmod")) {
    s.field = local == "loc" ? &s.loc : &s.lastmod;
    s.field->clear();
  }
  ++s.depth;
}

void OnEnd(void* data, const XML_Char* /*name*/) {
  State& s = *static_cast<State*>(data);
  --s.depth;
  if (s.depth == 2) s.field = nullptr;
  if (s.depth == 1 && s.entry) {
    s.entry = false;
    s.TakeEntry();
  }
}

void OnText(void* data, const XML_Char* text, int len) {
  State& s = *static_cast<State*>(data);
  if (s.field && s.field->size() <= kMaxLocBytes) {
    s.field->append(text, std::min<size_t>(len, kMaxLocBytes + 1 - s.field->size()));
  }
}

// "dd" at p (exactly `n` digits) into *v.
bool Digits(std::string_view t, size_t at, size_t n, int* v) {
  if (t.size() < at + n) return false;
  int x = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
    x = x * 10 + (t[i] - '0');
  }
  *v = x;
  return true;
}

// "Z", "+hh:mm" or "-hh:mm" (all of `t`), as seconds east of UTC. None is
// taken as UTC: sitemaps in the wild leave it out.
std::optional<int> ZoneOffset(std::string_view t) {
  if (t.empty() || t == "Z") return 0;
  int h = 0, m = 0;
  if (t.size() != 6 || (t[0] != '+' && t[0] != '-') || t[3] != ':' || !Digits(t, 1, 2, &h) ||
      !Digits(t, 4, 2, &m) || h > 23 || m > 59) {
    return std::nullopt;
  }
  return (t[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
}

// Seconds of "hh:mm[:ss[.s...]]" at the start of t, and the rest (the zone).
std::optional<int> TimeOfDay(std::string_view t, std::string_view* zone) {
  int h = 0, m = 0, sec = 0;
  if (!Digits(t, 0, 2, &h) || t.size() < 5 || t[2] != ':' || !Digits(t, 3, 2, &m) || h > 23 ||
      m > 59) {
    return std::nullopt;
  }
  size_t at = 5;
  if (t.size() > at && t[at] == ':') {
    if (!Digits(t, at + 1, 2, &sec) || sec > 60) return std::nullopt;
    at += 3;
    if (t.size() > at && t[at] == '.') {
      const size_t digits = t.find_first_not_of("0123456789", at + 1);
      if (digits == at + 1) return std::nullopt;
      at = digits == std::string_view::npos ? t.size() : digits;
    }
  }
  *zone = t.substr(at);
  return h * 3600 + m * 60 + std::min(sec, 59);
}

}  // namespace

std::optional<int64_t> ParseW3cDatetime(std::string_view t) {
  int y = 0, mo = 1, d = 1;
  if (!Digits(t, 0, 4, &y)) return std::nullopt;
  if (t.size() > 4 && (t[4] != '-' || !Digits(t, 5, 2, &mo))) return std::nullopt;
  if (t.size() > 7 && (t[7] != '-' || !Digits(t, 8, 2, &d))) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(y), std::chrono::month(mo),
                                         std::chrono::day(d)};
  if (!date.ok() || (t.size() != 4 && t.size() != 7 && t.size() < 10)) return std::nullopt;
  int64_t secs = std::chrono::sys_days(date).time_since_epoch().count() * int64_t{86400};
  if (t.size() == 4 || t.size() == 7 || t.size() == 10) return secs;
  if (t[10] != 'T') return std::nullopt;
  std::string_view zone;
  const std::optional<int> tod = TimeOfDay(t.substr(11), &zone);
  const std::optional<int> offset = tod ? ZoneOffset(zone) : std::nullopt;
  if (!offset) return std::nullopt;
  return secs + *tod - *offset;
}

namespace {

void ParseXml(std::string_view xml, State* s) {
  XML_Parser p = XML_ParserCreate(nullptr);  // its XML declaration names the encoding
  if (!p) {
    s->out->error = "xml: out of memory";
    return;
  }
  s->parser = p;
  XML_SetUserData(p, s);
  XML_SetElementHandler(p, OnStart, OnEnd);
  XML_SetCharacterDataHandler(p, OnText);
  xml = xml.substr(0, INT_MAX);
  if (XML_Parse(p, xml.data(), static_cast<int>(xml.size()), XML_TRUE) == XML_STATUS_ERROR &&
      XML_GetErrorCode(p) != XML_ERROR_ABORTED) {
    s->out->error = std::string("xml: ") + XML_ErrorString(XML_GetErrorCode(p)) + " at line " +
                    std::to_string(XML_GetCurrentLineNumber(p));
  }
  XML_ParserFree(p);
}

}  // namespace

SitemapLinks ParseSitemap(std::string_view body, std::string_view sitemap_url,
                          const SitemapOptions& opts) {
  SitemapLinks out;
  std::string inflated;
  if (IsGzip(body)) {
    bool cut = false;
    Gunzip(body, kSniffBytes, &inflated, &cut);  // a look first: .tar.gz is no sitemap
    if (!StartsLikeXml(inflated)) return out;
    inflated.clear();
    out.error = Gunzip(body, opts.max_bytes, &inflated, &out.truncated);
    body = inflated;
  } else {
    if (!StartsLikeXml(body)) return out;
    if (body.size() > opts.max_bytes) {
      body = body.substr(0, opts.max_bytes);
      out.truncated = true;
    }
  }
  const UrlOptions url_opts;
  const UrlResolver resolver(sitemap_url, url_opts);
  State s;
  s.opts = &opts;
  s.resolver = &resolver;
  s.out = &out;
  std::string gzip_error = std::move(out.error);
  out.error.clear();
  ParseXml(body, &s);
  if (s.not_sitemap) return SitemapLinks{};
  if (!gzip_error.empty()) out.error = gzip_error;  // the cause of any XML error after it
  return out;
}

}  // namespace crawlfront
