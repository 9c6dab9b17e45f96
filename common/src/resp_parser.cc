// Incremental RESP parser. Aggregates are built on an explicit stack so a
// value split over many reads is parsed once, never re-scanned from its start,
// and a header's declared size is only checked, never pre-allocated.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "crawlfront/common/resp.h"

namespace crawlfront {
namespace {

// Element slots reserved up front for an aggregate; the rest grow as
// elements arrive, so "*1000000\r\n" alone costs almost nothing.
constexpr int64_t kMaxReserve = 1024;
// 18 decimal digits always fit in int64_t.
constexpr size_t kMaxLengthDigits = 18;

bool IsAggregateType(char c) { return c == '*' || c == '%' || c == '~' || c == '>'; }

RespType AggregateType(char c) {
  switch (c) {
    case '%':
      return RespType::kMap;
    case '~':
      return RespType::kSet;
    case '>':
      return RespType::kPush;
    default:
      return RespType::kArray;
  }
}

std::string Printable(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  char hex[8];
  std::snprintf(hex, sizeof(hex), "\\x%02x", u);
  return hex;
}

}  // namespace

RespParser::RespParser(Mode mode, RespLimits limits) : mode_(mode), limits_(limits) {}

void RespParser::Feed(std::string_view bytes) {
  if (!error_.ok()) return;  // framing is lost; drop input
  buf_.append(bytes);
}

void RespParser::Compact() {
  // Amortized O(1): only move the tail when the consumed prefix dominates.
  if (pos_ == 0) return;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

RespParser::Step RespParser::Fail(std::string message) {
  error_ = Status::InvalidArgument("Protocol error: " + std::move(message));
  return Step::kError;
}

RespParser::Step RespParser::ParseLine(std::string_view* line) {
  std::string_view rest(buf_.data() + pos_, buf_.size() - pos_);
  size_t search_len = std::min(rest.size(), limits_.max_inline_len + 2);
  size_t crlf = rest.substr(0, search_len).find("\r\n");
  if (crlf == std::string_view::npos) {
    if (rest.size() > limits_.max_inline_len + 1) {
      return Fail("too big header line (missing CRLF?)");
    }
    return Step::kNeedMore;
  }
  *line = rest.substr(0, crlf);
  return Step::kValue;
}

RespParser::Step RespParser::ParseLength(std::string_view digits, bool allow_minus_one,
                                         int64_t* len, const char* what) {
  if (allow_minus_one && digits == "-1") {
    *len = -1;
    return Step::kValue;
  }
  bool all_digits = !digits.empty() && digits.size() <= kMaxLengthDigits &&
                    std::all_of(digits.begin(), digits.end(),
                                [](char c) { return c >= '0' && c <= '9'; });
  if (!all_digits) return Fail(std::string("invalid ") + what + " length");
  std::from_chars(digits.data(), digits.data() + digits.size(), *len);
  return Step::kValue;
}

RespParser::Step RespParser::ParseScalar(char type, std::string_view line,
                                         RespValue* out) {
  switch (type) {
    case '+':
      *out = RespValue::SimpleString(std::string(line));
      return Step::kValue;
    case '-':
      *out = RespValue::Error(std::string(line));
      return Step::kValue;
    case ':': {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
      if (ec != std::errc() || end != line.data() + line.size() || line.empty()) {
        return Fail("invalid integer '" + std::string(line.substr(0, 32)) + "'");
      }
      *out = RespValue::Integer(v);
      return Step::kValue;
    }
    case '_':
      if (!line.empty()) return Fail("null with a payload");
      *out = RespValue::Null();
      return Step::kValue;
    case '#':
      if (line != "t" && line != "f") return Fail("invalid boolean");
      out->type = RespType::kBoolean;
      out->boolean = line == "t";
      return Step::kValue;
    case ',': {
      double d = 0;
      if (line == "inf" || line == "+inf") {
        d = HUGE_VAL;
      } else if (line == "-inf") {
        d = -HUGE_VAL;
      } else {
        auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), d);
        if (ec != std::errc() || end != line.data() + line.size() || line.empty()) {
          return Fail("invalid double");
        }
      }
      out->type = RespType::kDouble;
      out->number = d;
      return Step::kValue;
    }
    case '(': {
      std::string_view digits = line;
      if (!digits.empty() && (digits[0] == '-' || digits[0] == '+'))
        digits.remove_prefix(1);
      bool ok = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
        return c >= '0' && c <= '9';
      });
      if (!ok) return Fail("invalid big number");
      out->type = RespType::kBigNumber;
      out->str = std::string(line);
      return Step::kValue;
    }
    default:
      return Fail("unknown type byte '" + Printable(type) + "'");
  }
}

