#pragma once
// The links of every page, as the model decides them. The renderer writes
// exactly these into the HTML; the oracle follows exactly these, so neither
// ever parses HTML.

#include <string>
#include <vector>

#include "crawlfront/simweb/options.h"
#include "crawlfront/simweb/resource.h"

namespace crawlfront::simweb {

enum class Place {
  kAnchor,   // <a href>
  kArea,     // <area href> inside a <map>
  kIframe,   // <iframe src>
  kComment,  // text inside <!-- -->: not a link
  kScript,   // text inside <script>: not a link
};

struct Link {
  // The attribute value exactly as it appears in the HTML, character
  // references included (e.g. "/s?q=a&amp;n=2", "//H1.simweb.test/p/3#top").
  std::string written;
  // The canonical absolute URL it resolves to (fragment removed, host
  // lowercased, dot segments removed, default port dropped, empty path "/"),
  // or "" for links that are not http(s) URLs (mailto:, javascript:).
  std::string target;
  Place place = Place::kAnchor;
  // rel="nofollow" on the element.
  bool nofollow = false;
  // Anchor, area or iframe without rel=nofollow: a crawler extracts it.
  bool Extractable() const {
    return !nofollow &&
           (place == Place::kAnchor || place == Place::kArea || place == Place::kIframe);
  }
};

struct PageLinks {
  // Absolute <base href> of the page, or "" when it has none.
  std::string base_href;
  // <meta name="robots" content="nofollow">: no link of the page is followed.
  bool meta_nofollow = false;
  // An "X-Robots-Tag: noindex, nofollow" response header: the same, from HTTP.
  bool header_nofollow = false;
  // Character set of the page: "utf-8", "ISO-8859-1" or "Shift_JIS".
  std::string charset = "utf-8";
  std::vector<Link> links;
};

// The links of a resource; empty for resources that carry none (files,
// leaves, errors). Deterministic in (options, resource). Thread-safe.
PageLinks LinksOf(const SimWebOptions& options, const Resource& resource);

// "http://<host>/<path>" for a simweb host index.
std::string UrlOf(uint32_t host, std::string_view path);

}  // namespace crawlfront::simweb

namespace crawlfront::simweb {

// Canonical absolute URL a redirect resource sends the client to (its
// Location header, resolved). REQUIRES: resource.kind == Kind::kRedirect.
std::string RedirectTargetOf(const SimWebOptions& options, const Resource& resource);

}  // namespace crawlfront::simweb
