#include "html_tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace crawlfront::html {
namespace {

// More attributes than this on one tag are read but dropped: it keeps the
// first-wins duplicate check linear on hostile input. Real tags have < 30.
constexpr size_t kMaxAttributes = 256;
// Longest name in the character reference table, plus slack.
constexpr size_t kMaxReferenceName = 32;

// HTML5 "ASCII whitespace" (CR included: the input stream turns it into LF).
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
char Lower(char c) { return IsUpper(c) ? static_cast<char>(c + 32) : c; }

bool StartsWithIgnoreCase(std::string_view s, size_t at, std::string_view prefix) {
  if (s.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (Lower(s[at + i]) != prefix[i]) return false;
  }
  return true;
}

struct Entity {
  std::string_view name;  // without the ';'
  bool legacy;            // also recognized without ';'
  std::string_view utf8;
};

// Generated from the WHATWG table (via Python's html.entities.html5): every
// legacy entity, every entity whose value is ASCII, and common typography.
// Sorted by name for binary search.
// clang-format off
constexpr Entity kEntities[] = {
    {"AElig", true, "\xC3\x86"}, {"AMP", true, "&"}, {"Aacute", true, "\xC3\x81"},
    {"Acirc", true, "\xC3\x82"}, {"Agrave", true, "\xC3\x80"},
    {"Alpha", false, "\xCE\x91"}, {"Aring", true, "\xC3\x85"},
    {"Atilde", true, "\xC3\x83"}, {"Auml", true, "\xC3\x84"},
    {"Beta", false, "\xCE\x92"}, {"COPY", true, "\xC2\xA9"},
    {"Ccedil", true, "\xC3\x87"}, {"Dagger", false, "\xE2\x80\xA1"},
    {"Delta", false, "\xCE\x94"}, {"DiacriticalGrave", false, "`"},
    {"ETH", true, "\xC3\x90"}, {"Eacute", true, "\xC3\x89"}, {"Ecirc", true, "\xC3\x8A"},
    {"Egrave", true, "\xC3\x88"}, {"Euml", true, "\xC3\x8B"}, {"GT", true, ">"},
    {"Gamma", false, "\xCE\x93"}, {"Hat", false, "^"}, {"Iacute", true, "\xC3\x8D"},
    {"Icirc", true, "\xC3\x8E"}, {"Igrave", true, "\xC3\x8C"},
    {"Iuml", true, "\xC3\x8F"}, {"LT", true, "<"}, {"NewLine", false, "\x0A"},
    {"Ntilde", true, "\xC3\x91"}, {"OElig", false, "\xC5\x92"},
    {"Oacute", true, "\xC3\x93"}, {"Ocirc", true, "\xC3\x94"},
    {"Ograve", true, "\xC3\x92"}, {"Omega", false, "\xCE\xA9"},
    {"Oslash", true, "\xC3\x98"}, {"Otilde", true, "\xC3\x95"},
    {"Ouml", true, "\xC3\x96"}, {"Pi", false, "\xCE\xA0"},
    {"Prime", false, "\xE2\x80\xB3"}, {"QUOT", true, "\""}, {"REG", true, "\xC2\xAE"},
    {"Scaron", false, "\xC5\xA0"}, {"Sigma", false, "\xCE\xA3"},
    {"THORN", true, "\xC3\x9E"}, {"Tab", false, "\x09"}, {"Uacute", true, "\xC3\x9A"},
    {"Ucirc", true, "\xC3\x9B"}, {"Ugrave", true, "\xC3\x99"}, {"UnderBar", false, "_"},
    {"Uuml", true, "\xC3\x9C"}, {"VerticalLine", false, "|"},
    {"Yacute", true, "\xC3\x9D"}, {"Yuml", false, "\xC5\xB8"},
    {"aacute", true, "\xC3\xA1"}, {"acirc", true, "\xC3\xA2"},
    {"acute", true, "\xC2\xB4"}, {"aelig", true, "\xC3\xA6"},
    {"agrave", true, "\xC3\xA0"}, {"alpha", false, "\xCE\xB1"}, {"amp", true, "&"},
    {"apos", false, "'"}, {"aring", true, "\xC3\xA5"}, {"ast", false, "*"},
    {"atilde", true, "\xC3\xA3"}, {"auml", true, "\xC3\xA4"},
    {"bdquo", false, "\xE2\x80\x9E"}, {"beta", false, "\xCE\xB2"},
    {"brvbar", true, "\xC2\xA6"}, {"bsol", false, "\\"}, {"bull", false, "\xE2\x80\xA2"},
    {"ccedil", true, "\xC3\xA7"}, {"cedil", true, "\xC2\xB8"},
    {"cent", true, "\xC2\xA2"}, {"check", false, "\xE2\x9C\x93"},
    {"circ", false, "\xCB\x86"}, {"clubs", false, "\xE2\x99\xA3"}, {"colon", false, ":"},
    {"comma", false, ","}, {"commat", false, "@"}, {"copy", true, "\xC2\xA9"},
    {"cross", false, "\xE2\x9C\x97"}, {"curren", true, "\xC2\xA4"},
    {"dagger", false, "\xE2\x80\xA0"}, {"darr", false, "\xE2\x86\x93"},
    {"deg", true, "\xC2\xB0"}, {"delta", false, "\xCE\xB4"},
    {"diams", false, "\xE2\x99\xA6"}, {"divide", true, "\xC3\xB7"},
    {"dollar", false, "$"}, {"eacute", true, "\xC3\xA9"}, {"ecirc", true, "\xC3\xAA"},
    {"egrave", true, "\xC3\xA8"}, {"emsp", false, "\xE2\x80\x83"},
    {"ensp", false, "\xE2\x80\x82"}, {"epsilon", false, "\xCE\xB5"},
    {"equals", false, "="}, {"eth", true, "\xC3\xB0"}, {"euml", true, "\xC3\xAB"},
    {"euro", false, "\xE2\x82\xAC"}, {"excl", false, "!"}, {"fjlig", false, "fj"},
    {"fnof", false, "\xC6\x92"}, {"frac12", true, "\xC2\xBD"},
    {"frac14", true, "\xC2\xBC"}, {"frac34", true, "\xC2\xBE"},
    {"frasl", false, "\xE2\x81\x84"}, {"gamma", false, "\xCE\xB3"},
    {"ge", false, "\xE2\x89\xA5"}, {"grave", false, "`"}, {"gt", true, ">"},
    {"harr", false, "\xE2\x86\x94"}, {"hearts", false, "\xE2\x99\xA5"},
    {"hellip", false, "\xE2\x80\xA6"}, {"iacute", true, "\xC3\xAD"},
    {"icirc", true, "\xC3\xAE"}, {"iexcl", true, "\xC2\xA1"},
    {"igrave", true, "\xC3\xAC"}, {"infin", false, "\xE2\x88\x9E"},
    {"iquest", true, "\xC2\xBF"}, {"iuml", true, "\xC3\xAF"},
    {"lambda", false, "\xCE\xBB"}, {"laquo", true, "\xC2\xAB"},
    {"larr", false, "\xE2\x86\x90"}, {"lbrace", false, "{"}, {"lbrack", false, "["},
    {"lcub", false, "{"}, {"ldquo", false, "\xE2\x80\x9C"},
    {"le", false, "\xE2\x89\xA4"}, {"lowast", false, "\xE2\x88\x97"},
    {"lowbar", false, "_"}, {"loz", false, "\xE2\x97\x8A"}, {"lpar", false, "("},
    {"lrm", false, "\xE2\x80\x8E"}, {"lsaquo", false, "\xE2\x80\xB9"},
    {"lsqb", false, "["}, {"lsquo", false, "\xE2\x80\x98"}, {"lt", true, "<"},
    {"macr", true, "\xC2\xAF"}, {"mdash", false, "\xE2\x80\x94"},
    {"micro", true, "\xC2\xB5"}, {"midast", false, "*"}, {"middot", true, "\xC2\xB7"},
    {"minus", false, "\xE2\x88\x92"}, {"mu", false, "\xCE\xBC"},
    {"nbsp", true, "\xC2\xA0"}, {"ndash", false, "\xE2\x80\x93"},
    {"ne", false, "\xE2\x89\xA0"}, {"not", true, "\xC2\xAC"},
    {"ntilde", true, "\xC3\xB1"}, {"num", false, "#"}, {"oacute", true, "\xC3\xB3"},
    {"ocirc", true, "\xC3\xB4"}, {"oelig", false, "\xC5\x93"},
    {"ograve", true, "\xC3\xB2"}, {"oline", false, "\xE2\x80\xBE"},
    {"omega", false, "\xCF\x89"}, {"ordf", true, "\xC2\xAA"}, {"ordm", true, "\xC2\xBA"},
    {"oslash", true, "\xC3\xB8"}, {"otilde", true, "\xC3\xB5"},
    {"ouml", true, "\xC3\xB6"}, {"para", true, "\xC2\xB6"}, {"percnt", false, "%"},
    {"period", false, "."}, {"permil", false, "\xE2\x80\xB0"}, {"pi", false, "\xCF\x80"},
    {"plus", false, "+"}, {"plusmn", true, "\xC2\xB1"}, {"pound", true, "\xC2\xA3"},
    {"prime", false, "\xE2\x80\xB2"}, {"prod", false, "\xE2\x88\x8F"},
    {"quest", false, "?"}, {"quot", true, "\""}, {"radic", false, "\xE2\x88\x9A"},
    {"raquo", true, "\xC2\xBB"}, {"rarr", false, "\xE2\x86\x92"}, {"rbrace", false, "}"},
    {"rbrack", false, "]"}, {"rcub", false, "}"}, {"rdquo", false, "\xE2\x80\x9D"},
    {"reg", true, "\xC2\xAE"}, {"rlm", false, "\xE2\x80\x8F"}, {"rpar", false, ")"},
    {"rsaquo", false, "\xE2\x80\xBA"}, {"rsqb", false, "]"},
    {"rsquo", false, "\xE2\x80\x99"}, {"sbquo", false, "\xE2\x80\x9A"},
    {"scaron", false, "\xC5\xA1"}, {"sdot", false, "\xE2\x8B\x85"},
    {"sect", true, "\xC2\xA7"}, {"semi", false, ";"}, {"shy", true, "\xC2\xAD"},
    {"sigma", false, "\xCF\x83"}, {"sol", false, "/"}, {"spades", false, "\xE2\x99\xA0"},
    {"star", false, "\xE2\x98\x86"}, {"starf", false, "\xE2\x98\x85"},
    {"sum", false, "\xE2\x88\x91"}, {"sup1", true, "\xC2\xB9"},
    {"sup2", true, "\xC2\xB2"}, {"sup3", true, "\xC2\xB3"}, {"szlig", true, "\xC3\x9F"},
    {"theta", false, "\xCE\xB8"}, {"thinsp", false, "\xE2\x80\x89"},
    {"thorn", true, "\xC3\xBE"}, {"times", true, "\xC3\x97"},
    {"trade", false, "\xE2\x84\xA2"}, {"uacute", true, "\xC3\xBA"},
    {"uarr", false, "\xE2\x86\x91"}, {"ucirc", true, "\xC3\xBB"},
    {"ugrave", true, "\xC3\xB9"}, {"uml", true, "\xC2\xA8"}, {"uuml", true, "\xC3\xBC"},
    {"verbar", false, "|"}, {"vert", false, "|"}, {"yacute", true, "\xC3\xBD"},
    {"yen", true, "\xC2\xA5"}, {"yuml", true, "\xC3\xBF"},
    {"zwj", false, "\xE2\x80\x8D"}, {"zwnj", false, "\xE2\x80\x8C"},
};
// clang-format on

const Entity* FindEntity(std::string_view name) {
  const Entity* end = std::end(kEntities);
  const Entity* it =
      std::lower_bound(std::begin(kEntities), end, name,
                       [](const Entity& e, std::string_view n) { return e.name < n; });
  return (it != end && it->name == name) ? it : nullptr;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// HTML5 "numeric character reference end state" fix-ups.
uint32_t FixCodePoint(uint32_t cp) {
  // Windows-1252 meanings of C1 controls, as browsers apply them.
  static constexpr uint16_t kC1[32] = {
      0x20AC, 0x81,   0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
      0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,   0x017D, 0x8F,
      0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
      0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,   0x017E, 0x0178};
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
  if (cp >= 0x80 && cp <= 0x9F) return kC1[cp - 0x80];
  return cp;
}

// Decodes "&#..." starting at raw[i] == '&'. Returns the index after the
// reference, or i if there is none (then '&' is literal).
size_t DecodeNumeric(std::string_view raw, size_t i, std::string* out) {
  size_t j = i + 2;  // past "&#"
  const bool hex = j < raw.size() && (raw[j] == 'x' || raw[j] == 'X');
  if (hex) ++j;
  const size_t digits_start = j;
  uint32_t cp = 0;
  for (; j < raw.size(); ++j) {
    const char c = raw[j];
    int digit = -1;
    if (IsDigit(c)) digit = c - '0';
    if (hex && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (hex && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) break;
    // Saturate: anything past U+10FFFF becomes U+FFFD anyway.
    cp = std::min<uint32_t>(cp * (hex ? 16 : 10) + digit, 0x110000);
  }
  if (j == digits_start) return i;
  if (j < raw.size() && raw[j] == ';') ++j;
  AppendUtf8(FixCodePoint(cp), out);
  return j;
}

// Decodes a named reference starting at raw[i] == '&' (attribute rules).
size_t DecodeNamed(std::string_view raw, size_t i, std::string* out) {
  size_t end = i + 1;
  while (end < raw.size() && end - i <= kMaxReferenceName && IsAlnum(raw[end])) ++end;
  const std::string_view run = raw.substr(i + 1, end - i - 1);
  if (end < raw.size() && raw[end] == ';') {
    if (const Entity* e = FindEntity(run)) {
      out->append(e->utf8);
      return end + 1;
    }
  }
  // Longest legacy name that prefixes the run ("&copy2024" -> "copy").
  for (size_t len = std::min<size_t>(run.size(), 6); len >= 2; --len) {
    const Entity* e = FindEntity(run.substr(0, len));
    if (e == nullptr || !e->legacy) continue;
    const size_t next = i + 1 + len;
    // In attributes "&amp=1" or "&copyx" stays literal (HTML5 historical rule).
    if (next < raw.size() && (raw[next] == '=' || IsAlnum(raw[next]))) return i;
    out->append(e->utf8);
    return next;
  }
  return i;
}

}  // namespace

void DecodeCharacterReferences(std::string_view raw, std::string* out) {
  size_t i = 0;
  while (i < raw.size()) {
    const size_t amp = raw.find('&', i);
    if (amp == std::string_view::npos) break;
    out->append(raw.substr(i, amp - i));
    const bool numeric = amp + 1 < raw.size() && raw[amp + 1] == '#';
    const size_t next =
        numeric ? DecodeNumeric(raw, amp, out) : DecodeNamed(raw, amp, out);
    if (next == amp) {
      out->push_back('&');
      i = amp + 1;
    } else {
      i = next;
    }
  }
  out->append(raw.substr(std::min(i, raw.size())));
}

const Attribute* Token::Find(std::string_view attr_name) const {
  for (const Attribute& a : attributes) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

bool HtmlTokenizer::Next(Token* token) {
  token->name = {};
  token->data = {};
  token->attributes.clear();
  token->self_closing = false;
  // Each pass consumes input, so this ends; passes that yield no token
  // ("</>", empty raw text) simply loop.
  while (pos_ < in_.size()) {
    bool produced = false;
    switch (mode_) {
      case Mode::kData:
        produced = NextInData(token);
        break;
      case Mode::kRawText:
        produced = NextRawText(token);
        break;
      case Mode::kScript:
        produced = NextScript(token);
        break;
      case Mode::kPlainText:
        EmitText(token, pos_, in_.size());
        pos_ = in_.size();
        produced = true;
        break;
    }
    if (produced) return true;
  }
  return false;
}

void HtmlTokenizer::EmitText(Token* token, size_t begin, size_t end) {
  token->type = TokenType::kText;
  token->data = in_.substr(begin, end - begin);
}

bool HtmlTokenizer::NextInData(Token* token) {
  if (in_[pos_] == '<') {
    const size_t before = pos_;
    if (ReadMarkup(token)) return true;
    if (pos_ != before) return false;  // consumed something that is no token
  }
  // Text up to the next '<' (a '<' that starts no markup stays in the text).
  const size_t begin = pos_;
  const void* lt = std::memchr(in_.data() + pos_ + 1, '<', in_.size() - pos_ - 1);
  pos_ = lt ? static_cast<const char*>(lt) - in_.data() : in_.size();
  EmitText(token, begin, pos_);
  return true;
}

// At '<'. Returns true with a token; false with pos_ unchanged if this '<'
// is plain text, or false with pos_ advanced if markup yielded no token.
bool HtmlTokenizer::ReadMarkup(Token* token) {
  const size_t p = pos_ + 1;
  if (p >= in_.size()) return false;
  const char c = in_[p];
  if (IsAlpha(c)) return ReadTag(token, /*end_tag=*/false);
  if (c == '/') {
    if (p + 1 >= in_.size()) return false;  // "</" at EOF is text
    if (IsAlpha(in_[p + 1])) return ReadTag(token, /*end_tag=*/true);
    if (in_[p + 1] == '>') {  // "</>" is dropped
      pos_ = p + 2;
      return false;
    }
    return ReadBogusComment(token, p + 1);
  }
  if (c == '?') return ReadBogusComment(token, p);
  if (c != '!') return false;
  if (in_.substr(p + 1, 2) == "--") return ReadComment(token);
  if (StartsWithIgnoreCase(in_, p + 1, "doctype")) {
    const size_t begin = p + 8;
    const size_t gt = in_.find('>', begin);
    const size_t end = gt == std::string_view::npos ? in_.size() : gt;
    token->type = TokenType::kDoctype;
    token->data = in_.substr(begin, end - begin);
    pos_ = std::min(end + 1, in_.size());
    return true;
  }
  return ReadBogusComment(token, p + 1);
}

bool HtmlTokenizer::ReadBogusComment(Token* token, size_t data_start) {
  const size_t gt = in_.find('>', data_start);
  const size_t end = gt == std::string_view::npos ? in_.size() : gt;
  token->type = TokenType::kComment;
  token->data = in_.substr(data_start, end - data_start);
  pos_ = std::min(end + 1, in_.size());
  return true;
}

// At "<!--". Ends at "-->", "--!>", or the end of input; "<!-->" and
// "<!--->" are empty comments.
bool HtmlTokenizer::ReadComment(Token* token) {
  const size_t begin = pos_ + 4;
  token->type = TokenType::kComment;
  if (in_.substr(begin, 1) == ">" || in_.substr(begin, 2) == "->") {
    pos_ = begin + (in_[begin] == '>' ? 1 : 2);
    return true;
  }
  size_t q = begin;
  while ((q = in_.find("--", q)) != std::string_view::npos) {
    if (in_.substr(q + 2, 1) == ">" || in_.substr(q + 2, 2) == "!>") {
      token->data = in_.substr(begin, q - begin);
      pos_ = q + (in_[q + 2] == '>' ? 3 : 4);
      return true;
    }
    ++q;
  }
  token->data = in_.substr(begin);
  pos_ = in_.size();
  return true;
}

// At "<x" or "</x". Reads the tag and its attributes; a tag cut off by the
// end of input yields nothing and consumes the rest.
bool HtmlTokenizer::ReadTag(Token* token, bool end_tag) {
  scratch_.clear();
  pending_.clear();
  size_t p = pos_ + (end_tag ? 2 : 1);
  const size_t name_begin = p;
  while (p < in_.size() && !IsSpace(in_[p]) && in_[p] != '/' && in_[p] != '>') ++p;
  const Span name = Lowered(name_begin, p);
  bool self_closing = false;
  while (true) {
    while (p < in_.size() && IsSpace(in_[p])) ++p;
    if (p >= in_.size()) break;
    if (in_[p] == '>') {
      ++p;
      token->type = end_tag ? TokenType::kEndTag : TokenType::kStartTag;
      token->name = View(name);
      token->self_closing = self_closing;
      if (!end_tag) {
        for (const PendingAttribute& a : pending_) {
          token->attributes.push_back({View(a.name), View(a.value)});
        }
        EnterContentMode(token->name);
      }
      pos_ = p;
      return true;
    }
    if (in_[p] == '/') {
      ++p;
      self_closing = p < in_.size() && in_[p] == '>';
      continue;
    }
    self_closing = false;
    if (!ReadAttribute(&p)) break;
  }
  pos_ = in_.size();  // EOF inside the tag: HTML5 drops the tag.
  return false;
}

// At the first character of an attribute name. Returns false if the input
// ends inside a quoted value.
bool HtmlTokenizer::ReadAttribute(size_t* pos) {
  size_t p = *pos;
  const size_t name_begin = p++;  // the first character may even be '='
  while (p < in_.size() && !IsSpace(in_[p]) && in_[p] != '/' && in_[p] != '>' &&
         in_[p] != '=') {
    ++p;
  }
  const size_t name_end = p;
  while (p < in_.size() && IsSpace(in_[p])) ++p;
  size_t value_begin = p, value_end = p;
  if (p < in_.size() && in_[p] == '=') {
    ++p;
    while (p < in_.size() && IsSpace(in_[p])) ++p;
    if (p < in_.size() && (in_[p] == '"' || in_[p] == '\'')) {
      const size_t close = in_.find(in_[p], p + 1);
      if (close == std::string_view::npos) return false;
      value_begin = p + 1;
      value_end = close;
      p = close + 1;
    } else {
      value_begin = p;
      while (p < in_.size() && !IsSpace(in_[p]) && in_[p] != '>') ++p;
      value_end = p;
    }
  }
  *pos = p;
  if (pending_.size() >= kMaxAttributes) return true;
  const Span name = Lowered(name_begin, name_end);
  for (const PendingAttribute& a : pending_) {
    if (View(a.name) == View(name)) return true;  // duplicates: first wins
  }
  pending_.push_back({name, Decoded(value_begin, value_end)});
  return true;
}

// The tree builder switches the tokenizer for these elements' content.
void HtmlTokenizer::EnterContentMode(std::string_view tag_name) {
  static constexpr std::string_view kRawText[] = {
      "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title"};
  if (tag_name == "script") {
    mode_ = Mode::kScript;
    raw_end_tag_ = "script";
  } else if (tag_name == "plaintext") {
    mode_ = Mode::kPlainText;
  } else {
    for (std::string_view raw : kRawText) {
      if (tag_name == raw) {
        mode_ = Mode::kRawText;
        raw_end_tag_ = raw;
      }
    }
  }
}

// Whether "</name" followed by whitespace, '/' or '>' starts at p.
bool HtmlTokenizer::IsEndTagOf(size_t p, std::string_view name) const {
  if (in_.size() - p < name.size() + 3 || in_[p] != '<' || in_[p + 1] != '/')
    return false;
  if (!StartsWithIgnoreCase(in_, p + 2, name)) return false;
  const char next = in_[p + 2 + name.size()];
  return IsSpace(next) || next == '/' || next == '>';
}

// RAWTEXT/RCDATA content: everything up to the matching end tag is text.
bool HtmlTokenizer::NextRawText(Token* token) {
  mode_ = Mode::kData;
  const size_t begin = pos_;
  size_t p = pos_;
  while (p < in_.size() && !IsEndTagOf(p, raw_end_tag_)) {
    const void* lt = std::memchr(in_.data() + p + 1, '<', in_.size() - p - 1);
    p = lt ? static_cast<const char*>(lt) - in_.data() : in_.size();
  }
  pos_ = p;
  if (p == begin) return false;
  EmitText(token, begin, p);
  return true;
}

// Script content with HTML5's escape states: inside "<!--", a "<script"
// opens a nested region whose "</script>" does not end the element.
bool HtmlTokenizer::NextScript(Token* token) {
  enum { kNormal, kEscaped, kDoubleEscaped } state = kNormal;
  mode_ = Mode::kData;
  const size_t begin = pos_;
  size_t escape_start = 0;  // where the "--" of the latest "<!--" begins
  size_t p = pos_;
  for (; p < in_.size(); ++p) {
    const char c = in_[p];
    if (c == '>' && state != kNormal && p >= escape_start + 2 && in_[p - 1] == '-' &&
        in_[p - 2] == '-') {
      state = kNormal;
    } else if (c != '<') {
      continue;
    } else if (IsEndTagOf(p, "script")) {
      if (state != kDoubleEscaped) break;
      state = kEscaped;
      p += 7;
    } else if (state == kNormal && in_.substr(p, 4) == "<!--") {
      state = kEscaped;
      escape_start = p + 2;
      p += 3;
    } else if (state == kEscaped && StartsWithIgnoreCase(in_, p + 1, "script") &&
               p + 7 < in_.size() &&
               (IsSpace(in_[p + 7]) || in_[p + 7] == '/' || in_[p + 7] == '>')) {
      state = kDoubleEscaped;
      p += 6;
    }
  }
  pos_ = p;
  if (p == begin) return false;
  EmitText(token, begin, p);
  return true;
}

HtmlTokenizer::Span HtmlTokenizer::Lowered(size_t begin, size_t end) {
  const std::string_view s = in_.substr(begin, end - begin);
  if (std::none_of(s.begin(), s.end(), IsUpper)) return {false, begin, end - begin};
  const size_t at = scratch_.size();
  for (char c : s) scratch_.push_back(Lower(c));
  return {true, at, s.size()};
}

HtmlTokenizer::Span HtmlTokenizer::Decoded(size_t begin, size_t end) {
  const std::string_view s = in_.substr(begin, end - begin);
  if (s.find('&') == std::string_view::npos) return {false, begin, end - begin};
  const size_t at = scratch_.size();
  DecodeCharacterReferences(s, &scratch_);
  return {true, at, scratch_.size() - at};
}

std::string_view HtmlTokenizer::View(Span span) const {
  const std::string_view base = span.in_scratch ? std::string_view(scratch_) : in_;
  return base.substr(span.begin, span.size);
}

}  // namespace crawlfront::html
