#pragma once
// RESP (REdis Serialization Protocol) codec: values, an incremental parser and
// a writer. Pure functions over bytes, no sockets, so it is easy to test and
// fuzz. Both RESP2 and RESP3 are supported; see docs/protocol.md.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront {

enum class RespType {
  kSimpleString,  // +OK
  kError,         // -ERR ...
  kInteger,       // :42
  kBulkString,    // $3\r\nfoo
  kNull,          // $-1, *-1 (RESP2) or _ (RESP3)
  kArray,         // *n
  kMap,           // %n (RESP3); elements hold key, value, key, value, ...
  kDouble,        // ,3.14 (RESP3)
  kBoolean,       // #t / #f (RESP3)
  kSet,           // ~n (RESP3)
  kVerbatim,      // =n\r\ntxt:... (RESP3); str holds the text after "txt:"
  kBigNumber,     // (1234... (RESP3); str holds the digits
  kPush,          // >n (RESP3) out-of-band data
};

// "simple string", "array", ... for error messages and debugging.
std::string_view RespTypeName(RespType type);

// One decoded RESP value. A plain struct: the field that matters depends on
// `type` (str for strings/errors/verbatim/big numbers, integer, number,
// boolean, elements for aggregates).
struct RespValue {
  RespType type = RespType::kNull;
  std::string str;
  int64_t integer = 0;
  double number = 0.0;
  bool boolean = false;
  std::string verbatim_format;      // kVerbatim only: "txt" or "mkd"
  std::vector<RespValue> elements;  // kArray, kSet, kPush, kMap (flattened)

  static RespValue SimpleString(std::string s);
  static RespValue Error(std::string s);
  static RespValue Integer(int64_t v);
  static RespValue Bulk(std::string s);
  static RespValue Null();
  static RespValue Array(std::vector<RespValue> elements);

  bool is_error() const { return type == RespType::kError; }
  bool is_null() const { return type == RespType::kNull; }
  // True for array, set, push and map.
  bool is_aggregate() const;
  // True for simple string, error, bulk string, verbatim and big number.
  bool is_string() const;
  // Number of key/value pairs of a map (elements.size() / 2).
  size_t map_size() const { return elements.size() / 2; }
  // For a map (RESP3) or a flat key/value array (RESP2): the value whose key
  // string equals `key`, or nullptr.
  const RespValue* Find(std::string_view key) const;

  // Human-readable one-line rendering, like redis-cli's (for logs and tests).
  std::string ToDebugString() const;

  friend bool operator==(const RespValue&, const RespValue&) = default;
};

// Bounds that make a hostile peer's frames cheap to reject. Lengths are
// checked when a header is read, before any memory is reserved for it.
struct RespLimits {
  // Largest bulk string. Bigger values need the whole body in RAM first.
  // Default: 64 MiB (Redis allows 512 MiB; we never need that much).
  int64_t max_bulk_len = int64_t{64} << 20;
  // Largest element count of one aggregate. Slots are reserved lazily, so a
  // big header alone costs nothing. Default: 1 << 20.
  int64_t max_array_len = int64_t{1} << 20;
  // Longest header line or inline command (bytes before CRLF).
  // Default: 64 KiB.
  size_t max_inline_len = size_t{64} << 10;
  // Deepest aggregate nesting (an array at top level has depth 1). Requests
  // are always flat; replies from real servers rarely exceed 3. Default: 8.
  int max_nesting = 8;
  // Most bytes one top-level value may span; bounds memory when many
  // elements are each below max_bulk_len. Default: 256 MiB.
  size_t max_frame_bytes = size_t{256} << 20;
};

// Incremental parser. Feed bytes as they arrive, then call Next()/NextCommand()
// until they report that more input is needed. Not thread-safe; one per
// connection. After an error the parser is poisoned: every later call returns
// the same error (the connection must be closed, framing is lost).
class RespParser {
 public:
  enum class Mode {
    // Server side: a request is an array of bulk strings ("*2\r\n$4\r\nECHO...")
    // or an inline command line ("PING\r\n", as telnet sends it).
    kRequest,
    // Client side: any RESP2/RESP3 reply.
    kReply,
  };

  explicit RespParser(Mode mode, RespLimits limits = {});

  // Appends bytes to the internal buffer. Never fails; limits are enforced
  // when the bytes are parsed.
  void Feed(std::string_view bytes);