// '$' bulk string, '!' bulk error, '=' verbatim string. The header is only
// consumed together with the body, so waiting for a body re-reads one line.
RespParser::Step RespParser::ParseBulk(char type, std::string_view line, RespValue* out) {
  int64_t len = 0;
  bool nullable = mode_ == Mode::kReply && type == '$';
  if (ParseLength(line.substr(1), nullable, &len, "bulk") != Step::kValue) {
    return Step::kError;
  }
  if (len > limits_.max_bulk_len) return Fail("invalid bulk length");
  size_t header = line.size() + 2;
  if (len < 0) {
    pos_ += header;
    *out = RespValue::Null();
    return Step::kValue;
  }
  size_t need = header + static_cast<size_t>(len) + 2;
  if (frame_bytes_ + need > limits_.max_frame_bytes) return Fail("frame too large");
  if (buf_.size() - pos_ < need) return Step::kNeedMore;
  const char* body = buf_.data() + pos_ + header;
  if (body[len] != '\r' || body[len + 1] != '\n') {
    return Fail("bulk string not terminated by CRLF");
  }
  std::string text(body, static_cast<size_t>(len));
  if (type == '$') {
    *out = RespValue::Bulk(std::move(text));
  } else if (type == '!') {
    *out = RespValue::Error(std::move(text));
  } else {
    if (text.size() < 4 || text[3] != ':') return Fail("invalid verbatim string");
    out->type = RespType::kVerbatim;
    out->verbatim_format = text.substr(0, 3);
    out->str = text.substr(4);
  }
  pos_ += need;
  frame_bytes_ += need;
  return Step::kValue;
}

// Parses one value or aggregate header at pos_. For an aggregate header
// *is_aggregate_start is set and *count holds its element count (or -1 for a
// RESP2 null array, which is returned as a complete null value instead).
RespParser::Step RespParser::ParseOne(RespValue* out, bool* is_aggregate_start,
                                      int64_t* count) {
  *is_aggregate_start = false;
  std::string_view line;
  Step step = ParseLine(&line);
  if (step != Step::kValue) return step;
  if (line.empty()) return Fail("empty header line");
  char type = line[0];
  if (mode_ == Mode::kRequest && !stack_.empty() && type != '$') {
    return Fail("expected '$', got '" + Printable(type) + "'");
  }
  if (type == '$' || type == '!' || type == '=') return ParseBulk(type, line, out);
  if (IsAggregateType(type)) {
    bool nullable = type == '*';
    if (ParseLength(line.substr(1), nullable, count, "multibulk") != Step::kValue) {
      return Step::kError;
    }
    int64_t slots = type == '%' ? *count * 2 : *count;
    if (slots > limits_.max_array_len) return Fail("invalid multibulk length");
    if (*count < 0) {
      *out = RespValue::Null();
    } else {
      out->type = AggregateType(type);
      const auto reserve = static_cast<size_t>(std::min(slots, kMaxReserve));
      if (mode_ == Mode::kRequest) {
        request_args_.clear();
        request_args_.reserve(reserve);
      } else {
        out->elements.reserve(reserve);
      }
      *count = slots;
      *is_aggregate_start = *count > 0;
    }
  } else {
    if (mode_ == Mode::kRequest)
      return Fail("expected '*', got '" + Printable(type) + "'");
    step = ParseScalar(type, line.substr(1), out);
    if (step != Step::kValue) return step;
  }
  pos_ += line.size() + 2;
  frame_bytes_ += line.size() + 2;
  if (frame_bytes_ > limits_.max_frame_bytes) return Fail("frame too large");
  return Step::kValue;
}

