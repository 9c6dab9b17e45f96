#include "dom.h"

#include <cctype>

namespace crawlfront::ui {
namespace {

std::string Lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Position of the '<' that opens the start tag holding id="<id>", or npos.
size_t StartTagOf(const std::string& dom, const std::string& id) {
  size_t at = dom.find(" id=\"" + id + "\"");
  if (at == std::string::npos) return std::string::npos;
  return dom.rfind('<', at);
}

std::string TagName(const std::string& dom, size_t lt) {
  size_t end = lt + 1;
  while (end < dom.size() && std::isalnum(static_cast<unsigned char>(dom[end]))) ++end;
  return dom.substr(lt + 1, end - lt - 1);
}

// Text of `html` with every <...> removed.
std::string StripTags(const std::string& html) {
  std::string out;
  bool in_tag = false;
  for (char c : html) {
    if (c == '<') in_tag = true;
    if (!in_tag) out += c;
    if (c == '>') in_tag = false;
  }
  return out;
}

// The contents of every <tag ...>...</tag> in `html`, in order.
std::vector<std::string> Children(const std::string& html, const std::string& tag) {
  std::vector<std::string> out;
  const std::string close = "</" + tag + ">";
  size_t pos = 0;
  while (pos < html.size()) {  // each round moves pos forward or ends
    size_t open = html.find("<" + tag, pos);
    if (open == std::string::npos) break;
    size_t gt = html.find('>', open);
    size_t end = gt == std::string::npos ? gt : html.find(close, gt);
    if (end == std::string::npos) break;
    out.push_back(html.substr(gt + 1, end - gt - 1));
    pos = end + close.size();
  }
  return out;
}

}  // namespace

std::optional<std::string> InnerHtml(const std::string& dom, const std::string& id) {
  size_t lt = StartTagOf(dom, id);
  if (lt == std::string::npos) return std::nullopt;
  size_t gt = dom.find('>', lt);
  if (gt == std::string::npos) return std::nullopt;
  size_t end = dom.find("</" + TagName(dom, lt) + ">", gt);
  if (end == std::string::npos) return std::nullopt;
  return dom.substr(gt + 1, end - gt - 1);
}

std::optional<std::string> Attribute(const std::string& dom, const std::string& id,
                                     const std::string& attr) {
  size_t lt = StartTagOf(dom, id);
  if (lt == std::string::npos) return std::nullopt;
  std::string tag = dom.substr(lt, dom.find('>', lt) - lt);
  size_t at = tag.find(" " + attr + "=\"");
  if (at == std::string::npos) return std::nullopt;
  size_t begin = at + attr.size() + 3;
  size_t end = tag.find('"', begin);
  if (end == std::string::npos) return std::nullopt;
  return tag.substr(begin, end - begin);
}

std::vector<std::vector<std::string>> TableRows(const std::string& tbody_html) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& tr : Children(tbody_html, "tr")) {
    std::vector<std::string> cells;
    for (const std::string& td : Children(tr, "td")) cells.push_back(StripTags(td));
    rows.push_back(std::move(cells));
  }
  return rows;
}

std::map<std::string, std::string> KeyValues(const std::string& tbody_html) {
  std::map<std::string, std::string> out;
  for (auto& row : TableRows(tbody_html)) {
    if (row.size() == 2) out[row[0]] = row[1];
  }
  return out;
}

std::optional<int64_t> ParseCount(const std::string& text) {
  int64_t value = 0;
  bool any = false;
  for (char c : text) {
    if (c == ',') continue;
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    if (value > (INT64_MAX - 9) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
    any = true;
  }
  return any ? std::optional<int64_t>(value) : std::nullopt;
}

size_t CountCaseInsensitive(const std::string& haystack, const std::string& needle) {
  if (needle.empty()) return 0;
  std::string h = Lower(haystack), n = Lower(needle);
  size_t count = 0;
  for (size_t pos = h.find(n); pos != std::string::npos;
       pos = h.find(n, pos + n.size())) {
    ++count;
  }
  return count;
}

}  // namespace crawlfront::ui
