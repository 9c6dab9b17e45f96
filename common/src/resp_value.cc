// RespValue helpers: constructors, lookups and a debug rendering.
#include <cstdio>
#include <string>
#include <string_view>

#include "crawlfront/common/resp.h"

namespace crawlfront {

std::string_view RespTypeName(RespType type) {
  switch (type) {
    case RespType::kSimpleString:
      return "simple string";
    case RespType::kError:
      return "error";
    case RespType::kInteger:
      return "integer";
    case RespType::kBulkString:
      return "bulk string";
    case RespType::kNull:
      return "null";
    case RespType::kArray:
      return "array";
    case RespType::kMap:
      return "map";
    case RespType::kDouble:
      return "double";
    case RespType::kBoolean:
      return "boolean";
    case RespType::kSet:
      return "set";
    case RespType::kVerbatim:
      return "verbatim string";
    case RespType::kBigNumber:
      return "big number";
    case RespType::kPush:
      return "push";
  }
  return "unknown";
}

RespValue RespValue::SimpleString(std::string s) {
  RespValue v;
  v.type = RespType::kSimpleString;
  v.str = std::move(s);
  return v;
}

RespValue RespValue::Error(std::string s) {
  RespValue v;
  v.type = RespType::kError;
  v.str = std::move(s);
  return v;
}

RespValue RespValue::Integer(int64_t i) {
  RespValue v;
  v.type = RespType::kInteger;
  v.integer = i;
  return v;
}

RespValue RespValue::Bulk(std::string s) {
  RespValue v;
  v.type = RespType::kBulkString;
  v.str = std::move(s);
  return v;
}

RespValue RespValue::Null() { return RespValue(); }

RespValue RespValue::Array(std::vector<RespValue> elements) {
  RespValue v;
  v.type = RespType::kArray;
  v.elements = std::move(elements);
  return v;
}

bool RespValue::is_aggregate() const {
  return type == RespType::kArray || type == RespType::kSet || type == RespType::kPush ||
         type == RespType::kMap;
}

bool RespValue::is_string() const {
  return type == RespType::kSimpleString || type == RespType::kError ||
         type == RespType::kBulkString || type == RespType::kVerbatim ||
         type == RespType::kBigNumber;
}

const RespValue* RespValue::Find(std::string_view key) const {
  if (type != RespType::kMap && type != RespType::kArray) return nullptr;
  for (size_t i = 0; i + 1 < elements.size(); i += 2) {
    if (elements[i].is_string() && elements[i].str == key) {
      return &elements[i + 1];
    }
  }
  return nullptr;
}

namespace {

void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c >= 0x20 && c < 0x7f) {
      out->push_back(static_cast<char>(c));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out->append(hex);
    }
  }
  out->push_back('"');
}

void AppendDebug(const RespValue& v, std::string* out) {
  switch (v.type) {
    case RespType::kSimpleString:
      out->append(v.str);
      return;
    case RespType::kError:
      out->append("(error) ").append(v.str);
      return;
    case RespType::kInteger:
      out->append("(integer) ").append(std::to_string(v.integer));
      return;
    case RespType::kBulkString:
    case RespType::kVerbatim:
      AppendQuoted(v.str, out);
      return;
    case RespType::kNull:
      out->append("(nil)");
      return;
    case RespType::kDouble:
      out->append("(double) ").append(std::to_string(v.number));
      return;
    case RespType::kBoolean:
      out->append(v.boolean ? "(true)" : "(false)");
      return;
    case RespType::kBigNumber:
      out->append("(big number) ").append(v.str);
      return;
    case RespType::kArray:
    case RespType::kSet:
    case RespType::kPush:
    case RespType::kMap:
      break;
  }
  const bool is_map = v.type == RespType::kMap;
  out->push_back(is_map ? '{' : '[');
  for (size_t i = 0; i < v.elements.size(); ++i) {
    if (i > 0) out->append(is_map && i % 2 == 1 ? ": " : ", ");
    AppendDebug(v.elements[i], out);
  }
  out->push_back(is_map ? '}' : ']');
}

}  // namespace

std::string RespValue::ToDebugString() const {
  std::string out;
  AppendDebug(*this, &out);
  return out;
}

}  // namespace crawlfront
