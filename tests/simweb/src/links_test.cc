// Cross-checks the model against a real HTML parser: what gumbo extracts from
// the rendered pages, resolved with Boost.URL, must be exactly the model's
// link list. This is what lets the oracle skip HTML parsing.

#include "crawlfront/simweb/links.h"

#include <gtest/gtest.h>
#include <gumbo.h>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include "crawlfront/simweb/oracle.h"
#include "test_util.h"

namespace crawlfront::simweb {
namespace {

using testing::MakeWeb;
using testing::SmallWeb;

struct Extracted {
  std::string base;
  bool meta_nofollow = false;
  std::vector<std::pair<std::string, bool>> hrefs;  // value, rel=nofollow
};

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

const char* Attribute(const GumboElement& element, const char* name) {
  GumboAttribute* attribute = gumbo_get_attribute(&element.attributes, name);
  return attribute ? attribute->value : nullptr;
}

void Collect(const GumboNode* node, Extracted& out) {
  if (node->type != GUMBO_NODE_ELEMENT) return;
  const GumboElement& element = node->v.element;
  const char* rel = Attribute(element, "rel");
  bool nofollow = rel && Lower(rel).find("nofollow") != std::string::npos;
  if (element.tag == GUMBO_TAG_A || element.tag == GUMBO_TAG_AREA) {
    if (const char* href = Attribute(element, "href"))
      out.hrefs.push_back({href, nofollow});
  } else if (element.tag == GUMBO_TAG_IFRAME) {
    if (const char* src = Attribute(element, "src")) out.hrefs.push_back({src, false});
  } else if (element.tag == GUMBO_TAG_BASE && out.base.empty()) {
    if (const char* href = Attribute(element, "href")) out.base = href;
  } else if (element.tag == GUMBO_TAG_META) {
    const char* name = Attribute(element, "name");
    const char* content = Attribute(element, "content");
    if (name && content && Lower(name) == "robots" &&
        Lower(content).find("nofollow") != std::string::npos) {
      out.meta_nofollow = true;
    }
  }
  for (unsigned i = 0; i < element.children.length; ++i) {
    Collect(static_cast<const GumboNode*>(element.children.data[i]), out);
  }
}

Extracted Parse(const std::string& html) {
  GumboOutput* output =
      gumbo_parse_with_options(&kGumboDefaultOptions, html.data(), html.size());
  Extracted out;
  Collect(output->root, out);
  gumbo_destroy_output(&kGumboDefaultOptions, output);
  return out;
}

// Resolves `href` against `base` and canonicalizes; "" for non-http(s).
std::string Resolve(const std::string& base, const std::string& href) {
  auto base_url = boost::urls::parse_uri(base);
  auto reference = boost::urls::parse_uri_reference(href);
  EXPECT_TRUE(base_url && reference) << base << " + " << href;
  if (!base_url || !reference) return "<unparsable>";
  boost::urls::url resolved;
  auto ok = boost::urls::resolve(*base_url, *reference, resolved);
  EXPECT_TRUE(ok) << base << " + " << href;
  std::string scheme = Lower(std::string(resolved.scheme()));
  if (scheme != "http" && scheme != "https") return "";
  Result<std::string> canonical = CanonicalUrl(resolved.buffer());
  EXPECT_TRUE(canonical.ok()) << resolved.buffer();
  return canonical.ok() ? *canonical : "<bad>";
}

void ExpectParserAgreesWithModel(const SimWeb& web, uint32_t host,
                                 const std::string& path) {
  Resource resource = Route(web.options(), host, path);
  PageLinks model = LinksOf(web.options(), resource);
  Response response = web.Fetch(HostName(host), path);
  ASSERT_EQ(response.status, 200) << path;
  Extracted parsed = Parse(response.body);
  EXPECT_EQ(parsed.base, model.base_href) << path;
  EXPECT_EQ(parsed.meta_nofollow, model.meta_nofollow) << path;
  std::string base = parsed.base.empty() ? UrlOf(host, path) : parsed.base;
  std::vector<std::pair<std::string, bool>> from_html, from_model;
  for (const auto& [href, nofollow] : parsed.hrefs) {
    std::string target = Resolve(base, href);
    if (!target.empty()) from_html.push_back({target, nofollow});
  }
  for (const Link& link : model.links) {
    if (link.place == Place::kComment || link.place == Place::kScript) continue;
    if (!link.target.empty()) from_model.push_back({link.target, link.nofollow});
  }
  EXPECT_EQ(from_html, from_model) << HostName(host) << path;
}

TEST(LinksTest, HtmlParserExtractsExactlyTheModelsLinks) {
  SimWeb web = MakeWeb(SmallWeb());
  for (uint32_t host = 0; host < web.options().hosts; ++host) {
    for (uint32_t page = 0; page < web.options().pages; ++page) {
      ExpectParserAgreesWithModel(web, host,
                                  page == 0 ? "/" : "/p/" + std::to_string(page));
    }
    ExpectParserAgreesWithModel(web, host, "/slow/0");
  }
  ExpectParserAgreesWithModel(web, 1, "/big/0");
  ExpectParserAgreesWithModel(web, 0, "/cal/2024/1");
}

TEST(LinksTest, PagesUseEverySpellingOfALink) {
  SimWeb web = MakeWeb(SmallWeb());
  const std::vector<std::string> spellings = {
      "//", "HTTP://", ":80/", "../", "./", "&#47;", "&amp;", "#", "/x/..", "mailto:"};
  std::vector<int> seen(spellings.size(), 0);
  int bases = 0, meta = 0, header = 0, comments = 0, scripts = 0, nofollows = 0, areas = 0,
      iframes = 0;
  for (uint32_t host = 0; host < web.options().hosts; ++host) {
    for (uint32_t page = 0; page < web.options().pages; ++page) {
      PageLinks links = LinksOf(web.options(), Resource{Kind::kPage, host, page, 0});
      bases += !links.base_href.empty();
      meta += links.meta_nofollow;
      header += links.header_nofollow;
      EXPECT_FALSE(links.meta_nofollow && links.header_nofollow) << "one way or the other";
      for (const Link& link : links.links) {
        for (size_t i = 0; i < spellings.size(); ++i) {
          seen[i] += link.written.find(spellings[i]) != std::string::npos;
        }
        comments += link.place == Place::kComment;
        scripts += link.place == Place::kScript;
        areas += link.place == Place::kArea;
        iframes += link.place == Place::kIframe;
        nofollows += link.nofollow;
      }
    }
  }
  for (size_t i = 0; i < spellings.size(); ++i) EXPECT_GT(seen[i], 0) << spellings[i];
  EXPECT_GT(bases, 0);
  EXPECT_GT(meta, 0);
  EXPECT_GT(header, 0);
  EXPECT_GT(comments, 0);
  EXPECT_GT(scripts, 0);
  EXPECT_GT(nofollows, 0);
  EXPECT_GT(areas, 0);
  EXPECT_GT(iframes, 0);
}

TEST(LinksTest, EveryInScopeTargetIsCanonical) {
  SimWeb web = MakeWeb(SmallWeb());
  for (uint32_t host = 0; host < web.options().hosts; ++host) {
    for (uint32_t page = 0; page < web.options().pages; ++page) {
      for (const Link& link :
           LinksOf(web.options(), Resource{Kind::kPage, host, page, 0}).links) {
        if (link.target.empty()) continue;
        Result<std::string> canonical = CanonicalUrl(link.target);
        ASSERT_TRUE(canonical.ok()) << link.target;
        EXPECT_EQ(*canonical, link.target);
        EXPECT_LE(link.target.size(), 200u);
      }
    }
  }
}

}  // namespace
}  // namespace crawlfront::simweb
