// Hosts and ports: IDNA, numeric IPv4 forms, label rules, host keys.

#include <idn2.h>
#include <libpsl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "url_internal.h"

namespace crawlfront::url_internal {
namespace {

constexpr size_t kMaxLabel = 63;  // RFC 1035
constexpr size_t kMaxHost = 253;  // RFC 1035, without the trailing dot

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

bool IsHostAscii(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_' || c == '.';
}

Status HostError(std::string msg) { return Status::InvalidArgument("host: " + msg); }

// Percent-decodes the host, checking its ASCII characters on the way.
Status DecodeHost(std::string_view encoded, std::string* out, bool* non_ascii) {
  out->reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    char c = encoded[i];
    if (c == '%') {  // the parser guarantees two hex digits follow
      c = static_cast<char>(HexValue(encoded[i + 1]) * 16 + HexValue(encoded[i + 2]));
      i += 2;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      *non_ascii = true;
    } else if (!IsHostAscii(c)) {
      char buf[48];
      std::snprintf(buf, sizeof(buf), "invalid character 0x%02X", c);
      return HostError(buf);
    } else if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
    out->push_back(c);
  }
  return Status::Ok();
}

// UTS 46 non-transitional processing, as current browsers do.
Result<std::string> ToPunycode(const std::string& utf8) {
  const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
  const auto* end = p + utf8.size();
  for (size_t len = 0; p < end; p += len) {
    if (*p < 0x80) {
      len = 1;
    } else if (!Utf8SequenceAt(p, end, &len)) {
      return HostError("invalid UTF-8 after percent-decoding");
    }
  }
  char* out = nullptr;
  const int rc =
      idn2_to_ascii_8z(utf8.c_str(), &out, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
  if (rc != IDN2_OK) {
    return HostError(std::string("IDNA conversion failed: ") + idn2_strerror(rc));
  }
  std::unique_ptr<char, void (*)(void*)> owned(out, idn2_free);
  return std::string(out);
}

Status CheckLabels(std::string_view host) {
  if (host.size() > kMaxHost) return HostError("longer than 253 bytes");
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    const size_t len = (dot == std::string_view::npos ? host.size() : dot) - start;
    if (len == 0) return HostError("empty label in '" + std::string(host) + "'");
    if (len > kMaxLabel) return HostError("label longer than 63 bytes");
    if (dot == std::string_view::npos) return Status::Ok();
    start = dot + 1;
  }
}

// One part of a WHATWG IPv4 host: decimal, 0-prefixed octal or 0x-hex.
bool ParseIpv4Part(std::string_view s, uint64_t* value) {
  unsigned base = 10;
  if (s.size() >= 2 && s[0] == '0' && s[1] == 'x') {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  for (const char c : s) {
    const bool digit = c >= '0' && c <= '9';
    const bool hex = base == 16 && c >= 'a' && c <= 'f';
    if (!digit && !hex) return false;
    const unsigned d = digit ? c - '0' : c - 'a' + 10;
    if (d >= base) return false;
    v = v * base + d;
    if (v > 0xFFFFFFFFu) return false;  // also bounds the loop's growth
  }
  *value = v;
  return true;
}

bool EndsInNumber(std::string_view host) {
  const size_t dot = host.rfind('.');
  const std::string_view last =
      dot == std::string_view::npos ? host : host.substr(dot + 1);
  // Syntax only: "0x100000000" is a number (too large), not a name.
  if (last.find_first_not_of("0123456789") == std::string_view::npos) return true;
  return last.size() >= 2 && last[0] == '0' && last[1] == 'x' &&
         last.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos;
}

// Browsers read "0x7f.1" or "2130706433" as 127.0.0.1; so must we, or the
// worker's private-address check and dedup see a different host.
Result<std::string> NumericIpv4(std::string_view host) {
  uint64_t parts[4];
  size_t n = 0;
  for (size_t start = 0; start <= host.size();) {
    const size_t dot = std::min(host.find('.', start), host.size());
    if (n == 4 || !ParseIpv4Part(host.substr(start, dot - start), &parts[n])) {
      return HostError("invalid IPv4 address '" + std::string(host) + "'");
    }
    ++n;
    start = dot + 1;
  }
  uint64_t addr = 0;
  for (size_t i = 0; i + 1 < n; ++i) {
    if (parts[i] > 255)
      return HostError("IPv4 part > 255 in '" + std::string(host) + "'");
    addr = addr << 8 | parts[i];
  }
  const unsigned last_bits = 8 * (5 - n);
  if (last_bits < 32 && parts[n - 1] >> last_bits != 0) {
    return HostError("IPv4 address out of range '" + std::string(host) + "'");
  }
  addr = addr << last_bits | parts[n - 1];
  return std::to_string(addr >> 24) + "." + std::to_string(addr >> 16 & 255) + "." +
         std::to_string(addr >> 8 & 255) + "." + std::to_string(addr & 255);
}

}  // namespace

Result<std::string> NormalizeRegName(std::string_view encoded_host) {
  std::string host;
  bool non_ascii = false;
  CRAWLFRONT_RETURN_IF_ERROR(DecodeHost(encoded_host, &host, &non_ascii));
  if (!host.empty() && host.back() == '.') host.pop_back();  // "a.com." == "a.com"
  if (host.empty()) return Status::InvalidArgument("URL has no host");
  if (non_ascii) {
    auto puny = ToPunycode(host);
    if (!puny.ok()) return puny.status();
    host = std::move(puny).value();
    // UTS 46 mapping can produce ASCII that hosts may not hold ("⒬" -> "(q)").
    for (const char c : host) {
      if (!IsHostAscii(c)) return HostError("IDNA mapping produced '" + host + "'");
    }
  }
  CRAWLFRONT_RETURN_IF_ERROR(CheckLabels(host));
  if (EndsInNumber(host)) return NumericIpv4(host);
  return host;
}

Result<unsigned> ParsePort(std::string_view port) {
  if (port.empty()) return 0u;  // "http://a:/" means the default port
  const std::string_view original = port;
  while (port.size() > 1 && port.front() == '0') port.remove_prefix(1);
  unsigned value = 0;
  for (const char c : port.substr(0, 6)) value = value * 10 + (c - '0');
  if (port.size() > 5 || value > 65535 || value == 0) {
    return Status::InvalidArgument("invalid port '" + std::string(original) +
                                   "' (must be 1..65535)");
  }
  return value;
}

}  // namespace crawlfront::url_internal

namespace crawlfront {

std::string HostKeyFor(std::string_view host, HostKeyMode mode) {
  std::string key(host);
  if (mode == HostKeyMode::kHost || key.empty()) return key;
  // IP literals have no registered domain (libpsl would answer "0.1" for
  // "127.0.0.1"). Canonical IPv4 hosts are the only all-digit-and-dot ones.
  const bool is_ip =
      key.front() == '[' || key.find_first_not_of("0123456789.") == std::string::npos;
  if (is_ip) return key;
  const psl_ctx_t* psl = psl_builtin();
  const char* domain = psl ? psl_registrable_domain(psl, key.c_str()) : nullptr;
  if (domain == nullptr) return key;  // a public suffix itself, or one label
  return std::string(domain);
}

}  // namespace crawlfront
