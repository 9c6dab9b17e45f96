#include "crawlfront/simweb/access_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>

namespace crawlfront::simweb {
namespace {

std::string Field(std::string_view text) {
  if (text.empty()) return "-";
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) c = '_';
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<AccessLog>> AccessLog::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return Status::IoError("cannot open access log " + path + ": " +
                           std::strerror(errno));
  }
  return std::unique_ptr<AccessLog>(new AccessLog(file));
}

AccessLog::~AccessLog() { std::fclose(file_); }

void AccessLog::Write(std::chrono::system_clock::time_point arrived, std::string_view host,
                      std::string_view target, int status, uint64_t bytes) {
  auto now = arrived.time_since_epoch();
  long long millis = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
  std::string line =
      std::to_string(millis / 1000) + "." +
      std::string(millis % 1000 < 100 ? (millis % 1000 < 10 ? "00" : "0") : "") +
      std::to_string(millis % 1000) + " " + Field(host) + " " + Field(target) + " " +
      std::to_string(status) + " " + std::to_string(bytes) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace crawlfront::simweb
