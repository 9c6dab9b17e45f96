// Canonicalize and ResolveAndCanonicalize: parse with Boost.URL, then build
// the canonical spec from normalized components (rules in docs/urls.md).

#include "crawlfront/common/url.h"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "url_internal.h"

namespace urls = boost::urls;

namespace crawlfront {
namespace {

using url_internal::NormalizeRegName;
using url_internal::ParsePort;
using url_internal::PrepareInput;

// The parts of the target URL, each a view into a parsed input.
struct Components {
  urls::scheme scheme = urls::scheme::none;
  const urls::url_view* authority = nullptr;  // userinfo, host and port
  std::string_view path;                      // encoded
  bool has_query = false;
  std::string_view query;  // encoded, without '?'
};

Status CheckScheme(const urls::url_view& u) {
  const urls::scheme s = u.scheme_id();
  if (s == urls::scheme::http || s == urls::scheme::https) return Status::Ok();
  return Status::InvalidArgument("unsupported scheme '" + std::string(u.scheme()) +
                                 "' (only http and https)");
}

// RFC 3986 3.3: after an authority the path is empty or starts with '/'.
// Boost.URL 1.81 does not enforce it: it takes "http://h:8o/" as port 8 and
// path "o/".
bool PathFollowsAuthority(const urls::url_view& u) {
  const std::string_view path = u.encoded_path();
  return !u.has_authority() || path.empty() || path.front() == '/';
}

urls::result<urls::url_view> ParseRaw(std::string_view s, bool absolute) {
  return absolute ? urls::parse_uri(s) : urls::parse_uri_reference(s);
}

// Parses an absolute URL or a reference, explaining the common ways to fail.
// The result may view *reparse_buf, which must outlive it.
Result<urls::url_view> ParseChecked(std::string_view s, bool absolute,
                                    std::string_view what, std::string* reparse_buf) {
  auto parsed = ParseRaw(s, absolute);
  if (!parsed) {
    auto as_ref = urls::parse_uri_reference(s);
    if (absolute && as_ref && !as_ref->has_scheme()) {
      return Status::InvalidArgument(std::string(what) +
                                     ": no scheme (relative URL without a base)");
    }
    // Not Boost's error name: Boost.URL 1.81 picks it from uninitialized
    // bytes for some IPv6 literals ("http://[::." reads a group never
    // written), so one URL could be rejected with two texts.
    return Status::InvalidArgument(std::string(what) + ": invalid URL syntax");
  }
  if (!PathFollowsAuthority(*parsed) && parsed->host_type() == urls::host_type::ipv4) {
    // Boost.URL 1.81 reads "http://1.2.3.4.nip.io/" as IPv4 host 1.2.3.4 and
    // path ".nip.io/" instead of backtracking to a reg-name. Escaping the
    // host's first digit ("%31.2...") steers it to reg-name, which
    // NormalizeRegName decodes again.
    const size_t at = static_cast<size_t>(parsed->encoded_host().data() - s.data());
    reparse_buf->assign(s.substr(0, at)).append("%3").append(s.substr(at));
    parsed = ParseRaw(*reparse_buf, absolute);
    if (!parsed) {
      return Status::InvalidArgument(std::string(what) + ": invalid URL syntax");
    }
  }
  if (!PathFollowsAuthority(*parsed)) {
    return Status::InvalidArgument(
        std::string(what) + ": invalid URL syntax (authority not followed by '/')");
  }
  return *parsed;
}

Result<std::string> CanonicalHost(const urls::url_view& u) {
  switch (u.host_type()) {
    case urls::host_type::ipv4:
      return std::string(u.encoded_host());  // the grammar admits only canonical
    case urls::host_type::ipv6:
      return "[" + u.host_ipv6_address().to_string() + "]";
    case urls::host_type::ipvfuture:
      return Status::InvalidArgument("host: IPvFuture literals are not supported");
    default:
      return NormalizeRegName(u.encoded_host());
  }
}

// The canonical URL from checked parts; `host` is canonical already and
// `host_key`, if not null, is HostKeyFor(host). `port` 0 = none.
Result<CanonicalUrl> Build(bool https, std::string host, const std::string* host_key,
                           unsigned port, std::string_view path, bool has_query,
                           std::string_view query, const UrlOptions& opts) {
  CanonicalUrl out;
  out.host = std::move(host);
  out.spec.reserve(path.size() + query.size() + out.host.size() + 16);
  out.spec.append(https ? "https://" : "http://");
  out.spec.append(out.host);
  if (port != 0 && port != (https ? 443u : 80u))
    out.spec.append(":").append(std::to_string(port));
  url_internal::AppendCanonicalPath(path, opts, &out.spec);
  if (has_query) url_internal::AppendCanonicalQuery(query, opts, &out.spec);
  if (out.spec.size() > opts.max_length) {
    return Status::InvalidArgument("canonical URL too long (" +
                                   std::to_string(out.spec.size()) + " bytes, limit " +
                                   std::to_string(opts.max_length) + ")");
  }
  out.host_key = host_key ? *host_key : HostKeyFor(out.host, opts.host_key_mode);
  return out;
}

// Host and port of a parsed authority, checked (credentials per opts).
struct Origin {
  bool https = false;
  std::string host;
  unsigned port = 0;
};

Result<Origin> OriginOf(urls::scheme scheme, const urls::url_view& auth,
                        const UrlOptions& opts) {
  if (!auth.has_authority()) return Status::InvalidArgument("URL has no host");
  if (auth.has_userinfo() && !opts.allow_credentials) {
    return Status::InvalidArgument(
        "URL has embedded credentials (user:password@); set allow_credentials to strip");
  }
  Origin o;
  o.https = scheme == urls::scheme::https;
  auto host = CanonicalHost(auth);
  if (!host.ok()) return host.status();
  o.host = std::move(host).value();
  if (auth.has_port()) {
    auto port = ParsePort(auth.port());
    if (!port.ok()) return port.status();
    o.port = *port;
  }
  return o;
}

Result<CanonicalUrl> Assemble(const Components& c, const UrlOptions& opts) {
  auto origin = OriginOf(c.scheme, *c.authority, opts);
  if (!origin.ok()) return origin.status();
  return Build(origin->https, std::move(origin->host), nullptr, origin->port, c.path,
               c.has_query, c.query, opts);
}

// SplitSimpleAbsolute's parts: the host needs only NormalizeRegName.
Result<CanonicalUrl> AssembleSimple(const url_internal::SimpleParts& p,
                                    const UrlOptions& opts) {
  auto host = NormalizeRegName(p.host);
  if (!host.ok()) return host.status();
  unsigned port = 0;
  if (!p.port.empty()) {
    auto parsed = ParsePort(p.port);
    if (!parsed.ok()) return parsed.status();
    port = *parsed;
  }
  return Build(p.https, std::move(host).value(), nullptr, port, p.path, p.has_query,
               p.query, opts);
}

Components WholeUrl(const urls::url_view& u) {
  return {u.scheme_id(), &u, u.encoded_path(), u.has_query(), u.encoded_query()};
}

// RFC 3986 5.2.3: the base path up to its last '/', then the ref path.
std::string MergePaths(std::string_view bp, std::string_view ref_path) {
  if (bp.empty()) return "/" + std::string(ref_path);
  std::string merged(bp.substr(0, bp.rfind('/') + 1));
  merged.append(ref_path);
  return merged;
}

// A path and query, encoded, the query without '?'.
struct PathQuery {
  std::string_view path;
  bool has_query = false;
  std::string_view query;
};

// RFC 3986 5.2.2 for a ref without authority: the target's path and query.
// May point into *merged.
PathQuery MergeRef(const PathQuery& base, const PathQuery& ref, std::string* merged) {
  PathQuery out = base;
  if (!ref.path.empty()) {
    if (ref.path.front() == '/') {
      out.path = ref.path;
    } else {
      *merged = MergePaths(base.path, ref.path);
      out.path = *merged;
    }
  }
  if (ref.has_query || !ref.path.empty()) {
    out.has_query = ref.has_query;
    out.query = ref.query;
  }
  return out;
}

PathQuery PathQueryOf(const urls::url_view& u) {
  return {u.encoded_path(), u.has_query(), u.encoded_query()};
}

// RFC 3986 5.2.2 for a ref without scheme (or with the base's scheme and no
// authority, see ResolveAndCanonicalize). Dot segments are removed later by
// Assemble. (Boost.URL 1.81's resolve() also normalizes, decoding "%2F".)
Result<CanonicalUrl> ResolveRelative(const urls::url_view& base,
                                     const urls::url_view& ref, const UrlOptions& opts) {
  const urls::url_view& authority = ref.has_authority() ? ref : base;
  PathQuery target = PathQueryOf(ref);
  std::string merged;
  if (!ref.has_authority()) target = MergeRef(PathQueryOf(base), target, &merged);
  return Assemble(
      {base.scheme_id(), &authority, target.path, target.has_query, target.query}, opts);
}

}  // namespace

std::vector<std::string> DefaultStripParams() {
  return {"jsessionid", "phpsessid", "sid", "sessionid", "utm_*", "gclid", "fbclid"};
}

namespace {

Result<CanonicalUrl> CanonicalizeImpl(std::string_view url, const UrlOptions& opts,
                                      bool fast) {
  std::string scratch, reparse_buf;
  auto prepared =
      PrepareInput(url, /*allow_empty=*/false, opts.max_length, "URL", &scratch);
  if (!prepared.ok()) return prepared.status();
  url_internal::SimpleParts parts;
  if (fast && url_internal::SplitSimpleAbsolute(*prepared, &parts)) {
    return AssembleSimple(parts, opts);
  }
  auto u = ParseChecked(*prepared, /*absolute=*/true, "URL", &reparse_buf);
  if (!u.ok()) return u.status();
  CRAWLFRONT_RETURN_IF_ERROR(CheckScheme(*u));
  return Assemble(WholeUrl(*u), opts);
}

}  // namespace

Result<CanonicalUrl> Canonicalize(std::string_view url, const UrlOptions& opts) {
  return CanonicalizeImpl(url, opts, /*fast=*/true);
}

// The base is copied: its parsed view must not point into the caller's string.
// Its origin and host key are computed once for the relative fast path.
struct UrlResolver::Impl {
  Impl(std::string_view base_in, const UrlOptions& o) : base_copy(base_in), opts(o) {}

