#pragma once
// Just enough HTML reading for the dashboard tests: the serialized DOM that
// chromium --dump-dom prints is regular (quoted attributes, closed tags), so
// plain string search is enough. Not a general HTML parser.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace crawlfront::ui {

// The markup between the start tag carrying id="<id>" and its end tag, or
// nullopt when there is no such element. REQUIRES: the element does not
// contain an element of its own tag name (true for the dashboard's tbody,
// span and div elements).
std::optional<std::string> InnerHtml(const std::string& dom, const std::string& id);

// The value of attribute `attr` on the element with id="<id>", or nullopt
// when the element or the attribute is missing. Entities are not decoded.
std::optional<std::string> Attribute(const std::string& dom, const std::string& id,
                                     const std::string& attr);

// Each <tr> of a table body as the text of its cells (tags inside a cell
// removed, entities kept as written).
std::vector<std::vector<std::string>> TableRows(const std::string& tbody_html);

// Two-column rows ("name", "value") as a map; other rows are ignored.
std::map<std::string, std::string> KeyValues(const std::string& tbody_html);

// "1,234" -> 1234; nullopt unless the text is digits and thousands commas.
std::optional<int64_t> ParseCount(const std::string& text);

// Number of non-overlapping, ASCII case-insensitive occurrences of `needle`.
size_t CountCaseInsensitive(const std::string& haystack, const std::string& needle);

}  // namespace crawlfront::ui
