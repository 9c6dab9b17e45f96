// Sitemap parsing on expat (a streaming XML parser: entities, CDATA and
// comments handled as XML says, entity expansion bounded by expat's
// billion-laughs protection) and zlib for .xml.gz files.

#include "crawlfront/worker/sitemap.h"

#include <expat.h>
#include <zlib.h>

#include <algorithm>
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
// depth 1 is a <url> (<sitemap> in an index), and the <loc> text so far.
struct State {
  XML_Parser parser = nullptr;
  const SitemapOptions* opts = nullptr;
  const UrlResolver* resolver = nullptr;
  SitemapLinks* out = nullptr;
  std::unordered_set<std::string> seen;
  int depth = 0;
  bool entry = false;
  bool in_loc = false;
  std::string loc;
  bool not_sitemap = false;

  void TakeLoc() {
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
  } else if (s.depth == 2 && s.entry && local == "loc") {
    s.in_loc = true;
    s.loc.clear();
  }
  ++s.depth;
}

void OnEnd(void* data, const XML_Char* /*name*/) {
  State& s = *static_cast<State*>(data);
  --s.depth;
  if (s.in_loc && s.depth == 2) {
    s.in_loc = false;
    s.TakeLoc();
  }
}

void OnText(void* data, const XML_Char* text, int len) {
  State& s = *static_cast<State*>(data);
  if (s.in_loc && s.loc.size() <= kMaxLocBytes) {
    s.loc.append(text, std::min<size_t>(len, kMaxLocBytes + 1 - s.loc.size()));
  }
}

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
