// StatusServer lifecycle: listen, accept loop, once-a-second sampler for the
// rate history. Connections live in status_session.cc, routing in
// status_router.cc.
#include "crawlfront/frontier/status_http.h"
#include "crawlfront/common/net.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <optional>

#include "status_history.h"
#include "status_session.h"

namespace crawlfront {

namespace asio = boost::asio;
using asio::ip::tcp;

struct StatusServer::Io {
  static asio::awaitable<void> AcceptLoop(StatusServer& server);
  static asio::awaitable<void> SampleLoop(StatusServer& server);
  static void Sample(StatusServer& server);

  asio::io_context ioc;
  tcp::acceptor acceptor{asio::make_strand(ioc)};
  asio::steady_timer sample_timer{ioc};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
};

namespace {


int64_t NowUnixMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

void StatusServer::Io::Sample(StatusServer& server) {
  StatusSnapshot s;
  try {
    s = server.sampler_();
  } catch (...) {
    return;  // a gap in the history; the page shows the provider's 500s
  }
  // The server's own clock, not s.unix_ms: the rates are about when this
  // sampler read the counters.
  int64_t at = NowUnixMs();
  std::lock_guard<std::mutex> lock(server.history_mu_);
  server.history_->Add(at, s.totals.urls_fetched, s.totals.urls_seen,
                       s.totals.urls_failed);
}

// Runs until Stop() cancels the timer or stops the io_context.
asio::awaitable<void> StatusServer::Io::SampleLoop(StatusServer& server) {
  asio::steady_timer& timer = server.io_->sample_timer;
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    Sample(server);
    next += std::chrono::seconds(1);
    timer.expires_at(next);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
  }
}

// Runs until Stop() closes the acceptor.
asio::awaitable<void> StatusServer::Io::AcceptLoop(StatusServer& server) {
  Io& io = *server.io_;
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket = co_await io.acceptor.async_accept(
        asio::make_strand(io.ioc), asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !io.acceptor.is_open()) co_return;
    if (ec) {
      // E.g. out of file descriptors: back off instead of spinning.
      asio::steady_timer pause(io.ioc, std::chrono::milliseconds(50));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    if (server.connections_.load() >= server.options_.max_connections) {
      socket.close(ec);  // over the cap: refuse cheaply
      continue;
    }
    server.connections_.fetch_add(1);
    StatusSessionConfig config;
    config.options = &server.options_;
    config.route.options = &server.options_;
    config.route.provider = &server.provider_;
    config.route.history = [&server] { return server.History(); };
    config.connections = &server.connections_;
    auto executor = socket.get_executor();
    asio::co_spawn(executor, RunStatusSession(std::move(socket), std::move(config)),
                   asio::detached);
  }
}

StatusServer::StatusServer(StatusServerOptions options, StatusProvider provider,
                           StatusProvider sampler)
    : options_(std::move(options)),
      provider_(std::move(provider)),
      sampler_(sampler ? std::move(sampler) : provider_),
      history_(std::make_unique<RateHistory>(options_.history_seconds)) {}

StatusServer::~StatusServer() { Stop(); }

std::vector<RateSample> StatusServer::History() const {
  std::lock_guard<std::mutex> lock(history_mu_);
  return history_->Samples();
}

Status StatusServer::Start() {
  if (io_) return Status::InvalidArgument("StatusServer::Start called twice");
  if (!provider_)
    return Status::InvalidArgument("StatusServer needs a snapshot provider");
  io_ = std::make_unique<Io>();
  tcp::acceptor& acceptor = io_->acceptor;
  Status listening = OpenListener(acceptor, options_.listen, !options_.auth_token.empty());
  if (!listening.ok()) {
    io_.reset();
    return listening;
  }
  port_ = acceptor.local_endpoint().port();
  io_->work.emplace(io_->ioc.get_executor());
  // Exceptions (none expected) end the loop rather than escape run().
  asio::co_spawn(acceptor.get_executor(), Io::AcceptLoop(*this),
                 [](std::exception_ptr) {});
  asio::co_spawn(io_->ioc, Io::SampleLoop(*this), [](std::exception_ptr) {});
  int threads = std::max(1, options_.threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_->ioc.run(); });
  return Status::Ok();
}

void StatusServer::Stop() {
  if (!io_) return;
  io_->work.reset();
  // Sessions may be parked on a read for up to request_timeout; stopping the
  // loop drops them: their coroutine frames, sockets and the acceptor are
  // destroyed with io_ once the threads have left run().
  io_->ioc.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  io_.reset();
  port_ = 0;
}

}  // namespace crawlfront
