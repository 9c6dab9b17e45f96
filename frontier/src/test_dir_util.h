#pragma once
// A fresh directory under the system temp dir for one test's RocksDB, removed
// with the object. Names carry the pid and a counter, so parallel ctest
// processes and several directories in one test never collide.

#include <unistd.h>

#include <filesystem>
#include <string>

namespace crawlfront::testing {

class TestDir {
 public:
  TestDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("crawlfront_test." + std::to_string(getpid()) + "." + std::to_string(counter_++));
    std::filesystem::remove_all(path_);
  }
  ~TestDir() { std::filesystem::remove_all(path_); }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

}  // namespace crawlfront::testing
