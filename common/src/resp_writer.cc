// RESP encoder. RESP3-only types degrade for RESP2 clients the way Redis
// degrades them, so a handler writes one reply for both protocols.
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "crawlfront/common/resp.h"

namespace crawlfront {
namespace {

// Appends s with CR and LF replaced by spaces: a simple string or error line
// must not break framing.
void AppendLine(std::string_view s, std::string* out) {
  size_t start = out->size();
  out->append(s);
  for (size_t i = start; i < out->size(); ++i) {
    if ((*out)[i] == '\r' || (*out)[i] == '\n') (*out)[i] = ' ';
  }
  out->append("\r\n");
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

}  // namespace

void RespWriter::Header(char type, int64_t n) {
  char buf[32];
  buf[0] = type;
  auto [end, ec] = std::to_chars(buf + 1, buf + sizeof(buf) - 2, n);
  *end++ = '\r';
  *end++ = '\n';
  out_->append(buf, end);
}

void RespWriter::SimpleString(std::string_view s) {
  out_->push_back('+');
  AppendLine(s, out_);
}

void RespWriter::Error(std::string_view s) {
  out_->push_back('-');
  AppendLine(s, out_);
}

void RespWriter::Integer(int64_t v) { Header(':', v); }

void RespWriter::Bulk(std::string_view s) {
  Header('$', static_cast<int64_t>(s.size()));
  out_->append(s);
  out_->append("\r\n");
}

void RespWriter::Null() { out_->append(protocol_ >= 3 ? "_\r\n" : "$-1\r\n"); }

void RespWriter::NullArray() { out_->append(protocol_ >= 3 ? "_\r\n" : "*-1\r\n"); }

void RespWriter::ArrayHeader(size_t n) { Header('*', static_cast<int64_t>(n)); }

void RespWriter::ZeroOneArray(std::span<const uint8_t> values) {
  ArrayHeader(values.size());
  size_t at = out_->size();
  out_->resize(at + 4 * values.size());
  char* p = out_->data() + at;
  for (uint8_t v : values) {
    std::memcpy(p, v != 0 ? ":1\r\n" : ":0\r\n", 4);
    p += 4;
  }
}

void RespWriter::MapHeader(size_t pairs) {
  if (protocol_ >= 3) {
    Header('%', static_cast<int64_t>(pairs));
  } else {
    Header('*', static_cast<int64_t>(pairs * 2));
  }
}

void RespWriter::SetHeader(size_t n) {
  Header(protocol_ >= 3 ? '~' : '*', static_cast<int64_t>(n));
}

void RespWriter::PushHeader(size_t n) {
  Header(protocol_ >= 3 ? '>' : '*', static_cast<int64_t>(n));
}

void RespWriter::Double(double v) {
  std::string text = FormatDouble(v);
  if (protocol_ >= 3) {
    out_->push_back(',');
    out_->append(text).append("\r\n");
  } else {
    Bulk(text);
  }
}

void RespWriter::Bool(bool v) {
  if (protocol_ >= 3) {
    out_->append(v ? "#t\r\n" : "#f\r\n");
  } else {
    Integer(v ? 1 : 0);
  }
}

void RespWriter::Verbatim(std::string_view format, std::string_view text) {
  if (protocol_ < 3) {
    Bulk(text);
    return;
  }
  std::string fmt(format.substr(0, 3));
  fmt.resize(3, ' ');  // the format is exactly three bytes on the wire
  Header('=', static_cast<int64_t>(text.size() + 4));
  out_->append(fmt).append(":").append(text).append("\r\n");
}

void RespWriter::BigNumber(std::string_view digits) {
  if (protocol_ >= 3) {
    out_->push_back('(');
    AppendLine(digits, out_);
  } else {
    Bulk(digits);
  }
}

void RespWriter::BulkArray(const std::vector<std::string>& items) {
  ArrayHeader(items.size());
  for (const std::string& item : items) Bulk(item);
}

void RespWriter::BulkArray(std::initializer_list<std::string_view> items) {
  ArrayHeader(items.size());
  for (std::string_view item : items) Bulk(item);
}

void RespWriter::Value(const RespValue& v) {
  switch (v.type) {
    case RespType::kSimpleString:
      SimpleString(v.str);
      return;
    case RespType::kError:
      Error(v.str);
      return;
    case RespType::kInteger:
      Integer(v.integer);
      return;
    case RespType::kBulkString:
      Bulk(v.str);
      return;
    case RespType::kNull:
      Null();
      return;
    case RespType::kDouble:
      Double(v.number);
      return;
    case RespType::kBoolean:
      Bool(v.boolean);
      return;
    case RespType::kVerbatim:
      Verbatim(v.verbatim_format, v.str);
      return;
    case RespType::kBigNumber:
      BigNumber(v.str);
      return;
    case RespType::kArray:
      ArrayHeader(v.elements.size());
      break;
    case RespType::kSet:
      SetHeader(v.elements.size());
      break;
    case RespType::kPush:
      PushHeader(v.elements.size());
      break;
    case RespType::kMap:
      MapHeader(v.map_size());
      break;
  }
  for (const RespValue& e : v.elements) Value(e);
}

std::string EncodeCommand(const std::vector<std::string>& args) {
  std::string out;
  RespWriter writer(&out, 2);
  writer.BulkArray(args);
  return out;
}

}  // namespace crawlfront
