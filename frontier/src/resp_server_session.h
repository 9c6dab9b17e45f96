#pragma once
// One client connection of RespServer (private to the server). All state is
// touched only on the connection's io thread (it belongs to one io_context,
// run by one thread); two coroutines run there: Run() (read, execute every
// buffered request, group commit, write) and Watchdog() (idle timeout).

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <string>
#include <vector>

#include "crawlfront/common/resp.h"
#include "crawlfront/frontier/resp_server.h"

namespace crawlfront {

class RespSession : public std::enable_shared_from_this<RespSession> {
 public:
  RespSession(RespServer& server, boost::asio::ip::tcp::socket socket, uint64_t id);

  // Spawns the coroutines. Call once, right after construction.
  void Start();
  // Thread-safe: asks the connection to close after its current write.
  void Shutdown();

 private:
  boost::asio::awaitable<void> Run(std::shared_ptr<RespSession> self);
  boost::asio::awaitable<void> Watchdog(std::shared_ptr<RespSession> self);
  // Executes buffered requests. Returns true when it stopped only because
  // the reply buffer is over its cap (more requests may be buffered).
  bool ProcessBuffered();
  // The next buffered request into args_: the one PeekNext parsed, if any.
  Result<bool> TakeNext();
  // Parses the request after the current one and runs its prefetch hook.
  void PeekNext();
  const RespServer::CommandEntry* LookupCommand(const std::string& name);
  void ExecuteOne();
  // What a long request and its reply left, freed once the connection
  // idles (resp_server_session.cc, kTrimDelay).
  bool HoldsLongBuffers() const;
  void ScheduleTrim();
  void TrimBuffers();
  // Runs the pending step of a long command (CallContext::ContinueWith).
  void RunStep();
  template <typename Fn>
  void Execute(Fn run);
  boost::asio::awaitable<bool> Flush();
  // Runs the round's commits (see RoundCommit), then fixes up its replies.
  boost::asio::awaitable<void> FinishRound();
  boost::asio::awaitable<bool> ReadSome();
  DeferredReply::Deliver MakeDeliver();
  void OnDeferredComplete(std::string encoded);
  void Close();

  RespServer& server_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer wake_timer_;  // cancelled when a deferred reply lands
  std::chrono::steady_clock::time_point idle_deadline_;
  std::chrono::steady_clock::time_point trim_at_ = std::chrono::steady_clock::time_point::max();
  RespParser parser_;
  ClientState state_;
  DeferredReply::Deliver deliver_;  // made once in Start(), copied by Defer()
  CommitRound round_;               // group commit of the running round
  std::vector<std::string> args_;
  const RespServer::CommandEntry* command_ = nullptr;  // args_'s, looked up once
  // The request parsed ahead by PeekNext (or the parse error met there).
  std::vector<std::string> next_args_;
  std::string last_name_;  // LookupCommand's memo
  const RespServer::CommandEntry* last_command_ = nullptr;
  const RespServer::CommandEntry* next_command_ = nullptr;
  bool peeked_ = false;
  Status peek_error_;
  std::string out_;
  std::string writing_;
  CallContext::Step step_;  // a long command's next piece, if one runs
  bool waiting_deferred_ = false;
  bool closing_ = false;
  bool closed_ = false;
  bool reading_ = false;
};

}  // namespace crawlfront
