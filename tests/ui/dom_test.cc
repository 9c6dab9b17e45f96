// The string-search helpers the dashboard tests read the DOM with.

#include "dom.h"

#include <gtest/gtest.h>

namespace crawlfront::ui {
namespace {

const std::string kDom =
    "<html><body><span id=\"conn\" class=\"badge ok\">live 10:00</span>"
    "<canvas id=\"rates\" width=\"900\" data-points=\"42\"></canvas>"
    "<table><tbody id=\"totals\"><tr><td>URLs seen</td><td>1,234</td></tr>"
    "<tr><td>fetched</td><td class=\"num\"><b>7</b></td></tr>"
    "<tr><td>a</td><td>b</td><td>c</td></tr></tbody></table></body></html>";

TEST(DomTest, InnerHtmlAndAttributes) {
  EXPECT_EQ(InnerHtml(kDom, "conn"), "live 10:00");
  EXPECT_EQ(InnerHtml(kDom, "rates"), "");
  EXPECT_EQ(InnerHtml(kDom, "missing"), std::nullopt);
  EXPECT_EQ(Attribute(kDom, "rates", "data-points"), "42");
  EXPECT_EQ(Attribute(kDom, "rates", "width"), "900");
  EXPECT_EQ(Attribute(kDom, "rates", "height"), std::nullopt);
  EXPECT_EQ(Attribute(kDom, "conn", "data-points"), std::nullopt);
}

TEST(DomTest, TableRowsAndKeyValues) {
  auto rows = TableRows(InnerHtml(kDom, "totals").value_or(""));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1], (std::vector<std::string>{"fetched", "7"}));
  EXPECT_EQ(rows[2].size(), 3u);
  auto kv = KeyValues(InnerHtml(kDom, "totals").value_or(""));
  EXPECT_EQ(kv.size(), 2u);
  EXPECT_EQ(kv["URLs seen"], "1,234");
}

TEST(DomTest, ParseCount) {
  struct Case {
    std::string text;
    std::optional<int64_t> want;
  } cases[] = {{"0", 0},
               {"1,234", 1234},
               {"12", 12},
               {"", std::nullopt},
               {"-1", std::nullopt},
               {"1.5", std::nullopt},
               {"99999999999999999999", std::nullopt}};
  for (const auto& c : cases) EXPECT_EQ(ParseCount(c.text), c.want) << c.text;
}

TEST(DomTest, CountCaseInsensitive) {
  EXPECT_EQ(CountCaseInsensitive("<script><SCRIPT>x<Script", "<script"), 3u);
  EXPECT_EQ(CountCaseInsensitive("aaaa", "aa"), 2u);
  EXPECT_EQ(CountCaseInsensitive("abc", ""), 0u);
}

}  // namespace
}  // namespace crawlfront::ui
