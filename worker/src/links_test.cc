#include "crawlfront/worker/links.h"

#include <gtest/gtest.h>
#include <gumbo.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "html_tokenizer.h"

namespace crawlfront {
namespace {

using html::HtmlTokenizer;
using html::Token;
using html::TokenType;

// One line per token: "S:name[a=v,b=w]/" (start, "/" if self-closing),
// "E:name", "C:data", "D:data", "T:text"; adjacent text tokens are merged
// (where text is split is not part of the contract).
std::string Describe(std::string_view input) {
  HtmlTokenizer tokenizer(input);
  Token t;
  std::vector<std::string> parts;
  bool last_text = false;
  while (tokenizer.Next(&t)) {
    if (t.type == TokenType::kText && last_text) {
      parts.back().append(t.data);
      continue;
    }
    last_text = t.type == TokenType::kText;
    std::string part;
    switch (t.type) {
      case TokenType::kStartTag: {
        part = "S:" + std::string(t.name);
        if (!t.attributes.empty()) {
          part += "[";
          for (size_t i = 0; i < t.attributes.size(); ++i) {
            if (i > 0) part += ",";
            part.append(t.attributes[i].name).append("=").append(t.attributes[i].value);
          }
          part += "]";
        }
        if (t.self_closing) part += "/";
        break;
      }
      case TokenType::kEndTag:
        part = "E:" + std::string(t.name);
        break;
      case TokenType::kComment:
        part = "C:" + std::string(t.data);
        break;
      case TokenType::kDoctype:
        part = "D:" + std::string(t.data);
        break;
      case TokenType::kText:
        part = "T:" + std::string(t.data);
        break;
    }
    parts.push_back(part);
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "|" : "") + parts[i];
  return out;
}

struct TokenCase {
  const char* name;
  std::string input;
  std::string expected;
};

class TokenizerTest : public testing::TestWithParam<TokenCase> {};

TEST_P(TokenizerTest, Tokenizes) {
  EXPECT_EQ(Describe(GetParam().input), GetParam().expected) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Html, TokenizerTest,
    testing::Values(
        TokenCase{"Simple", "<p>hi</p>", "S:p|T:hi|E:p"},
        TokenCase{"UppercaseTagAndAttr", "<A HREF='X'>", "S:a[href=X]"},
        TokenCase{"Unquoted", "<a href=/x/y?z=1 class=c>", "S:a[href=/x/y?z=1,class=c]"},
        TokenCase{"UnquotedSlashIsValue", "<a href=/x/>", "S:a[href=/x/]"},
        TokenCase{"MissingValue", "<input disabled>", "S:input[disabled=]"},
        TokenCase{"EmptyUnquotedValue", "<a href= >", "S:a[href=]"},
        TokenCase{"SpacesAroundEquals", "<a href = \"x\" >", "S:a[href=x]"},
        TokenCase{"DuplicateFirstWins", "<a href=1 HREF=2>", "S:a[href=1]"},
        TokenCase{"NestedQuotes", "<a title='say \"hi\"' href=\"it's\">",
                  "S:a[title=say \"hi\",href=it's]"},
        TokenCase{"NoSpaceAfterQuote", "<a href=\"x\"class=y>", "S:a[href=x,class=y]"},
        TokenCase{"EqualsStartsName", "<a =x>", "S:a[=x=]"},
        TokenCase{"NewlineInTag", "<a\nhref=x\r\n>", "S:a[href=x]"},
        TokenCase{"SelfClosing", "<br/>", "S:br/"},
        TokenCase{"SlashSpaceNotSelfClosing", "<br / >", "S:br"},
        TokenCase{"EndTagAttributesDropped", "</a href=x>", "E:a"},
        TokenCase{"Entities", "<a href=\"?a=1&amp;b=2&#38;c=3&#x26;d=&quot;\">",
                  "S:a[href=?a=1&b=2&c=3&d=\"]"},
        TokenCase{"EntitiesUnquoted", "<a href=?a&amp;b>", "S:a[href=?a&b]"},
        TokenCase{"LegacyBeforeEqualsStays", "<a href=\"?x=1&copy=2&amp\">",
                  "S:a[href=?x=1&copy=2&]"},
        TokenCase{"LegacyBeforeSpaceDecodes", "<a title=\"&copy 2024\">",
                  "S:a[title=\xC2\xA9 2024]"},
        TokenCase{"LegacyPrefixBeforeAlnumStays", "<a title=\"&notit;\">",
                  "S:a[title=&notit;]"},
        TokenCase{"UnknownEntityStays", "<a title=\"&bogus;&\">", "S:a[title=&bogus;&]"},
        TokenCase{"NamedWithSemicolon", "<a title=\"&sol;&colon;&mdash;\">",
                  "S:a[title=/:\xE2\x80\x94]"},
        TokenCase{"NumericFixups", "<a title=\"&#0;&#x80;&#128512;&#xD800;&#x110000\">",
                  "S:a[title=\xEF\xBF\xBD\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD"
                  "\xEF\xBF\xBD]"},
        TokenCase{"NumericWithoutDigitsStays", "<a title=\"&#xZZ&#;\">",
                  "S:a[title=&#xZZ&#;]"},
        TokenCase{"TextEntitiesUntouched", "a &amp; b", "T:a &amp; b"},
        TokenCase{"Comment", "a<!-- <a href=x> -->b", "T:a|C: <a href=x> |T:b"},
        TokenCase{"EmptyComment", "<!-->x", "C:|T:x"},
        TokenCase{"EmptyCommentDash", "<!--->x", "C:|T:x"},
        TokenCase{"CommentBangEnd", "<!--a--!>b", "C:a|T:b"},
        TokenCase{"CommentDashes", "<!-- a --->b", "C: a -|T:b"},
        TokenCase{"UnterminatedComment", "<!--abc <a href=x>", "C:abc <a href=x>"},
        TokenCase{"BogusComment", "<!foo>x", "C:foo|T:x"},
        TokenCase{"ProcessingInstruction", "<?xml v?>x", "C:?xml v?|T:x"},
        TokenCase{"CdataOutsideForeign", "<![CDATA[ <a href=x> ]]>",
                  "C:[CDATA[ <a href=x|T: ]]>"},
        TokenCase{"EndTagDigit", "</3>x", "C:3|T:x"},
        TokenCase{"Doctype", "<!DOCTYPE html><p>", "D: html|S:p"},
        TokenCase{"DoctypeLowercase", "<!doctype html>", "D: html"},
        TokenCase{"Script", "<script>if(a<b)w('<a href=x>')</script><a href=y>",
                  "S:script|T:if(a<b)w('<a href=x>')|E:script|S:a[href=y]"},
        TokenCase{"ScriptDoubleEscaped",
                  "<script><!--<script></script><a href=x>--></script>z",
                  "S:script|T:<!--<script></script><a href=x>-->|E:script|T:z"},
        TokenCase{"ScriptEscapeClosed", "<script><!-- x --></script>",
                  "S:script|T:<!-- x -->|E:script"},
        TokenCase{"ScriptEscapedEnds", "<script><!--</script><a>",
                  "S:script|T:<!--|E:script|S:a"},
        TokenCase{"ScriptEmptyEscape", "<script><!--><script></script>",
                  "S:script|T:<!--><script>|E:script"},
        TokenCase{"ScriptUnterminated", "<script>x <a href=y>",
                  "S:script|T:x <a href=y>"},
        TokenCase{"ScriptSelfClosingStillRaw", "<script/><a href=x></script>",
                  "S:script/|T:<a href=x>|E:script"},
        TokenCase{"Style", "<style>a<b>{}</style>", "S:style|T:a<b>{}|E:style"},
        TokenCase{"StyleEndTagCase", "<STYLE>x</Style >y", "S:style|T:x|E:style|T:y"},
        TokenCase{"RawTextNeedsWholeName", "<style>x</styles>y</style>",
                  "S:style|T:x</styles>y|E:style"},
        TokenCase{"Title", "<title><a href=x></title>", "S:title|T:<a href=x>|E:title"},
        TokenCase{"Textarea", "<textarea><a href=x></textarea>",
                  "S:textarea|T:<a href=x>|E:textarea"},
        TokenCase{"EmptyRawText", "<title></title>", "S:title|E:title"},
        TokenCase{"Plaintext", "<plaintext><a href=x></plaintext>",
                  "S:plaintext|T:<a href=x></plaintext>"},
        TokenCase{"TagCutAtEof", "t<a href=x", "T:t"},
        TokenCase{"QuotedValueCutAtEof", "t<a href='x>", "T:t"},
        TokenCase{"TagAtEof", "<a href=x>", "S:a[href=x]"},
        TokenCase{"LessThanText", "a < b", "T:a < b"},
        TokenCase{"LessThanAtEof", "a<", "T:a<"},
        TokenCase{"EndTagOpenAtEof", "a</", "T:a</"},
        TokenCase{"EmptyEndTagDropped", "a</>b", "T:ab"},
        TokenCase{"MalformedMix", "<p <a href=x>", "S:p[<a=,href=x]"},
        TokenCase{"Empty", "", ""}),
    [](const testing::TestParamInfo<TokenCase>& info) {
      return std::string(info.param.name);
    });

constexpr char kPage[] = "http://ex.test/dir/page.html";

struct LinkCase {
  const char* name;
  std::string html;
  std::vector<std::string> links;
};

class ExtractTest : public testing::TestWithParam<LinkCase> {};

TEST_P(ExtractTest, Extracts) {
  EXPECT_EQ(ExtractLinks(GetParam().html, kPage).links, GetParam().links)
      << GetParam().html;
}

INSTANTIATE_TEST_SUITE_P(
    Links, ExtractTest,
    testing::Values(
        LinkCase{"Relative",
                 "<a href=a.html><a href=../b><a href=/c><a href=?q=1>",
                 {"http://ex.test/dir/a.html", "http://ex.test/b", "http://ex.test/c",
                  "http://ex.test/dir/page.html?q=1"}},
        LinkCase{"SchemeRelative", "<a href=//other.test/d>", {"http://other.test/d"}},
        LinkCase{"Https", "<a href=https://s.test/x>", {"https://s.test/x"}},
        LinkCase{"FragmentRemoved",
                 "<a href='/x#top'><a href='#only'><a href=''>",
                 {"http://ex.test/x"}},
        LinkCase{"DedupAfterResolve",
                 "<a href=a.html><a href=/dir/a.html><a href=a.html>",
                 {"http://ex.test/dir/a.html"}},
        LinkCase{"NonHttpDropped",
                 "<a href='mailto:x@y.test'><a href='javascript:go()'>"
                 "<a href='ftp://f.test/'><a href='data:text/html,hi'><a href=/ok>",
                 {"http://ex.test/ok"}},
        LinkCase{"NoHostDropped", "<a href='http:///x'>", {}},
        LinkCase{"ElementKinds",
                 "<area href=/area><iframe src=/if></iframe><frame src=/fr>"
                 "<link rel=canonical href=/can><link rel='Alternate' href=/alt>"
                 "<link rel=next href=/next><link rel=stylesheet href=/css>"
                 "<img src=/img><a name=x>",
                 {"http://ex.test/area", "http://ex.test/if", "http://ex.test/fr",
                  "http://ex.test/can", "http://ex.test/alt", "http://ex.test/next"}},
        LinkCase{"Base",
                 "<a href=first><base href='http://cdn.test/x/'><a href=y>",
                 {"http://cdn.test/x/first", "http://cdn.test/x/y"}},
        LinkCase{"RelativeBase", "<base href=/sub/><a href=y>", {"http://ex.test/sub/y"}},
        LinkCase{"SecondBaseIgnored",
                 "<base href=/one/><base href=/two/><a href=y>",
                 {"http://ex.test/one/y"}},
        LinkCase{"BaseWithoutHrefIgnored",
                 "<base target=_top><base href=/b/><a href=y>",
                 {"http://ex.test/b/y"}},
        LinkCase{"MetaRefresh",
                 "<meta http-equiv=Refresh content='5; url=/next'>",
                 {"http://ex.test/next"}},
        LinkCase{"MetaRefreshQuoted",
                 "<meta http-equiv=refresh content=\"0;URL='http://x.test/y'\">",
                 {"http://x.test/y"}},
        LinkCase{"MetaRefreshNoUrl", "<meta http-equiv=refresh content=3>", {}},
        LinkCase{"HiddenInCommentAndScript",
                 "<!-- <a href=/c> --><script>'<a href=/s>'</script>"
                 "<style><a href=/st></style><title><a href=/t></title><a href=/real>",
                 {"http://ex.test/real"}},
        LinkCase{"WhitespaceAndEncoding",
                 "<a href='  /a b\n/c  '><a href='/\xC3\xA9t\xC3\xA9'><a href='/%zz'>",
                 {"http://ex.test/a%20b/c", "http://ex.test/%C3%A9t%C3%A9",
                  "http://ex.test/%25zz"}},
        LinkCase{
            "EntityInHref", "<a href='/p?a=1&amp;b=2'>", {"http://ex.test/p?a=1&b=2"}},
        LinkCase{"Backslashes",
                 "<a href='\\foo\\bar?x=\\y'>",
                 {"http://ex.test/foo/bar?x=%5Cy"}},
        LinkCase{"DotSegments", "<a href='/a/./b/../c'>", {"http://ex.test/a/c"}},
        LinkCase{"Ipv6Host", "<a href='http://[::1]:8080/x'>", {"http://[::1]:8080/x"}},
        LinkCase{"UnclosedAtEof", "<a href=/last>", {"http://ex.test/last"}},
        LinkCase{"CutTagAtEof", "<a href=/ok><a href=/cut", {"http://ex.test/ok"}}),
    [](const testing::TestParamInfo<LinkCase>& info) {
      return std::string(info.param.name);
    });

TEST(ExtractLinks, RelNofollow) {
  const std::string page =
      "<a href=/a rel='external NoFollow'><link rel='next nofollow' href=/n><a href=/b>";
  ExtractedLinks out = ExtractLinks(page, kPage);
  EXPECT_EQ(out.links, std::vector<std::string>{"http://ex.test/b"});
  EXPECT_EQ(out.nofollow_skipped, 2u);
  out = ExtractLinks(page, kPage, {.respect_nofollow = false});
  EXPECT_EQ(out.links.size(), 3u);
  EXPECT_EQ(out.nofollow_skipped, 0u);
}

TEST(ExtractLinks, MetaRobotsNofollow) {
  for (const std::string content : {"noindex, NOFOLLOW", "none"}) {
    const std::string page =
        "<meta name=Robots content='" + content + "'><a href=/a><a href=/b>";
    ExtractedLinks out = ExtractLinks(page, kPage);
    EXPECT_TRUE(out.meta_nofollow) << content;
    EXPECT_TRUE(out.links.empty());
    EXPECT_EQ(out.nofollow_skipped, 2u);
    out = ExtractLinks(page, kPage, {.respect_nofollow = false});
    EXPECT_TRUE(out.meta_nofollow);
    EXPECT_EQ(out.links.size(), 2u);
  }
  EXPECT_FALSE(
      ExtractLinks("<meta name=robots content=noindex><a href=/a>", kPage).meta_nofollow);
}

// <meta name="mybot"> addresses one crawler: it counts when it names ours.
TEST(ExtractLinks, MetaNofollowForThisCrawler) {
  const std::string page = "<meta name=' MyBot ' content=nofollow><a href=/a>";
  EXPECT_FALSE(ExtractLinks(page, kPage).meta_nofollow) << "no token: only name=robots";
  EXPECT_TRUE(ExtractLinks(page, kPage, {.robots_token = "mybot"}).meta_nofollow);
  ExtractedLinks out = ExtractLinks(page, kPage, {.robots_token = "otherbot"});
  EXPECT_FALSE(out.meta_nofollow);
  EXPECT_EQ(out.links, std::vector<std::string>{"http://ex.test/a"});
}

TEST(RobotsTagSaysNofollow, DirectivesAndCrawlerNames) {
  struct Case {
    const char* value;
    bool nofollow;
  };
  const Case cases[] = {
      {"nofollow", true},
      {"noindex, NOFOLLOW", true},
      {" none ", true},
      {"noindex", false},
      {"", false},
      {"nofollowing", false},
      {"mybot: nofollow", true},
      {"MyBot:noindex,nofollow", true},
      {"otherbot: nofollow", false},
      {"otherbot: noindex, nofollow", false},
      {"unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow", true},  // a directive
      {"max-snippet: 20, nofollow", true},
      {"noindex, unavailable_after: 25 Jun 2010", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RobotsTagSaysNofollow(c.value, "mybot"), c.nofollow) << c.value;
  }
  EXPECT_FALSE(RobotsTagSaysNofollow("mybot: nofollow", "")) << "no token: named values skip";
}

TEST(ExtractLinks, MaxLinksTruncates) {
  std::string page;
  for (int i = 0; i < 50; ++i) page += "<a href=/p" + std::to_string(i) + ">";
  ExtractedLinks out = ExtractLinks(page, kPage, {.max_links = 10});
  ASSERT_EQ(out.links.size(), 10u);
  EXPECT_EQ(out.links.front(), "http://ex.test/p0");
  EXPECT_EQ(out.links.back(), "http://ex.test/p9");
  EXPECT_TRUE(out.truncated);
  out = ExtractLinks(page, kPage, {.max_links = 50});
  EXPECT_EQ(out.links.size(), 50u);
  EXPECT_FALSE(out.truncated);
}

TEST(ExtractLinks, ReportsResolvedBase) {
  EXPECT_EQ(ExtractLinks("<base href='../up/'>", kPage).base,
            std::optional<std::string>("http://ex.test/up/"));
  EXPECT_EQ(ExtractLinks("<base href='javascript:x'><a href=y>", kPage).base,
            std::nullopt);
  EXPECT_EQ(ExtractLinks("<a href=y>", kPage).base, std::nullopt);
}

TEST(ExtractLinks, InvalidPageUrlKeepsOnlyAbsolute) {
  const ExtractedLinks out =
      ExtractLinks("<a href=/rel><a href='http://abs.test/x'>", "not a url");
  EXPECT_EQ(out.links, std::vector<std::string>{"http://abs.test/x"});
}

// ---- Agreement with gumbo's tree: the a/area hrefs of a document ----

void CollectGumbo(const GumboNode* node, std::set<std::string>* out) {
  if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) return;
  const GumboElement& el = node->v.element;
  if (el.tag == GUMBO_TAG_A || el.tag == GUMBO_TAG_AREA) {
    if (const GumboAttribute* href = gumbo_get_attribute(&el.attributes, "href")) {
      out->insert(href->value);
    }
  }
  for (unsigned i = 0; i < el.children.length; ++i) {
    CollectGumbo(static_cast<const GumboNode*>(el.children.data[i]), out);
  }
}

std::set<std::string> GumboHrefs(const std::string& doc) {
  GumboOutput* output =
      gumbo_parse_with_options(&kGumboDefaultOptions, doc.data(), doc.size());
  std::set<std::string> hrefs;
  CollectGumbo(output->root, &hrefs);
  gumbo_destroy_output(&kGumboDefaultOptions, output);
  return hrefs;
}

std::set<std::string> TokenizerHrefs(const std::string& doc) {
  HtmlTokenizer tokenizer(doc);
  Token t;
  std::set<std::string> hrefs;
  while (tokenizer.Next(&t)) {
    if (t.type != TokenType::kStartTag || (t.name != "a" && t.name != "area")) continue;
    if (const html::Attribute* href = t.Find("href")) hrefs.emplace(href->value);
  }
  return hrefs;
}

// Pieces of markup that stress the tokenizer; "%d" is replaced by a counter.
const std::vector<std::string>& Pieces() {
  static const std::vector<std::string> kPieces = {
      "<a href=\"/dq%d\">t</a>",
      "<a href='/sq%d'>t</a>",
      "<a href=/uq%d>t</a>",
      "<A HREF=\"/UP%d\">T</A>",
      "<a href=\"/e%d?a=1&amp;b=2&#38;c&#x26;d&quot;\">e</a>",
      "<a href=\"/l%d?copy=1&copy=2&amp\">l</a>",
      "<a href=\"/l%d?x=&lt;&gt;&nbsp;\">l</a>",
      "<!-- <a href=\"/c%d\"> -->",
      "<!--><a href=/ce%d>",
      "<!--->",
      "<script>var s = \"<a href='/s%d'>\"; if (a<b) {}</script>",
      "<script><!-- document.write(\"<script></script><a href='/e%d'>\") --></script>",
      "<style>/* <a href=\"/st%d\"> */ a>b{}</style>",
      "<textarea><a href=\"/ta%d\"></textarea>",
      "<title>x <a href=/ti%d></title>",
      "<map name=m><area href=\"/ar%d\" alt=x></map>",
      "<a href=\"/d1-%d\" HREF=\"/d2-%d\">dup</a>",
      "<a title='x \"q\"' href='/q%d'>q</a>",
      "a < b & c > d",
      "<!x <a href=/bog%d> >",
      "<?php echo \"<a href='/php%d'>\" ?>",
      "<![CDATA[ <a href=\"/cd%d\"> ]]>",
      "<div><p>para <b>bold <i>both</b> it</i></p></div>",
      "<table><tr><td><a href=/td%d>cell</a></td></tr></table>",
      "<a href=/open%d>unclosed",
      "<a href=\"/nl%d\"\nclass=x\n>",
      "<p <a href=/mal%d>",
      "<a href = \"/sp%d\" >",
      "</a href=/end%d>",
      "<br/><img src=/i.png/>",
      "<noscript><a href=/ns%d></noscript>",
  };
  return kPieces;
}

std::string GenerateDocument(std::mt19937* rng, int pieces) {
  std::string doc = "<!DOCTYPE html><html><head><title>t</title></head><body>";
  std::uniform_int_distribution<size_t> pick(0, Pieces().size() - 1);
  for (int i = 0; i < pieces; ++i) {
    std::string piece = Pieces()[pick(*rng)];
    for (size_t at; (at = piece.find("%d")) != std::string::npos;) {
      piece.replace(at, 2, std::to_string(i));
    }
    doc += piece;
  }
  if ((*rng)() % 4 == 0) doc += "<a href=\"/cut-at-eof";
  return doc;
}

TEST(GumboAgreement, HandwrittenDocuments) {
  const std::string docs[] = {
      "<a href=x>",
      "<a href=x",
      "<body><a href=1><a href=2></a></a></body>",
      "<table><a href=foster>x</a><tr><td>c</td></tr></table>",
      "<ul><li><a href=/a>a<li><a href=/b>b</ul>",
      "<script>document.write('<a href=no>')</script><a href=yes>",
      "<template><a href=/tpl>t</a></template>",
      "<a href='&#x2F;slash&#47;'>s</a>",
      "<!-- a -- b --><a href=/after>",
  };
  for (const std::string& doc : docs) {
    EXPECT_EQ(TokenizerHrefs(doc), GumboHrefs(doc)) << doc;
  }
}

TEST(GumboAgreement, GeneratedDocuments) {
  std::mt19937 rng(20240607);
  int with_links = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string doc = GenerateDocument(&rng, 5 + i % 40);
    const std::set<std::string> gumbo = GumboHrefs(doc);
    ASSERT_EQ(TokenizerHrefs(doc), gumbo) << doc;
    with_links += !gumbo.empty();
  }
  EXPECT_GT(with_links, 250);  // the corpus really exercises links
}

}  // namespace
}  // namespace crawlfront
