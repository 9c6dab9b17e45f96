#include "ui_env.h"

#include <sstream>
#include <thread>

namespace crawlfront::ui {

UiEnv::~UiEnv() {
  worker_.Stop();
  client_.reset();
  frontier_.Stop();
  simweb_.Stop();
}

Status UiEnv::StartFrontier() {
  std::vector<std::string> extra = {"--set", "crawl.default_delay=" + options_.delay,
                                    "--set",
                                    "crawl.allow_host_suffixes=[\".simweb.test\"]"};
  std::string error;
  if (!testutil::StartFrontier(&frontier_, dir_, dir_ / "data", extra, &error)) {
    return Status::Unavailable(error);
  }
  auto client =
      RespClient::Connect("127.0.0.1", static_cast<uint16_t>(frontier_.Port("resp")),
                          std::chrono::seconds(10));
  if (!client.ok()) return client.status();
  client_ = std::move(*client);
  return Status::Ok();
}

Status UiEnv::StartWebAndWorker() {
  std::string error;
  if (!simweb_.Start(
          "simweb",
          {"--listen", "127.0.0.1:0", "--hosts", std::to_string(options_.hosts),
           "--pages", std::to_string(options_.pages), "--seed", "1", "--port-file",
           dir_ / "simweb.port"},
          dir_ / "simweb.log", dir_ / "simweb.port", &error)) {
    return Status::Unavailable(error);
  }
  if (!worker_.Start("crawl-worker",
                     {"--frontier", "127.0.0.1:" + std::to_string(frontier_.Port("resp")),
                      "--warc-dir", dir_ / "warc", "--worker-id", "w0", "--connect-to",
                      "::127.0.0.1:" + std::to_string(simweb_.Port()), "--set",
                      "fetch.allow_private_networks=true"},
                     dir_ / "worker.log", "", &error)) {
    return Status::Unavailable(error);
  }
  return Status::Ok();
}

Status UiEnv::SeedHomePages() {
  std::vector<std::string> cmd = {"FRONTIER.ADD"};
  for (int h = 0; h < options_.hosts; ++h) {
    cmd.push_back("http://h" + std::to_string(h) + ".simweb.test/");
  }
  auto reply = Command(cmd);
  if (!reply.ok()) return reply.status();
  if (reply->is_error()) return Status::InvalidArgument("FRONTIER.ADD: " + reply->str);
  for (const auto& e : reply->elements) {
    if (e.integer != 1) return Status::InvalidArgument("a seed was not queued: " + e.str);
  }
  return Status::Ok();
}

Result<RespValue> UiEnv::Command(const std::vector<std::string>& args) {
  if (!client_) return Status::Unavailable("no RESP connection");
  return client_->Command(args);
}

Result<int64_t> UiEnv::InfoCount(const std::string& field) {
  auto reply = Command({"INFO", "crawl"});
  if (!reply.ok()) return reply.status();
  if (reply->is_error()) return Status::Internal("INFO: " + reply->str);
  std::istringstream in(reply->str);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) != 0) continue;
    try {
      return static_cast<int64_t>(std::stoll(line.substr(field.size() + 1)));
    } catch (const std::exception&) {
      return Status::Corruption("INFO field " + field + " is not a number: " + line);
    }
  }
  return Status::NotFound("INFO crawl has no " + field);
}

Status UiEnv::CheckAlive() {
  if (!frontier_.Running()) return Status::Unavailable("frontier died:\n" + Logs());
  if (simweb_.pid() > 0 && !simweb_.Running()) return Status::Unavailable("simweb died");
  if (worker_.pid() > 0 && !worker_.Running()) {
    return Status::Unavailable("worker died:\n" + Logs());
  }
  return Status::Ok();
}

Status UiEnv::WaitAbove(const std::string& field, int64_t above,
                        std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    auto value = InfoCount(field);
    if (!value.ok()) return value.status();
    if (*value > above) return Status::Ok();
    CRAWLFRONT_RETURN_IF_ERROR(CheckAlive());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::Unavailable(field + " did not pass " + std::to_string(above) + ":\n" +
                             Logs());
}

std::string UiEnv::Logs() {
  std::string out = "--- frontier.log\n" + testutil::Tail(dir_ / "frontier.log", 2500);
  out += "--- worker.log\n" + testutil::Tail(dir_ / "worker.log", 1500);
  out += "--- simweb.log\n" + testutil::Tail(dir_ / "simweb.log", 800);
  return out;
}

}  // namespace crawlfront::ui
