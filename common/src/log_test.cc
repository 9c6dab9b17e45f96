// The log file: size rotation keeps max_files old files, and a reopen (what
// SIGHUP does after logrotate moved the file) starts a new file, keeping the
// old one in use when the new one cannot be opened.

#include "crawlfront/common/log.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace crawlfront {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class LogFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "crawlfront-log-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    file_ = dir_ + "/x.log";
  }
  void TearDown() override {
    ASSERT_TRUE(InitLogging("test", "info", "").ok());  // closes the file
    fs::remove_all(dir_);
  }
  static void Flush() { spdlog::default_logger()->flush(); }

  std::string dir_, file_;
};

// The number logged on the first and last "line N" of a file, -1 if none.
std::pair<int, int> LineRange(const std::string& text) {
  int first = -1, last = -1;
  for (size_t pos = text.find("line "); pos != std::string::npos;
       pos = text.find("line ", pos + 1)) {
    last = std::stoi(text.substr(pos + 5));
    if (first < 0) first = last;
  }
  return {first, last};
}

TEST_F(LogFileTest, RotatesBySizeKeepingMaxFiles) {
  ASSERT_TRUE(InitLogging("test", "info", file_, {1024, 2}).ok());
  for (int i = 0; i < 200; ++i) spdlog::info("line {}", i);
  Flush();
  EXPECT_FALSE(fs::exists(file_ + ".3")) << "max_files 2";
  int next = 200;  // walking back from the newest file, lines stay in order
  for (const std::string& f : {file_, file_ + ".1", file_ + ".2"}) {
    ASSERT_TRUE(fs::exists(f)) << f;
    EXPECT_LE(fs::file_size(f), 1024u) << f;
    auto [first, last] = LineRange(Read(f));
    EXPECT_EQ(last, next - 1) << f;
    EXPECT_GE(first, 0) << f << " has lines";
    next = first;
  }
  EXPECT_GT(next, 0) << "the oldest lines were deleted with the file past max_files";
}

TEST_F(LogFileTest, ReopenStartsANewFileAfterAMove) {
  ASSERT_TRUE(InitLogging("test", "info", file_).ok());
  spdlog::info("before");
  fs::rename(file_, file_ + ".old");
  spdlog::info("moved");  // still the old file, as for any moved open file
  ASSERT_TRUE(ReopenLogFile().ok());
  spdlog::info("after");
  Flush();
  const std::string old_text = Read(file_ + ".old"), new_text = Read(file_);
  EXPECT_NE(old_text.find("before"), std::string::npos);
  EXPECT_NE(old_text.find("moved"), std::string::npos);
  EXPECT_EQ(old_text.find("after"), std::string::npos);
  EXPECT_NE(new_text.find("after"), std::string::npos);
  EXPECT_EQ(new_text.find("moved"), std::string::npos);
}

TEST_F(LogFileTest, AFailedReopenKeepsWritingTheOldFile) {
  ASSERT_TRUE(InitLogging("test", "info", file_).ok());
  fs::rename(file_, file_ + ".old");
  fs::create_directory(file_);  // even root cannot open a directory for appending
  Status st = ReopenLogFile();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(file_), std::string::npos) << st.message();
  spdlog::info("kept");
  Flush();
  EXPECT_NE(Read(file_ + ".old").find("kept"), std::string::npos);
}

TEST_F(LogFileTest, ReopenWithoutAFileDoesNothing) {
  ASSERT_TRUE(InitLogging("test", "info", "").ok());
  EXPECT_TRUE(ReopenLogFile().ok());
}

TEST_F(LogFileTest, SighupReopensTheFile) {
  ASSERT_TRUE(InitLogging("test", "info", file_).ok());
  LogReopenOnSighup reopen;
  spdlog::info("before");
  fs::rename(file_, file_ + ".old");
  ASSERT_EQ(std::raise(SIGHUP), 0);
  // The reopen happens on the poller's thread; bounded wait, not a timing check.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool reopened = false;
  while (!reopened && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Flush();
    reopened = Read(file_).find("SIGHUP: log file reopened") != std::string::npos;
  }
  ASSERT_TRUE(reopened) << "no new file saying so 30 s after SIGHUP";
  spdlog::info("after");
  Flush();
  EXPECT_NE(Read(file_).find("after"), std::string::npos);
  EXPECT_EQ(Read(file_ + ".old").find("after"), std::string::npos);
}

}  // namespace
}  // namespace crawlfront
