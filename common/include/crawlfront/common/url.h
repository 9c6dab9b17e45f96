#pragma once
// URL canonicalization, fingerprints and host keys.
//
// Every URL that enters the frontier goes through Canonicalize (seeds) or
// ResolveAndCanonicalize (extracted links), so two spellings of the same
// resource dedup to one fingerprint and queue under one host key. The rules
// are listed in docs/urls.md. All functions here are pure and thread-safe.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront {

// What a politeness queue is keyed by.
enum class HostKeyMode {
  kHost,              // the canonical host, e.g. "www.example.co.uk"
  kRegisteredDomain,  // host's registered domain per the Public Suffix List,
                      // e.g. "example.co.uk"; IPs and suffixes stay as is
};

// Query (and path-parameter) names removed by default: session ids and
// click/campaign trackers that never change the resource.
std::vector<std::string> DefaultStripParams();

struct UrlOptions {
  // Longest accepted URL, checked on the input and on the canonical form
  // (punycode and percent-encoding can grow it). Larger rejects more junk
  // links; most servers refuse URLs past 8 KiB anyway.
  // Default: 2048.
  size_t max_length = 2048;

  // "http://user:pass@host/" is rejected (credentials must not be stored in
  // the frontier or sent to other hosts). When true, the userinfo is
  // silently stripped instead.
  // Default: false.
  bool allow_credentials = false;

  // Stable-sort query parameters by name. Merges "?a=1&b=2" with
  // "?b=2&a=1", which is right for most sites but wrong for the few whose
  // parameter order matters.
  // Default: false.
  bool sort_query = false;

  // Query parameters (and ";name=" path parameters) to drop, matched ASCII
  // case-insensitively. An entry ending in '*' matches by prefix ("utm_*").
  // Fewer entries keep more duplicates; more risk merging distinct pages.
  // Default: DefaultStripParams() = jsessionid, phpsessid, sid, sessionid,
  // utm_*, gclid, fbclid.
  std::vector<std::string> strip_params = DefaultStripParams();

  // What CanonicalUrl::host_key holds.
  // Default: HostKeyMode::kHost.
  HostKeyMode host_key_mode = HostKeyMode::kHost;
};

struct CanonicalUrl {
  std::string spec;      // the canonical URL, e.g. "http://example.com/a?b=1"
  std::string host;      // lowercase ASCII (punycode), IPv6 in brackets
  std::string host_key;  // HostKeyFor(host, opts.host_key_mode)
};

// Canonicalizes an absolute http(s) URL (rules in docs/urls.md).
// Returns InvalidArgument with the reason when the input is empty, too long,
// contains control bytes or invalid UTF-8, does not parse, has a scheme other
// than http/https, has no host or an invalid host or port, or carries
// credentials while opts.allow_credentials is false.
// Postcondition: Canonicalize(result.spec) yields result again.
// In hot loops pass a long-lived `opts`: the default argument builds the
// strip_params vector on every call.
Result<CanonicalUrl> Canonicalize(std::string_view url, const UrlOptions& opts = {});

// Resolves the reference `ref` (e.g. an href) against `base` per RFC 3986
// section 5.2, then canonicalizes the target. An empty ref or a fragment-only
// ref yields the base itself. As RFC 3986 5.4.2 allows for backward
// compatibility, "http:g" against an http base is read as the relative "g".
// Returns InvalidArgument if base is not a valid absolute http(s) URL
// (message starts with "base: ") or for any reason Canonicalize gives.
Result<CanonicalUrl> ResolveAndCanonicalize(std::string_view base, std::string_view ref,
                                            const UrlOptions& opts = {});

class UrlResolver;
namespace url_internal {
// For tests: Resolve without the fast paths for simple shapes (url.cc).
Result<CanonicalUrl> ResolveWithFullParser(const UrlResolver& resolver,
                                           std::string_view ref);
}  // namespace url_internal

// ResolveAndCanonicalize for many references against one base, which is
// parsed once: a page's links all share their base, and parsing it again
// per link was a third of resolving one. Not thread-safe (scratch buffers).
class UrlResolver {
 public:
  // `opts` must outlive the resolver.
  UrlResolver(std::string_view base, const UrlOptions& opts);
  ~UrlResolver();
  UrlResolver(UrlResolver&&) noexcept;
  UrlResolver& operator=(UrlResolver&&) noexcept;

  // Same result as ResolveAndCanonicalize(base, ref, opts).
  Result<CanonicalUrl> Resolve(std::string_view ref) const;
  // Why the base is unusable (every Resolve fails with it), or Ok.
  const Status& base_status() const;

 private:
  friend Result<CanonicalUrl> url_internal::ResolveWithFullParser(const UrlResolver&,
                                                                  std::string_view);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The politeness key of a canonical host (CanonicalUrl::host). For
// kRegisteredDomain it returns the registered domain per libpsl's built-in
// list, or the host itself for IP addresses, public suffixes and single
// labels. Never fails.
std::string HostKeyFor(std::string_view host, HostKeyMode mode);

// 128-bit URL identity: XXH3-128 of the canonical spec. With 10^10 URLs the
// chance of any collision is about 1.5e-19 (docs/urls.md).
struct Fingerprint {
  uint64_t hi = 0;
  uint64_t lo = 0;

  static constexpr size_t kSize = 16;

  bool operator==(const Fingerprint&) const = default;
  // Appends 16 bytes, big-endian (hi then lo), so byte order equals numeric
  // order: RocksDB keys sort the same way as the values.
  void AppendTo(std::string* out) const;
  // Reads 16 bytes written by AppendTo. REQUIRES: bytes has >= 16 readable.
  static Fingerprint FromBytes(const char* bytes);
  // The low 64 bits, for hash tables and Bloom filter probes.
  uint64_t low64() const { return lo; }
};

// Hash for unordered containers of fingerprints: the bits are already mixed.
struct FingerprintHash {
  size_t operator()(const Fingerprint& f) const { return f.lo; }
};

// Fingerprint of a canonical spec (hash the output of Canonicalize, not raw
// input, or equal URLs get different fingerprints).
Fingerprint FingerprintOf(std::string_view canonical_spec);

// Fast 64-bit hash (XXH3-64) of a host key, used to pick a seen-set
// partition. Stable across runs and machines: partitions persist on disk.
uint64_t HostHash(std::string_view host_key);

}  // namespace crawlfront