  Result<CanonicalUrl> Resolve(std::string_view ref, bool fast) const;
  Result<CanonicalUrl> ResolveSimple(const url_internal::SimpleParts& ref) const;

  std::string base_copy, base_scratch, base_reparse;
  mutable std::string ref_scratch, ref_reparse;
  const UrlOptions& opts;
  Status base_status;
  urls::url_view base;
  bool base_simple = false;  // base_origin and base_host_key are set
  Origin base_origin;
  std::string base_host_key;
};

UrlResolver::UrlResolver(std::string_view base, const UrlOptions& opts)
    : impl_(std::make_unique<Impl>(base, opts)) {
  Impl& m = *impl_;
  auto base_in =
      PrepareInput(m.base_copy, false, opts.max_length, "base", &m.base_scratch);
  if (!base_in.ok()) {
    m.base_status = base_in.status();
    return;
  }
  auto b = ParseChecked(*base_in, /*absolute=*/true, "base", &m.base_reparse);
  if (!b.ok()) {
    m.base_status = b.status();
    return;
  }
  Status st = CheckScheme(*b);
  if (!st.ok()) {
    m.base_status = Status::InvalidArgument("base: " + st.message());
    return;
  }
  if (b->encoded_host().empty()) {
    m.base_status = Status::InvalidArgument("base: URL has no host");
    return;
  }
  m.base = *b;
  // A base whose origin fails (bad host or port, credentials) keeps every
  // ref on the full path, which reports that error.
  auto origin = OriginOf(m.base.scheme_id(), m.base, opts);
  if (origin.ok()) {
    m.base_origin = std::move(origin).value();
    m.base_host_key = HostKeyFor(m.base_origin.host, opts.host_key_mode);
    m.base_simple = true;
  }
}

UrlResolver::~UrlResolver() = default;
UrlResolver::UrlResolver(UrlResolver&&) noexcept = default;
UrlResolver& UrlResolver::operator=(UrlResolver&&) noexcept = default;

const Status& UrlResolver::base_status() const { return impl_->base_status; }

// ResolveRelative for a SplitSimpleRelative ref, with the base's origin.
Result<CanonicalUrl> UrlResolver::Impl::ResolveSimple(
    const url_internal::SimpleParts& ref) const {
  std::string merged;
  const PathQuery target =
      MergeRef(PathQueryOf(base), {ref.path, ref.has_query, ref.query}, &merged);
  return Build(base_origin.https, base_origin.host, &base_host_key, base_origin.port,
               target.path, target.has_query, target.query, opts);
}

Result<CanonicalUrl> UrlResolver::Impl::Resolve(std::string_view ref, bool fast) const {
  if (!base_status.ok()) return base_status;
  auto ref_in =
      PrepareInput(ref, /*allow_empty=*/true, opts.max_length, "URL", &ref_scratch);
  if (!ref_in.ok()) return ref_in.status();
  url_internal::SimpleParts parts;
  if (fast && base_simple && url_internal::SplitSimpleRelative(*ref_in, &parts)) {
    return ResolveSimple(parts);
  }
  if (fast && (url_internal::SplitSimpleAbsolute(*ref_in, &parts) ||
               url_internal::SplitSimpleNetworkPath(
                   *ref_in, base.scheme_id() == urls::scheme::https, &parts))) {
    return AssembleSimple(parts, opts);
  }
  auto r = ParseChecked(*ref_in, /*absolute=*/false, "URL", &ref_reparse);
  if (!r.ok()) return r.status();
  // RFC 3986 5.4.2 allows reading "http:g" as "g" when the schemes match, as
  // browsers do; the strict reading ("http:g" has no host) is useless here.
  const bool same_scheme_relative =
      r->has_scheme() && !r->has_authority() && r->scheme_id() == base.scheme_id();
  if (r->has_scheme() && !same_scheme_relative) {
    CRAWLFRONT_RETURN_IF_ERROR(CheckScheme(*r));
    return Assemble(WholeUrl(*r), opts);
  }
  return ResolveRelative(base, *r, opts);
}

Result<CanonicalUrl> UrlResolver::Resolve(std::string_view ref) const {
  return impl_->Resolve(ref, /*fast=*/true);
}

Result<CanonicalUrl> ResolveAndCanonicalize(std::string_view base, std::string_view ref,
                                            const UrlOptions& opts) {
  return UrlResolver(base, opts).Resolve(ref);
}

namespace url_internal {

Result<CanonicalUrl> CanonicalizeWithFullParser(std::string_view url,
                                                const UrlOptions& opts) {
  return CanonicalizeImpl(url, opts, /*fast=*/false);
}

Result<CanonicalUrl> ResolveWithFullParser(const UrlResolver& resolver,
                                           std::string_view ref) {
  return resolver.impl_->Resolve(ref, /*fast=*/false);
}

}  // namespace url_internal

}  // namespace crawlfront