  // Parses the next complete value into *out. Returns true when one was
  // produced, false when more input is needed (partial state is kept), or an
  // InvalidArgument Status describing the malformed input ("Protocol error:
  // invalid bulk length", ...). In kRequest mode a request is returned as an
  // array of bulk strings (inline commands too); empty requests are skipped.
  Result<bool> Next(RespValue* out);

  // kRequest mode convenience: like Next(), but yields the arguments.
  // *args is cleared first. Never yields an empty vector when returning true.
  Result<bool> NextCommand(std::vector<std::string>* args);

  // Bytes fed but not yet consumed by a complete value.
  size_t buffered_bytes() const { return buf_.size() - pos_; }
  // True when part of a value has been consumed but the value is unfinished.
  bool in_progress() const { return !stack_.empty() || buffered_bytes() > 0; }

 private:
  struct Frame {
    RespValue value;
    int64_t remaining = 0;  // child values still expected
  };
  enum class Step { kValue, kNeedMore, kError };

  // Next() without building a kRequest request's array (see request_args_).
  Result<bool> Parse(RespValue* out);
  Step ParseOne(RespValue* out, bool* is_aggregate_start, int64_t* count);
  Step ParseLine(std::string_view* line);
  Step ParseLength(std::string_view digits, bool allow_minus_one, int64_t* len,
                   const char* what);
  Step ParseScalar(char type, std::string_view line, RespValue* out);
  Step ParseBulk(char type, std::string_view line, RespValue* out);
  Step ParseInline(RespValue* out);
  // Fast paths for a whole value at pos_ (resp_whole.cc).
  bool TakeWholeRequest(std::vector<std::string>* args);
  bool TakeWholeReply(RespValue* out);
  bool WholeValue(const char*& p, const char* end, int depth, RespValue* out) const;
  Step Fail(std::string message);
  // Attaches a completed value to the open aggregates; true when a whole
  // top-level value is ready in *done.
  bool Attach(RespValue value, RespValue* done);
  // Before a request's next argument is kept; `remaining` counts it.
  void ReserveRequest(size_t remaining);
  void Compact();

  Mode mode_;
  RespLimits limits_;
  std::string buf_;
  size_t pos_ = 0;
  size_t frame_bytes_ = 0;  // bytes of the current top-level value consumed
  std::vector<Frame> stack_;
  // kRequest: the arguments of the request being parsed, as strings (32
  // bytes each, not a RespValue's 120: a 10^6-argument request is 32 MB).
  std::vector<std::string> request_args_;
  Status error_;
};

// Appends RESP-encoded values to a caller-owned string. `protocol` is 2 or 3:
// RESP3-only types are downgraded for RESP2 exactly as Redis does (map ->
// flat array, double -> bulk string, boolean -> integer, null -> $-1, set ->
// array, verbatim -> bulk, push -> array). Not thread-safe.
class RespWriter {
 public:
  RespWriter(std::string* out, int protocol) : out_(out), protocol_(protocol) {}

  int protocol() const { return protocol_; }
  // Later values use this protocol (a HELLO switches mid-connection).
  void set_protocol(int protocol) { protocol_ = protocol; }
  std::string* buffer() { return out_; }

  void SimpleString(std::string_view s);  // CR/LF in s are replaced by spaces
  void Error(std::string_view s);         // s includes the code: "ERR ..."
  void Integer(int64_t v);
  void Bulk(std::string_view s);
  void Null();       // RESP2 "$-1", RESP3 "_"
  void NullArray();  // RESP2 "*-1", RESP3 "_"
  void ArrayHeader(size_t n);
  void MapHeader(size_t pairs);  // RESP2: array of 2 * pairs
  void SetHeader(size_t n);
  void PushHeader(size_t n);
  void Double(double v);
  void Bool(bool v);
  void Verbatim(std::string_view format, std::string_view text);
  void BigNumber(std::string_view digits);
  // Array of bulk strings.
  void BulkArray(const std::vector<std::string>& items);
  // The same for arguments the caller holds elsewhere: a command written
  // straight into a pipeline, without a vector of strings per command.
  void BulkArray(std::initializer_list<std::string_view> items);
  // Array of integers that are each 0 or 1 (nonzero is written as 1), in one
  // pass: BF.MADD and BF.MEXISTS answer hundreds per call.
  void ZeroOneArray(std::span<const uint8_t> values);
  // Any decoded value, re-encoded for this writer's protocol.
  void Value(const RespValue& v);

 private:
  void Header(char type, int64_t n);
  std::string* out_;
  int protocol_;
};

// A request as clients send it: an array of bulk strings.
std::string EncodeCommand(const std::vector<std::string>& args);

}  // namespace crawlfront
