// Inline commands ("PING\r\n"), as typed into telnet or nc. Arguments are
// split like Redis's sdssplitargs: blanks separate, double quotes allow
// blanks and \n \r \t \\ \" \xHH escapes, single quotes allow blanks.
#include <cctype>
#include <string>

#include "crawlfront/common/resp.h"

namespace crawlfront {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads one double-quoted argument starting after the opening quote.
// Returns false on a missing closing quote.
bool ReadDoubleQuoted(std::string_view line, size_t* i, std::string* arg) {
  while (*i < line.size()) {
    char c = line[*i];
    if (c == '"') {
      ++*i;
      return true;
    }
    if (c == '\\' && *i + 1 < line.size()) {
      char e = line[*i + 1];
      if (e == 'x' && *i + 3 < line.size() && HexDigit(line[*i + 2]) >= 0 &&
          HexDigit(line[*i + 3]) >= 0) {
        arg->push_back(
            static_cast<char>(HexDigit(line[*i + 2]) * 16 + HexDigit(line[*i + 3])));
        *i += 4;
        continue;
      }
      arg->push_back(e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e);
      *i += 2;
      continue;
    }
    arg->push_back(c);
    ++*i;
  }
  return false;
}

bool ReadSingleQuoted(std::string_view line, size_t* i, std::string* arg) {
  while (*i < line.size()) {
    char c = line[*i];
    ++*i;
    if (c == '\'') return true;
    arg->push_back(c);
  }
  return false;
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Splits `line`; false on unbalanced quotes.
bool SplitInline(std::string_view line, std::vector<RespValue>* args) {
  size_t i = 0;
  while (i < line.size()) {  // every pass consumes at least one byte
    if (IsBlank(line[i])) {
      ++i;
      continue;
    }
    std::string arg;
    while (i < line.size() && !IsBlank(line[i])) {
      char c = line[i++];
      bool closed = true;
      if (c == '"') {
        closed = ReadDoubleQuoted(line, &i, &arg);
      } else if (c == '\'') {
        closed = ReadSingleQuoted(line, &i, &arg);
      } else {
        arg.push_back(c);
      }
      if (!closed) return false;
    }
    args->push_back(RespValue::Bulk(std::move(arg)));
  }
  return true;
}

}  // namespace

RespParser::Step RespParser::ParseInline(RespValue* out) {
  std::string_view rest(buf_.data() + pos_, buf_.size() - pos_);
  size_t search_len = std::min(rest.size(), limits_.max_inline_len + 1);
  size_t lf = rest.substr(0, search_len).find('\n');
  if (lf == std::string_view::npos) {
    if (rest.size() > limits_.max_inline_len) return Fail("too big inline request");
    return Step::kNeedMore;
  }
  std::string_view line = rest.substr(0, lf);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  out->type = RespType::kArray;
  out->elements.clear();
  if (!SplitInline(line, &out->elements)) return Fail("unbalanced quotes in request");
  pos_ += lf + 1;
  return Step::kValue;
}

}  // namespace crawlfront
