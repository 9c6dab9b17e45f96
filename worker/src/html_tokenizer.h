#pragma once
// A streaming HTML tokenizer after the HTML5 tokenization rules, reduced to
// what link extraction needs: tags with attributes, comments, doctypes and
// text runs. It builds no tree, allocates nothing per token in steady state,
// and never fails: malformed input yields the tokens a browser's tokenizer
// would produce (see docs/links.md for the deliberate gaps).
//
// Internal to the worker (used by links.cc and the tests/benchmarks).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace crawlfront::html {

enum class TokenType { kStartTag, kEndTag, kComment, kDoctype, kText };

struct Attribute {
  std::string_view name;   // ASCII-lowercased
  std::string_view value;  // character references decoded
};

struct Token {
  TokenType type = TokenType::kText;
  std::string_view name;  // tags: ASCII-lowercased tag name; else empty
  std::string_view data;  // comment/doctype/text: raw content; tags: empty
  // Start tags only, in source order; a repeated name keeps the first value.
  std::vector<Attribute> attributes;
  bool self_closing = false;

  // The first attribute called `name` (lowercase), or nullptr.
  const Attribute* Find(std::string_view name) const;
};

class HtmlTokenizer {
 public:
  // `input` must outlive the tokenizer.
  explicit HtmlTokenizer(std::string_view input) : in_(input) {}

  // Stores the next token in *token and returns true; returns false at the end
  // of the input. Views in *token point into the input or into this tokenizer
  // and stay valid until the next call. A tag cut off by the end of the input
  // is dropped, as in HTML5. Not thread-safe; one tokenizer per document.
  bool Next(Token* token);

 private:
  enum class Mode { kData, kRawText, kScript, kPlainText };
  // A stretch of the input or of scratch_ (which may move while a tag is
  // being read, so views are made only once the tag is complete).
  struct Span {
    bool in_scratch = false;
    size_t begin = 0;
    size_t size = 0;
  };
  struct PendingAttribute {
    Span name;
    Span value;
  };

  bool NextInData(Token* token);
  bool NextRawText(Token* token);
  bool NextScript(Token* token);
  bool ReadMarkup(Token* token);
  bool ReadTag(Token* token, bool end_tag);
  bool ReadAttribute(size_t* p);
  bool ReadComment(Token* token);
  bool ReadBogusComment(Token* token, size_t data_start);
  void EnterContentMode(std::string_view tag_name);
  bool IsEndTagOf(size_t p, std::string_view name) const;
  Span Lowered(size_t begin, size_t end);
  Span Decoded(size_t begin, size_t end);
  std::string_view View(Span span) const;
  void EmitText(Token* token, size_t begin, size_t end);

  std::string_view in_;
  size_t pos_ = 0;
  Mode mode_ = Mode::kData;
  std::string_view raw_end_tag_;  // tag whose end tag closes kRawText/kScript
  std::string scratch_;           // lowered names and decoded values of a tag
  std::vector<PendingAttribute> pending_;
};

// Appends `raw` to *out with HTML character references decoded as in an
// attribute value: numeric (&#38; &#x26;) and named ones from the built-in
// table (docs/links.md lists its scope); a legacy name without ';' followed by
// '=' or an alphanumeric is left alone, as browsers do.
void DecodeCharacterReferences(std::string_view raw, std::string* out);

}  // namespace crawlfront::html
