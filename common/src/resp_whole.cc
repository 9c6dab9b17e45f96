// Fast paths for a whole value already buffered, the common case on both
// sides: a request parsed in one pass into its argument strings, a reply (an
// array of bulk strings, integers and simple strings) in one recursive pass
// straight into its place in the tree. The general path builds the same
// tree on a stack of frames, moving every element once or twice: most of a
// busy client's CPU (a lease reply is 700 values). Anything else (partial,
// malformed, over a limit, or another type) returns false with the parser
// untouched, and the general path takes it and reports any error.
#include <algorithm>
#include <charconv>
#include <string>

#include "crawlfront/common/resp.h"

namespace crawlfront {
namespace {

constexpr int64_t kMaxLengthDigits = 18;  // as ParseLength (resp_parser.cc)

// Reads "<digits>\r\n" at *p (before end) into *n, as ParseLength accepts
// them (1 to 18 digits, no sign); false on anything else or too little input.
bool ReadCount(const char*& p, const char* end, int64_t* n) {
  const char* start = p;
  int64_t v = 0;
  while (p < end && *p >= '0' && *p <= '9' && p - start < kMaxLengthDigits) {
    v = v * 10 + (*p++ - '0');
  }
  if (p == start || end - p < 2 || p[0] != '\r' || p[1] != '\n') return false;
  p += 2;
  *n = v;
  return true;
}

// The rest of a header line at p (after its type byte), as ParseLine finds
// it: the first CRLF within max_inline_len bytes of the line's start.
bool ReadLine(const char*& p, const char* end, size_t max_inline_len,
              std::string_view* line) {
  const size_t avail = static_cast<size_t>(end - p);
  std::string_view rest(p, std::min(avail, max_inline_len + 1));
  size_t crlf = rest.find("\r\n");
  if (crlf == std::string_view::npos) return false;
  *line = rest.substr(0, crlf);
  p += crlf + 2;
  return true;
}

}  // namespace

// The common case, a whole well-formed request already buffered, parsed in
// one pass straight into *args (whose strings keep their capacity). Anything
// else (partial, malformed, over a limit) returns false with the parser
// untouched, and the general path takes it and reports any error.
bool RespParser::TakeWholeRequest(std::vector<std::string>* args) {
  const char* p = buf_.data() + pos_ + 1;  // past '*'
  const char* end = buf_.data() + buf_.size();
  int64_t count = 0;
  if (!ReadCount(p, end, &count) || count < 1 || count > limits_.max_array_len) {
    return false;
  }
  const char* start = buf_.data() + pos_;
  for (int64_t i = 0; i < count; ++i) {
    int64_t len = 0;
    if (p == end || *p++ != '$' || !ReadCount(p, end, &len)) return false;
    if (len > limits_.max_bulk_len || end - p < len + 2) return false;
    if (p[len] != '\r' || p[len + 1] != '\n') return false;
    if (static_cast<size_t>(i) < args->size()) {
      (*args)[i].assign(p, static_cast<size_t>(len));
    } else {
      args->emplace_back(p, static_cast<size_t>(len));
    }
    p += len + 2;
  }
  if (static_cast<size_t>(p - start) > limits_.max_frame_bytes) return false;
  args->resize(static_cast<size_t>(count));
  pos_ += static_cast<size_t>(p - start);
  return true;
}

bool RespParser::WholeValue(const char*& p, const char* end, int depth,
                            RespValue* out) const {
  if (p == end) return false;
  const char type = *p++;
  switch (type) {
    case '*': {
      int64_t count = 0;
      if (!ReadCount(p, end, &count) || count > limits_.max_array_len) return false;
      // Each element takes at least 3 bytes: a count that has not arrived
      // reserves nothing.
      if (count > (end - p) / 3) return false;
      if (count > 0 && depth > limits_.max_nesting) return false;
      out->type = RespType::kArray;
      out->elements.resize(static_cast<size_t>(count));
      for (RespValue& e : out->elements) {
        if (!WholeValue(p, end, depth + 1, &e)) return false;
      }
      return true;
    }
    case '$': {
      int64_t len = 0;
      if (!ReadCount(p, end, &len) || len > limits_.max_bulk_len) return false;
      if (end - p < len + 2 || p[len] != '\r' || p[len + 1] != '\n') return false;
      out->type = RespType::kBulkString;
      out->str.assign(p, static_cast<size_t>(len));
      p += len + 2;
      return true;
    }
    case ':': {
      std::string_view line;
      if (!ReadLine(p, end, limits_.max_inline_len, &line) || line.empty()) return false;
      auto [at, ec] = std::from_chars(line.data(), line.data() + line.size(), out->integer);
      out->type = RespType::kInteger;
      return ec == std::errc() && at == line.data() + line.size();
    }
    case '+':
    case '-': {
      std::string_view line;
      if (!ReadLine(p, end, limits_.max_inline_len, &line)) return false;
      out->type = type == '+' ? RespType::kSimpleString : RespType::kError;
      out->str.assign(line);
      return true;
    }
    default:
      return false;
  }
}

bool RespParser::TakeWholeReply(RespValue* out) {
  // Header lines here are at most 20 bytes; smaller line limits go the
  // general way, which enforces them.
  if (limits_.max_inline_len < 20) return false;
  const char* start = buf_.data() + pos_;
  const char* p = start;
  const char* end = buf_.data() + buf_.size();
  RespValue value;
  if (!WholeValue(p, end, 1, &value)) return false;
  if (static_cast<size_t>(p - start) > limits_.max_frame_bytes) return false;
  pos_ += static_cast<size_t>(p - start);
  *out = std::move(value);
  return true;
}

}  // namespace crawlfront
