#include "render.h"

#include <zlib.h>

#include <cstdint>

#include "crawlfront/simweb/rng.h"

namespace crawlfront::simweb {
namespace {

constexpr uint64_t kSaltRender = 31;
constexpr uint64_t kSaltBigSize = 32;

std::string Words(Rng& rng, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += ' ';
    out += WordAt(rng.Below(kWordCount));
  }
  return out;
}

std::string Title(const Resource& r) { return HostName(r.host) + " " + PathOf(r); }

// The value quoted the way real pages do: mostly double quotes, sometimes
// single quotes, sometimes unquoted when the value allows it.
std::string Quoted(const std::string& value, Rng& rng) {
  uint64_t roll = rng.Below(100);
  bool unquotable =
      !value.empty() && value.find_first_of(" \t\n\"'=<>`") == std::string::npos;
  if (roll < 10 && unquotable) return value;
  if (roll < 20) return "'" + value + "'";
  return "\"" + value + "\"";
}

std::string RelValue(Rng& rng) {
  switch (rng.Below(3)) {
    case 0:
      return "nofollow";
    case 1:
      return "external nofollow";
    default:
      return "NoFollow";
  }
}

void RenderLink(const Link& link, size_t index, Rng& rng, std::string& out) {
  std::string text = Words(rng, 2);
  switch (link.place) {
    case Place::kAnchor: {
      bool upper = rng.Percent(5);
      out += upper ? "<A" : "<a";
      if (link.nofollow) out += " rel=" + Quoted(RelValue(rng), rng);
      out += (upper ? " HREF=" : " href=") + Quoted(link.written, rng) + ">" + text +
             (upper ? "</A>" : "</a>");
      break;
    }
    case Place::kArea:
      out +=
          "<map name=\"m" + std::to_string(index) +
          "\"><area shape=\"rect\" coords=\"0,0,8,8\" href=" + Quoted(link.written, rng) +
          " alt=\"" + text + "\"></map>";
      break;
    case Place::kIframe:
      out += "<iframe src=" + Quoted(link.written, rng) + " title=\"" + text +
             "\"></iframe>";
      break;
    case Place::kComment:
      out += "<!-- retired: <a href=\"" + link.written + "\">" + text + "</a> -->";
      break;
    case Place::kScript:
      out += "<script>var retired = '<a href=\"" + link.written + "\">" + text +
             "</a>';</script>";
      break;
  }
}

std::string CharsetHead(const std::string& charset) {
  if (charset == "Shift_JIS") {
    return "<meta http-equiv=\"Content-Type\" content=\"text/html; "
           "charset=Shift_JIS\">\n";
  }
  return "<meta charset=\"" + charset + "\">\n";
}

// A paragraph only representable in the page's charset.
std::string CharsetText(const std::string& charset) {
  if (charset == "ISO-8859-1")
    return "<p>Caf\xE9 cr\xE8me br\xFBl\xE9\x65, na\xEFve fa\xE7\x61\x64\x65.</p>\n";
  // 日本語の表示 in Shift_JIS; 表 ends in 0x5C ('\\' in ASCII).
  if (charset == "Shift_JIS")
    return "<p>\x93\xFA\x96\x7B\x8C\xEA\x82\xCC\x95\x5C\x8E\xA6</p>\n";
  return "<p>Caf\xC3\xA9 \xE2\x80\x94 utf-8 text.</p>\n";
}

void AppendFiller(size_t min_bytes, Rng& rng, std::string& out) {
  // Bounded: every paragraph adds at least 20 bytes.
  while (out.size() < min_bytes) out += "<p>" + Words(rng, 12) + "</p>\n";
}

void AppendChunk(std::string_view type, std::string_view data, std::string& out) {
  uint32_t length = static_cast<uint32_t>(data.size());
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>(length >> shift);
  std::string typed = std::string(type) + std::string(data);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(typed.data()),
                    static_cast<uInt>(typed.size()));
  out += typed;
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>(crc >> shift);
}

}  // namespace

std::string RenderHtml(const SimWebOptions& o, const Resource& r,
                       const PageLinks& links) {
  Rng rng(
      KeyOf(o.seed, r.host, r.a * 64 + r.b, kSaltRender + static_cast<uint64_t>(r.kind)));
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n" + CharsetHead(links.charset);
  if (links.meta_nofollow)
    out += "<meta name=\"robots\" content=\"noindex, nofollow\">\n";
  if (!links.base_href.empty()) out += "<base href=\"" + links.base_href + "\">\n";
  out += "<title>" + Title(r) + "</title>\n</head>\n<body>\n<h1 id=\"top\">" + Title(r) +
         "</h1>\n" + CharsetText(links.charset);
  if (r.kind == Kind::kBig) {
    Rng size_rng(KeyOf(o.seed, r.host, r.a, kSaltBigSize));
    AppendFiller(
        o.large_min_bytes + size_rng.Below(o.large_max_bytes - o.large_min_bytes + 1),
        rng, out);
  }
  for (size_t i = 0; i < links.links.size(); ++i) {
    if (i % 4 == 0) out += i == 0 ? "<p>" : "</p>\n<p>";
    out += Words(rng, 3) + " ";
    RenderLink(links.links[i], i, rng, out);
    out += " ";
  }
  if (!links.links.empty()) out += "</p>\n";
  out += "<p id=\"s1\">" + Words(rng, 8) + "</p>\n</body>\n</html>\n";
  return out;
}

std::string RenderPdf(const SimWebOptions& o, const Resource& r) {
  Resource hidden{Kind::kHidden, r.host, r.a % o.pages,
                  static_cast<uint64_t>(HiddenKind::kPdf)};
  return "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<< /Type /Annot /Subtype /Link /A << /S "
         "/URI "
         "/URI (" +
         UrlOf(r.host, PathOf(hidden)) + ") >> >>\nendobj\n% " + Title(r) +
         "\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n";
}

std::string RenderPng(const Resource& r) {
  std::string out = "\x89PNG\r\n\x1a\n";
  // 1x1, 8-bit RGBA.
  AppendChunk("IHDR", std::string_view("\0\0\0\1\0\0\0\1\x08\x06\0\0\0", 13), out);
  AppendChunk("tEXt", "Comment" + std::string(1, '\0') + Title(r), out);
  const Bytef raw[5] = {0, static_cast<Bytef>(r.host), static_cast<Bytef>(r.a), 0x80,
                        0xFF};
  Bytef packed[64];
  uLongf packed_size = sizeof(packed);
  compress2(packed, &packed_size, raw, sizeof(raw), 9);
  AppendChunk("IDAT", std::string_view(reinterpret_cast<char*>(packed), packed_size),
              out);
  AppendChunk("IEND", "", out);
  return out;
}

std::string RenderErrorPage(int status, std::string_view reason) {
  std::string code = std::to_string(status);
  return "<!DOCTYPE html>\n<html><head><title>" + code + " " + std::string(reason) +
         "</title></head>\n<body><h1>" + std::string(reason) + "</h1></body></html>\n";
}

}  // namespace crawlfront::simweb
