#include "crawlfront/common/status.h"

namespace crawlfront {

std::string Status::ToString() const {
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: return "invalid argument: " + message_;
    case Code::kNotFound: return "not found: " + message_;
    case Code::kCorruption: return "corruption: " + message_;
    case Code::kIoError: return "io error: " + message_;
    case Code::kBusy: return "busy: " + message_;
    case Code::kUnavailable: return "unavailable: " + message_;
    case Code::kInternal: return "internal: " + message_;
  }
  return "unknown: " + message_;
}

}  // namespace crawlfront
