#pragma once
// Private pieces of the URL canonicalizer (url.cc), split by concern so each
// can be tested through the public API and read on its own.
//
// Why not url::normalize() from Boost.URL 1.81: it decodes every percent-
// encoded character its grammar allows, reserved ones included ("%2F" -> "/",
// "%26" -> "&" in a query), which merges distinct URLs, and it keeps leading
// ".." segments ("/../g"). Boost.URL still does the parsing, grammar checks,
// component access, query splitting and IPv6 formatting.

#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"
#include "crawlfront/common/url.h"

namespace crawlfront::url_internal {

// --- url_input.cc: raw bytes before parsing ---

// Checks raw input and prepares it for the RFC 3986 parser: trims ASCII
// spaces at both ends, rejects control bytes, invalid UTF-8 and bad
// percent-escapes anywhere, cuts the fragment, and percent-encodes non-ASCII
// bytes and ASCII characters RFC 3986 forbids but pages use (space, '"', '<',
// '>', '\', '^', '`', '{', '|', '}'). Returns a view of `in` when nothing
// needed encoding, else of *scratch. `what` names the input in messages.
Result<std::string_view> PrepareInput(std::string_view in, bool allow_empty,
                                      size_t max_length, std::string_view what,
                                      std::string* scratch);

// True if [p, end) starts with one well-formed UTF-8 sequence (no overlongs,
// no surrogates, <= U+10FFFF); sets *len to its length.
bool Utf8SequenceAt(const unsigned char* p, const unsigned char* end, size_t* len);

// --- url_split.cc: the common shapes, split without Boost.URL ---

// Views into a prepared input (PrepareInput: fragment cut, escapes valid).
struct SimpleParts {
  bool https = false;
  std::string_view host, port;  // absolute only; port: digits or empty
  std::string_view path;        // encoded
  bool has_query = false;
  std::string_view query;  // encoded, without '?'
};

// "http(s)://" (lowercase), a plain host name (letters, digits, '-', '.';
// at least one letter, so never an IP address), an optional ":digits", then
// a path and query without '[' or ']'. False: not this shape (use the full
// parser), not an error.
bool SplitSimpleAbsolute(std::string_view in, SimpleParts* out);

// "//" and then what SplitSimpleAbsolute takes after the scheme; the scheme
// is the base's (`https`).
bool SplitSimpleNetworkPath(std::string_view in, bool https, SimpleParts* out);

// A reference without scheme or authority: does not start with "//" and has
// no ':', '[' or ']'.
bool SplitSimpleRelative(std::string_view in, SimpleParts* out);

// Canonicalize without the fast path, for tests (url.cc).
Result<CanonicalUrl> CanonicalizeWithFullParser(std::string_view url,
                                                const UrlOptions& opts);

// --- url_host.cc ---

// Canonical form of a reg-name host as it appears in the URL (may be
// percent-encoded, may be UTF-8 after decoding): decoded, IDNA2008/UTS 46 to
// punycode, lowercased, one trailing dot removed, numeric forms ("0x7f.1")
// turned into dotted-quad IPv4 as browsers do. Rejects empty or invalid hosts.
Result<std::string> NormalizeRegName(std::string_view encoded_host);

// Parses a port string ("" allowed, leading zeros allowed). Returns 0 for
// "no port", or the port number; rejects values outside 1..65535.
Result<unsigned> ParsePort(std::string_view port);

// --- url_path.cc: path and query ---

// Appends `in` with percent-escapes normalized: escapes of unreserved
// characters decoded, hex digits uppercased. REQUIRES: every '%' in `in` is
// followed by two hex digits (the parser checked).
void AppendPercentNormalized(std::string_view in, std::string* out);

// True if `name` matches one of `patterns` (ASCII case-insensitive, a
// trailing '*' matches by prefix).
bool MatchesStripPattern(std::string_view name, const std::vector<std::string>& patterns);

// Canonical path from an encoded absolute-or-empty path: percent escapes
// normalized, matching ";name=value" path parameters dropped, dot segments
// removed (RFC 3986 5.2.4), "" becomes "/". Appends to *out.
void AppendCanonicalPath(std::string_view encoded_path, const UrlOptions& opts,
                         std::string* out);

// Canonical query from an encoded query (without '?'): escapes normalized,
// matching parameters dropped, optionally stable-sorted by name. Appends
// "?query" to *out unless nothing is left.
void AppendCanonicalQuery(std::string_view encoded_query, const UrlOptions& opts,
                          std::string* out);

}  // namespace crawlfront::url_internal
