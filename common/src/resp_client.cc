// Blocking client built from Asio async operations driven by run_until(), so
// every network step has a deadline without extra threads.
#include "crawlfront/common/resp_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

namespace crawlfront {

namespace asio = boost::asio;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

class RespClient::Impl {
 public:
  explicit Impl(const RespClientOptions& options)
      : options_(options),
        socket_(ioc_),
        parser_(RespParser::Mode::kReply, options.limits) {}

  Status Connect(const std::string& host, uint16_t port);
  Status Write(std::string_view bytes, Clock::time_point deadline);
  Result<RespValue> Read(Clock::time_point deadline);
  Clock::time_point Deadline() const { return Clock::now() + options_.timeout; }
  void Close();
  bool broken() const { return broken_; }
  int protocol = 2;
  RespClientOptions options_;

 private:
  // Runs queued async work until *done or the deadline; on timeout closes
  // the socket (cancelling the operation) and reports Unavailable.
  Status RunUntil(const bool& done, Clock::time_point deadline, const char* what);
  Status Broken(Status status) {
    Close();
    return status;
  }

  asio::io_context ioc_;
  tcp::socket socket_;
  RespParser parser_;
  bool broken_ = false;
  char read_buf_[64 * 1024];
};

Status RespClient::Impl::RunUntil(const bool& done, Clock::time_point deadline,
                                  const char* what) {
  ioc_.restart();
  ioc_.run_until(deadline);
  if (done) return Status::Ok();
  Close();
  ioc_.restart();
  ioc_.run();  // let the cancelled handler run so nothing refers to locals
  return Status::Unavailable(std::string(what) + " timed out");
}

void RespClient::Impl::Close() {
  broken_ = true;
  boost::system::error_code ignored;
  socket_.close(ignored);
}

Status RespClient::Impl::Connect(const std::string& host, uint16_t port) {
  Clock::time_point deadline = Deadline();
  tcp::resolver resolver(ioc_);
  boost::system::error_code ec;
  bool done = false;
  resolver.async_resolve(
      host, std::to_string(port),
      [&](const boost::system::error_code& e, tcp::resolver::results_type r) {
        ec = e;
        if (e) {
          done = true;
          return;
        }
        asio::async_connect(
            socket_, r, [&](const boost::system::error_code& e2, const tcp::endpoint&) {
              ec = e2;
              done = true;
            });
      });
  Status st = RunUntil(done, deadline, "connect");
  if (!st.ok()) return st;
  if (ec) {
    return Broken(Status::Unavailable("connect to " + host + ":" + std::to_string(port) +
                                      ": " + ec.message()));
  }
  socket_.set_option(tcp::no_delay(true), ec);
  broken_ = false;
  return Status::Ok();
}

Status RespClient::Impl::Write(std::string_view bytes, Clock::time_point deadline) {
  if (broken_) return Status::Unavailable("connection closed after an earlier error");
  boost::system::error_code ec;
  bool done = false;
  asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()),
                    [&](const boost::system::error_code& e, size_t) {
                      ec = e;
                      done = true;
                    });
  CRAWLFRONT_RETURN_IF_ERROR(RunUntil(done, deadline, "write"));
  if (ec) return Broken(Status::IoError("write: " + ec.message()));
  return Status::Ok();
}

Result<RespValue> RespClient::Impl::Read(Clock::time_point deadline) {
  if (broken_) return Status::Unavailable("connection closed after an earlier error");
  RespValue value;
  // Each pass either yields a value, fails, or reads at least one byte.
  while (true) {
    Result<bool> got = parser_.Next(&value);
    if (!got.ok()) {
      return Broken(Status::Corruption("malformed reply: " + got.status().message()));
    }
    if (*got) return value;
    boost::system::error_code ec;
    size_t n = 0;
    bool done = false;
    socket_.async_read_some(asio::buffer(read_buf_),
                            [&](const boost::system::error_code& e, size_t len) {
                              ec = e;
                              n = len;
                              done = true;
                            });
    CRAWLFRONT_RETURN_IF_ERROR(RunUntil(done, deadline, "read"));
    if (ec == asio::error::eof)
      return Broken(Status::IoError("connection closed by server"));
    if (ec) return Broken(Status::IoError("read: " + ec.message()));
    parser_.Feed(std::string_view(read_buf_, n));
  }
}

RespClient::RespClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RespClient::~RespClient() = default;

Result<std::unique_ptr<RespClient>> RespClient::Connect(
    const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
  RespClientOptions options;
  options.timeout = timeout;
  return Connect(host, port, options);
}

Result<std::unique_ptr<RespClient>> RespClient::Connect(
    const std::string& host, uint16_t port, const RespClientOptions& options) {
  if (options.protocol != 2 && options.protocol != 3) {
    return Status::InvalidArgument("protocol must be 2 or 3");
  }
  auto impl = std::make_unique<Impl>(options);
  CRAWLFRONT_RETURN_IF_ERROR(impl->Connect(host, port));
  std::unique_ptr<RespClient> client(new RespClient(std::move(impl)));
  std::vector<std::string> hello;
  if (options.protocol == 3) {
    hello = {"HELLO", "3"};
    if (!options.auth_token.empty()) {
      hello.insert(hello.end(), {"AUTH", "default", options.auth_token});
    }
  } else if (!options.auth_token.empty()) {
    hello = {"AUTH", options.auth_token};
  }
  if (!hello.empty()) {
    Result<RespValue> reply = client->Command(hello);
    if (!reply.ok()) return reply.status();
    if (reply->is_error()) {
      return Status::InvalidArgument(hello[0] + " rejected: " + reply->str);
    }
    client->impl_->protocol = options.protocol;
  }
  return client;
}

Result<RespValue> RespClient::Command(const std::vector<std::string>& args) {
  auto deadline = impl_->Deadline();
  CRAWLFRONT_RETURN_IF_ERROR(impl_->Write(EncodeCommand(args), deadline));
  return impl_->Read(deadline);
}

Result<std::vector<RespValue>> RespClient::Pipeline(
    const std::vector<std::vector<std::string>>& cmds) {
  std::string batch;
  RespWriter writer(&batch, 2);
  for (const auto& args : cmds) writer.BulkArray(args);
  return PipelineEncoded(batch, cmds.size());
}

Result<std::vector<RespValue>> RespClient::PipelineEncoded(std::string_view commands,
                                                           size_t count) {
  auto deadline = impl_->Deadline();
  CRAWLFRONT_RETURN_IF_ERROR(impl_->Write(commands, deadline));
  std::vector<RespValue> replies;
  replies.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    Result<RespValue> reply = impl_->Read(deadline);
    if (!reply.ok()) return reply.status();
    replies.push_back(std::move(reply).value());
  }
  return replies;
}

Status RespClient::SendRaw(std::string_view bytes) {
  return impl_->Write(bytes, impl_->Deadline());
}

Result<RespValue> RespClient::ReadReply() { return impl_->Read(impl_->Deadline()); }

int RespClient::protocol() const { return impl_->protocol; }

void RespClient::set_timeout(std::chrono::milliseconds timeout) {
  impl_->options_.timeout = timeout;
}

void RespClient::Close() { impl_->Close(); }

}  // namespace crawlfront