// A long request's argument vector grew by doubling, and each doubling
// moved every string into fresh pages at once: 12, 23 and 46 ms of the io
// thread at 2^18, 2^19 and 2^20 arguments. Once the request has sent 4
// bytes per declared argument, the whole declared count is reserved
// instead: a 32-byte slot per 4 bytes received bounds the reservation by
// 8 times what the client sent (a bare `*1000000` reserves nothing), and
// its pages are touched one push at a time.
void RespParser::ReserveRequest(size_t remaining) {
  if (request_args_.size() < request_args_.capacity()) return;
  const size_t declared = request_args_.size() + remaining;
  if (frame_bytes_ >= 4 * declared) request_args_.reserve(declared);
}

bool RespParser::Attach(RespValue value, RespValue* done) {
  // Bounded by the nesting limit: each pass pops one frame.
  while (!stack_.empty()) {
    Frame& top = stack_.back();
    // A request is one array of bulk strings (ParseOne refuses the rest).
    if (mode_ == Mode::kRequest) {
      ReserveRequest(static_cast<size_t>(top.remaining));
      request_args_.push_back(std::move(value.str));
    } else {
      top.value.elements.push_back(std::move(value));
    }
    if (--top.remaining > 0) return false;
    value = std::move(top.value);
    stack_.pop_back();
  }
  *done = std::move(value);
  frame_bytes_ = 0;
  return true;
}

// In kRequest mode a request's arguments are left in request_args_ (*out
// holds nothing of them).
Result<bool> RespParser::Parse(RespValue* out) {
  if (!error_.ok()) return error_;
  // Every pass consumes bytes or returns, so the loop ends with the buffer.
  while (true) {
    if (pos_ == buf_.size()) {
      Compact();
      return false;
    }
    if (mode_ == Mode::kReply && stack_.empty() && buf_[pos_] == '*' &&
        TakeWholeReply(out)) {
      return true;
    }
    if (mode_ == Mode::kRequest && stack_.empty() && buf_[pos_] != '*') {
      RespValue inline_cmd;
      Step step = ParseInline(&inline_cmd);
      if (step == Step::kError) return error_;
      if (step == Step::kNeedMore) {
        Compact();
        return false;
      }
      if (inline_cmd.elements.empty()) continue;  // blank line: skip
      request_args_.clear();
      for (RespValue& e : inline_cmd.elements) request_args_.push_back(std::move(e.str));
      return true;
    }
    RespValue value;
    bool aggregate_start = false;
    int64_t count = 0;
    Step step = ParseOne(&value, &aggregate_start, &count);
    if (step == Step::kError) return error_;
    if (step == Step::kNeedMore) {
      Compact();
      return false;
    }
    if (aggregate_start) {
      int depth = static_cast<int>(stack_.size()) + 1;
      if (depth > limits_.max_nesting) {
        Fail("too deeply nested");
        return error_;
      }
      stack_.push_back(Frame{std::move(value), count});
      continue;
    }
    if (!Attach(std::move(value), out)) continue;
    // Redis ignores "*0" and "*-1" requests; so do we.
    if (mode_ == Mode::kRequest && request_args_.empty()) continue;
    return true;
  }
}

Result<bool> RespParser::Next(RespValue* out) {
  Result<bool> got = Parse(out);
  if (!got.ok() || !*got || mode_ != Mode::kRequest) return got;
  std::vector<RespValue> elements;
  elements.reserve(request_args_.size());
  for (std::string& arg : request_args_) elements.push_back(RespValue::Bulk(std::move(arg)));
  request_args_.clear();
  *out = RespValue::Array(std::move(elements));
  return true;
}

Result<bool> RespParser::NextCommand(std::vector<std::string>* args) {
  if (error_.ok() && stack_.empty() && pos_ < buf_.size() && buf_[pos_] == '*' &&
      TakeWholeRequest(args)) {
    return true;
  }
  args->clear();
  RespValue value;
  Result<bool> got = Parse(&value);
  if (!got.ok() || !*got) return got;
  if (mode_ == Mode::kRequest) {
    args->swap(request_args_);
    request_args_.clear();
    // The caller's previous vector: a long request's size is not kept.
    if (request_args_.capacity() > static_cast<size_t>(kMaxReserve)) {
      std::vector<std::string>().swap(request_args_);
    }
    return true;
  }
  args->reserve(value.elements.size());
  for (RespValue& e : value.elements) args->push_back(std::move(e.str));
  return true;
}

}  // namespace crawlfront
