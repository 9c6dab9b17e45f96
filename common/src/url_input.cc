// Byte-level checks and escaping of raw URL input (see url_internal.h).

#include <array>
#include <cstdio>
#include <string>

#include "url_internal.h"

namespace crawlfront::url_internal {
namespace {

bool IsHex(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// What the scanner does with each byte value; one table lookup per byte.
enum ByteClass : unsigned char { kPlain, kEscape, kControl, kPercent, kNonAscii };

constexpr std::array<ByteClass, 256> MakeByteClasses() {
  std::array<ByteClass, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[c] = c < 0x20 || c == 0x7F ? kControl : c >= 0x80 ? kNonAscii : kPlain;
  }
  // ASCII characters that RFC 3986 forbids anywhere in a URI but that real
  // pages put in hrefs; browsers percent-encode them, so do we.
  for (unsigned char c : {' ', '"', '<', '>', '\\', '^', '`', '{', '|', '}'}) {
    t[c] = kEscape;
  }
  t['%'] = kPercent;
  return t;
}

constexpr std::array<ByteClass, 256> kByteClass = MakeByteClasses();

bool IsUnsafeAscii(unsigned char c) { return kByteClass[c] == kEscape; }

std::string ByteError(std::string_view what, const char* problem, unsigned char c,
                      size_t offset) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%s byte 0x%02X at offset %zu", problem, c, offset);
  return std::string(what) + ": " + buf;
}

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Validates every byte. Sets *needs_escape if some byte must be encoded.
Status ScanBytes(std::string_view s, std::string_view what, bool* needs_escape) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  for (const auto* it = p; it < end;) {
    const unsigned char c = *it;
    const ByteClass cls = kByteClass[c];
    if (cls == kPlain) {
      ++it;
      continue;
    }
    if (cls == kControl) {
      return Status::InvalidArgument(ByteError(what, "control", c, it - p));
    }
    if (cls == kNonAscii) {
      size_t len = 0;
      if (!Utf8SequenceAt(it, end, &len)) {
        return Status::InvalidArgument(ByteError(what, "invalid UTF-8", c, it - p));
      }
      *needs_escape = true;
      it += len;
      continue;
    }
    if (cls == kPercent && (end - it < 3 || !IsHex(it[1]) || !IsHex(it[2]))) {
      return Status::InvalidArgument(std::string(what) +
                                     ": '%' not followed by two hex digits at offset " +
                                     std::to_string(it - p));
    }
    if (cls == kEscape) *needs_escape = true;
    ++it;
  }
  return Status::Ok();
}

void AppendEscaped(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->reserve(s.size() * 3);
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || IsUnsafeAscii(c)) {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xF]);
    } else {
      out->push_back(ch);
    }
  }
}

}  // namespace

bool Utf8SequenceAt(const unsigned char* p, const unsigned char* end, size_t* len) {
  const unsigned char c = *p;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // > U+10FFFF
  } else {
    return false;
  }
  if (static_cast<size_t>(end - p) < n) return false;
  if (p[1] < lo || p[1] > hi) return false;
  for (size_t i = 2; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return false;
  }
  *len = n;
  return true;
}

Result<std::string_view> PrepareInput(std::string_view in, bool allow_empty,
                                      size_t max_length, std::string_view what,
                                      std::string* scratch) {
  if (in.size() > max_length) {
    return Status::InvalidArgument(std::string(what) + ": too long (" +
                                   std::to_string(in.size()) + " bytes, limit " +
                                   std::to_string(max_length) + ")");
  }
  in = TrimSpaces(in);
  if (in.empty() && !allow_empty) {
    return Status::InvalidArgument(std::string(what) + ": empty");
  }
  bool needs_escape = false;
  CRAWLFRONT_RETURN_IF_ERROR(ScanBytes(in, what, &needs_escape));
  // The first '#' always starts the fragment, which is dropped; cutting it
  // here also spares the parser the fragment's grammar.
  in = in.substr(0, in.find('#'));
  if (!needs_escape) return in;
  scratch->clear();
  AppendEscaped(in, scratch);
  return std::string_view(*scratch);
}

}  // namespace crawlfront::url_internal
