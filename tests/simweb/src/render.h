#pragma once
// Bodies of simweb responses, generated on demand. Internal to simweb.

#include <string>
#include <string_view>

#include "crawlfront/simweb/links.h"
#include "crawlfront/simweb/options.h"
#include "crawlfront/simweb/resource.h"

namespace crawlfront::simweb {

// The HTML of a page resource: head (charset, robots meta, base), text, and
// exactly `links` written in their places. Large pages get filler text before
// the links. Bytes are in links.charset.
std::string RenderHtml(const SimWebOptions& options, const Resource& resource,
                       const PageLinks& links);

// A small PDF whose text mentions a /hidden/pdf/ URL (not a link).
std::string RenderPdf(const SimWebOptions& options, const Resource& resource);

// A valid 1x1 PNG with a text chunk naming the resource.
std::string RenderPng(const Resource& resource);

// /sitemap.xml (an index), /sitemap-pages.xml.gz (gzip) or
// /sitemap-orphans.xml of options.sitemaps.
std::string RenderSitemap(const SimWebOptions& options, const Resource& resource);

// A link-free HTML page for error statuses.
std::string RenderErrorPage(int status, std::string_view reason);

}  // namespace crawlfront::simweb
