#include "crawlfront/frontier/resp_server.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/resource.h>
#if defined(__SANITIZE_ADDRESS__)
// The ASan runtime's (GCC ships no header for it).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "crawlfront/common/ascii.h"
#include "crawlfront/common/resp_client.h"

namespace crawlfront {
namespace {

using namespace std::chrono_literals;

RespServerOptions TestOptions() {
  RespServerOptions options;
  options.listen = "127.0.0.1:0";
  options.threads = 2;
  return options;
}

std::unique_ptr<RespClient> Connect(const RespServer& server,
                                    RespClientOptions options = {}) {
  auto client = RespClient::Connect("127.0.0.1", server.port(), options);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(client).value() : nullptr;
}

RespValue Call(RespClient& client, const std::vector<std::string>& args) {
  Result<RespValue> reply = client.Command(args);
  EXPECT_TRUE(reply.ok()) << reply.status().ToString();
  return reply.ok() ? std::move(reply).value() : RespValue::Error("network failure");
}

// Waits (bounded) until cond() holds; returns whether it did.
template <typename Cond>
bool Eventually(Cond cond) {
  for (int i = 0; i < 400; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(25ms);
  }
  return cond();
}

class RespServerTest : public ::testing::Test {
 protected:
  void StartServer(RespServerOptions options = TestOptions()) {
    server_ = std::make_unique<RespServer>(options);
    RegisterTestCommands();
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void TearDown() override {
    if (server_) server_->Stop();
    for (auto& t : completers_) t.join();
  }

  // SLOWECHO x: replies x later from another thread. HOLD: replies "released"
  // when the test calls Release().
  void RegisterTestCommands() {
    CommandSpec slow;
    slow.arity = 2;
    slow.flags = kCmdBlocking;
    slow.handler = [this](CallContext& ctx) {
      auto deferred = ctx.Defer();
      std::string text = ctx.args()[1];
      completers_.emplace_back([deferred, text] {
        std::this_thread::sleep_for(20ms);
        std::string out;
        RespWriter(&out, deferred->protocol()).Bulk(text);
        deferred->Complete(out);
      });
    };
    server_->Register("slowecho", slow);
    CommandSpec hold;
    hold.arity = 1;
    hold.handler = [this](CallContext& ctx) {
      std::lock_guard<std::mutex> lock(held_mu_);
      held_.push_back(ctx.Defer());
    };
    server_->Register("HOLD", hold);
    CommandSpec drop;  // defers and forgets the reply
    drop.arity = 1;
    drop.handler = [](CallContext& ctx) { ctx.Defer(); };
    server_->Register("DROP", drop);
    CommandSpec thrower;  // writes half a reply, then throws
    thrower.arity = 1;
    thrower.handler = [](CallContext& ctx) {
      ctx.reply().ArrayHeader(2);
      throw std::runtime_error("handler failed");
    };
    server_->Register("THROW", thrower);
    CommandSpec peek;  // logs its prefetch hook's calls and its runs
    peek.arity = 2;
    peek.prefetch = [this](std::span<const std::string> args) {
      std::lock_guard<std::mutex> lock(events_mu_);
      events_.push_back("prefetch " + args[1]);
    };
    peek.handler = [this](CallContext& ctx) {
      std::lock_guard<std::mutex> lock(events_mu_);
      events_.push_back("run " + ctx.args()[1]);
      ctx.reply().SimpleString("OK");
    };
    server_->Register("PEEK", peek);
    CommandSpec ones;  // ONES arg...: an array of as many 1s
    ones.arity = -1;
    ones.handler = [](CallContext& ctx) {
      ctx.reply().ZeroOneArray(std::vector<uint8_t>(ctx.args().size() - 1, 1));
    };
    server_->Register("ONES", ones);
    RegisterStepCommands();
  }
  // STEPS n: replies n after n steps (a step that is told to throws).
  // WAITFLAG: steps until SETFLAG has run on some connection; replies
  // "seen", or "timeout" after 30 s.
  void RegisterStepCommands() {
    CommandSpec steps;
    steps.arity = -2;
    steps.handler = [this](CallContext& ctx) {
      auto left = std::make_shared<int64_t>(std::stoll(ctx.args()[1]));
      ctx.ContinueWith([this, left](CallContext& step) {
        {
          std::lock_guard<std::mutex> lock(events_mu_);
          events_.push_back("step " + step.args()[1] + " " + std::to_string(*left));
        }
        if (step.args().size() > 2 && *left == 1) throw std::runtime_error("step failed");
        if (--*left > 0) return false;
        step.reply().Integer(std::stoll(step.args()[1]));
        return true;
      });
    };
    server_->Register("STEPS", steps);
    CommandSpec wait;
    wait.arity = 1;
    wait.handler = [this](CallContext& ctx) {
      const auto deadline = std::chrono::steady_clock::now() + 30s;
      ctx.ContinueWith([this, deadline](CallContext& step) {
        if (flag_.load()) {
          step.reply().SimpleString("seen");
        } else if (std::chrono::steady_clock::now() > deadline) {
          step.reply().SimpleString("timeout");
        } else {
          return false;
        }
        return true;
      });
    };
    server_->Register("WAITFLAG", wait);
    CommandSpec set;
    set.arity = 1;
    set.handler = [this](CallContext& ctx) {
      flag_.store(true);
      ctx.reply().SimpleString("OK");
    };
    server_->Register("SETFLAG", set);
  }
  void Release() {
    std::lock_guard<std::mutex> lock(held_mu_);
    for (auto& d : held_) d->Complete("+released\r\n");
    held_.clear();
  }

  std::unique_ptr<RespServer> server_;
  std::vector<std::thread> completers_;
  std::mutex held_mu_;
  std::vector<std::shared_ptr<DeferredReply>> held_;
  std::mutex events_mu_;
  std::vector<std::string> events_;
  std::atomic<bool> flag_{false};
};

TEST_F(RespServerTest, PingEchoSelectClient) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  struct Case {
    std::vector<std::string> args;
    RespValue want;
  } cases[] = {
      {{"PING"}, RespValue::SimpleString("PONG")},
      {{"ping", "hi"}, RespValue::Bulk("hi")},
      {{"ECHO", std::string("a\0b", 3)}, RespValue::Bulk(std::string("a\0b", 3))},
      {{"SELECT", "0"}, RespValue::SimpleString("OK")},
      {{"SELECT", "1"}, RespValue::Error("ERR DB index is out of range")},
      {{"CLIENT", "GETNAME"}, RespValue::Null()},
      {{"CLIENT", "SETNAME", "w1"}, RespValue::SimpleString("OK")},
      {{"CLIENT", "GETNAME"}, RespValue::Bulk("w1")},
      {{"CLIENT", "SETNAME", "a b"},
       RespValue::Error(
           "ERR Client names cannot contain spaces, newlines or special characters.")},
      {{"CONFIG", "GET", "save"}, RespValue::Array({})},
      {{"COMMAND", "COUNT"},
       RespValue::Integer(static_cast<int64_t>(server_->commands().size()))},
  };
  for (const Case& c2 : cases) EXPECT_EQ(Call(*c, c2.args), c2.want) << c2.args[0];
  RespValue id = Call(*c, {"CLIENT", "ID"});
  EXPECT_EQ(id.type, RespType::kInteger);
  EXPECT_GE(id.integer, 1);
}

TEST_F(RespServerTest, HelloSwitchesProtocol) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  RespValue hello2 = Call(*c, {"HELLO", "2"});
  ASSERT_EQ(hello2.type, RespType::kArray);
  ASSERT_NE(hello2.Find("proto"), nullptr);
  EXPECT_EQ(hello2.Find("proto")->integer, 2);
  RespValue hello3 = Call(*c, {"HELLO", "3", "SETNAME", "me"});
  ASSERT_EQ(hello3.type, RespType::kMap);
  EXPECT_EQ(hello3.Find("proto")->integer, 3);
  EXPECT_EQ(hello3.Find("server")->str, "crawlfront");
  EXPECT_EQ(hello3.Find("modules")->type, RespType::kArray);
  EXPECT_EQ(Call(*c, {"CLIENT", "GETNAME"}), RespValue::Bulk("me"));
  EXPECT_EQ(Call(*c, {"CONFIG", "GET", "appendonly"}).type, RespType::kMap);
  EXPECT_EQ(Call(*c, {"CLIENT", "SETNAME", "x"}).type, RespType::kSimpleString);
  EXPECT_EQ(Call(*c, {"HELLO", "4"}),
            RespValue::Error("NOPROTO unsupported protocol version"));
  RespClientOptions resp3;
  resp3.protocol = 3;
  auto c3 = Connect(*server_, resp3);
  ASSERT_TRUE(c3);
  EXPECT_EQ(c3->protocol(), 3);
  EXPECT_EQ(Call(*c3, {"CLIENT", "GETNAME"}).type, RespType::kNull);
}

TEST_F(RespServerTest, UnknownCommandAndArity) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  struct Case {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      {{"foo"}, "ERR unknown command 'foo', with args beginning with: "},
      {{"FOO", "a", "b c"},
       "ERR unknown command 'FOO', with args beginning with: 'a' 'b c' "},
      {{"ECHO"}, "ERR wrong number of arguments for 'echo' command"},
      {{"ECHO", "a", "b"}, "ERR wrong number of arguments for 'echo' command"},
      {{"PING", "a", "b"}, "ERR wrong number of arguments for 'ping' command"},
      {{"CLIENT"}, "ERR wrong number of arguments for 'client' command"},
      {{"COMMAND", "NOPE"}, "ERR unknown subcommand 'NOPE'. Try COMMAND HELP."},
      {{"client", "nope"}, "ERR unknown subcommand 'nope'. Try CLIENT HELP."},
      {{"CLIENT", "SETNAME"},
       "ERR wrong number of arguments for 'client|setname' command"},
      {{"CONFIG", "SET", "a", "b"}, "ERR unknown subcommand 'SET'. Try CONFIG HELP."},
      {{"SELECT", "x"}, "ERR value is not an integer or out of range"},
      {{"THROW"}, "ERR internal error: handler failed"},
      {{"AUTH", "x"},
       "ERR AUTH <password> called without any password configured for the default user. "
       "Are you sure your configuration is correct?"},
  };
  for (const Case& tc : cases) {
    EXPECT_EQ(Call(*c, tc.args), RespValue::Error(tc.error)) << tc.args[0];
  }
  // The connection survives all of those.
  EXPECT_EQ(Call(*c, {"PING"}), RespValue::SimpleString("PONG"));
}

// Every "Try X HELP." error points at help that exists: an array of lines
// naming each subcommand, as Redis 7 answers.
TEST_F(RespServerTest, HelpThatErrorsPointToExists) {
  StartServer(TestOptions());
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"CLIENT", {"SETNAME", "GETNAME", "ID", "SETINFO"}},
      {"CONFIG", {"GET"}},
      {"COMMAND", {"COUNT", "LIST", "INFO", "DOCS"}},
  };
  for (const auto& [command, subs] : commands) {
    RespValue error = Call(*c, {command, "NOPE"});
    ASSERT_NE(error.str.find("Try " + command + " HELP."), std::string::npos) << error.str;
    RespValue help = Call(*c, {command, "help"});
    ASSERT_EQ(help.type, RespType::kArray) << command << ": " << help.str;
    std::string text;
    for (const RespValue& line : help.elements) {
      EXPECT_EQ(line.type, RespType::kSimpleString);
      text += line.str + "\n";
    }
    EXPECT_TRUE(text.starts_with(command + " <subcommand>")) << text;
    for (const std::string& sub : subs) {
      EXPECT_NE(text.find("\n" + sub), std::string::npos) << command << " lacks " << sub;
    }
    EXPECT_EQ(Call(*c, {command, "HELP", "x"}),
              RespValue::Error("ERR wrong number of arguments for '" + AsciiLower(command) +
                               "|help' command"));
  }
}

TEST_F(RespServerTest, AuthFlow) {
  RespServerOptions options = TestOptions();
  options.auth_token = "s3cret";
  StartServer(options);
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  struct Step {
    std::vector<std::string> args;
    RespValue want;
  } steps[] = {
      {{"PING"}, RespValue::Error("NOAUTH Authentication required.")},
      {{"NOSUCH"},
       RespValue::Error("ERR unknown command 'NOSUCH', with args beginning with: ")},
      {{"AUTH", "wrong"},
       RespValue::Error("WRONGPASS invalid username-password pair or user is disabled.")},
      {{"AUTH", "other", "s3cret"},
       RespValue::Error("WRONGPASS invalid username-password pair or user is disabled.")},
      {{"PING"}, RespValue::Error("NOAUTH Authentication required.")},
      {{"AUTH", "s3cret"}, RespValue::SimpleString("OK")},
      {{"PING"}, RespValue::SimpleString("PONG")},
  };
  for (const Step& s : steps) EXPECT_EQ(Call(*c, s.args), s.want) << s.args[0];

  auto h = Connect(*server_);
  ASSERT_TRUE(h);
  EXPECT_EQ(Call(*h, {"HELLO", "3"}).str.rfind("NOAUTH HELLO must be called", 0), 0u);
  EXPECT_EQ(Call(*h, {"HELLO", "3", "AUTH", "default", "s3cret"}).type, RespType::kMap);
  EXPECT_EQ(Call(*h, {"PING"}), RespValue::SimpleString("PONG"));

  RespClientOptions good;
  good.auth_token = "s3cret";
  auto authed = Connect(*server_, good);
  ASSERT_TRUE(authed);
  EXPECT_EQ(Call(*authed, {"PING"}), RespValue::SimpleString("PONG"));
  RespClientOptions bad;
  bad.auth_token = "nope";
  auto rejected = RespClient::Connect("127.0.0.1", server_->port(), bad);
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(RespServerTest, ThousandPipelinedCommandsInOneWrite) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  std::string batch;
  for (int i = 0; i < 1000; ++i) batch += EncodeCommand({"ECHO", std::to_string(i)});
  batch += "PING inline\r\n";
  ASSERT_TRUE(c->SendRaw(batch).ok());
  for (int i = 0; i < 1000; ++i) {
    Result<RespValue> reply = c->ReadReply();
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    ASSERT_EQ(reply->str, std::to_string(i));
  }
  EXPECT_EQ(c->ReadReply()->str, "inline");
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 1000; ++i) cmds.push_back({"PING", std::to_string(i)});
  auto replies = c->Pipeline(cmds);
  ASSERT_TRUE(replies.ok());
  ASSERT_EQ(replies->size(), 1000u);
  EXPECT_EQ((*replies)[999].str, "999");
}

// Commands encoded with RespWriter go out as one write; each reply comes back
// in order, and an error reply is a reply, not a failed call.
TEST_F(RespServerTest, PipelineEncodedReadsOneReplyPerCommand) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  std::string batch;
  RespWriter w(&batch, 2);
  const std::string arg(40, 'x');  // past the short-string buffer
  for (int i = 0; i < 300; ++i) w.BulkArray({"ECHO", arg + std::to_string(i)});
  w.BulkArray({"NOSUCHCOMMAND"});
  w.BulkArray({"PING"});
  auto replies = c->PipelineEncoded(batch, 302);
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  ASSERT_EQ(replies->size(), 302u);
  for (int i = 0; i < 300; ++i) ASSERT_EQ((*replies)[i].str, arg + std::to_string(i));
  EXPECT_TRUE((*replies)[300].is_error());
  EXPECT_EQ((*replies)[301], RespValue::SimpleString("PONG"));
}

// A pipelined request's prefetch hook runs before the request ahead of it
// executes, never for a request of the wrong arity, and never for the first
// request of the write (nothing runs ahead of it).
TEST_F(RespServerTest, PrefetchHookRunsForTheNextPipelinedRequest) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  std::string batch;
  for (int i = 0; i < 100; ++i) batch += EncodeCommand({"PEEK", std::to_string(i)});
  batch += EncodeCommand({"PEEK", "x", "extra"});  // wrong arity: an error, no hook
  batch += EncodeCommand({"PEEK", "last"});
  ASSERT_TRUE(c->SendRaw(batch).ok());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(c->ReadReply()->str, "OK");
  EXPECT_TRUE(c->ReadReply()->is_error());
  EXPECT_EQ(c->ReadReply()->str, "OK");
  std::lock_guard<std::mutex> lock(events_mu_);
  std::map<std::string, size_t> prefetched_at, run_at;
  for (size_t i = 0; i < events_.size(); ++i) {
    const std::string& e = events_[i];
    if (e.rfind("prefetch ", 0) == 0) prefetched_at[e.substr(9)] = i;
    if (e.rfind("run ", 0) == 0) run_at[e.substr(4)] = i;
  }
  EXPECT_EQ(run_at.size(), 101u);
  EXPECT_EQ(prefetched_at.count("x"), 0u);
  EXPECT_EQ(prefetched_at.count("0"), 0u);
  EXPECT_GT(prefetched_at.size(), 50u);  // one write: mostly parsed together
  for (const auto& [arg, at] : prefetched_at) {
    ASSERT_TRUE(run_at.count(arg)) << arg;
    EXPECT_LT(at, run_at[arg]) << arg;
    if (arg == "last") continue;  // the request ahead of it (x) fails its arity
    std::string ahead = std::to_string(std::stoi(arg) - 1);
    EXPECT_LT(at, run_at[ahead]) << arg;
  }
}

TEST_F(RespServerTest, NoPrefetchHookBeforeAuth) {
  RespServerOptions options = TestOptions();
  options.auth_token = "s3cret";
  StartServer(options);
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  std::string batch;
  for (int i = 0; i < 10; ++i) batch += EncodeCommand({"PEEK", std::to_string(i)});
  batch += EncodeCommand({"AUTH", "s3cret"});
  batch += EncodeCommand({"PEEK", "after"});
  batch += EncodeCommand({"PEEK", "after2"});
  ASSERT_TRUE(c->SendRaw(batch).ok());
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(c->ReadReply()->str, "NOAUTH Authentication required.");
  EXPECT_EQ(c->ReadReply()->str, "OK");
  EXPECT_EQ(c->ReadReply()->str, "OK");
  EXPECT_EQ(c->ReadReply()->str, "OK");
  std::lock_guard<std::mutex> lock(events_mu_);
  // "after" was parsed before AUTH ran: no hook for it.
  EXPECT_EQ(events_,
            (std::vector<std::string>{"prefetch after2", "run after", "run after2"}));
}

// Parsing ahead finds the malformed frame early; the requests before it
// still run and get their replies first.
TEST_F(RespServerTest, RequestsBeforeAMalformedFrameGetTheirReplies) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->SendRaw(EncodeCommand({"ECHO", "a"}) + EncodeCommand({"ECHO", "b"}) +
                         "*1\r\n$-5\r\n")
                  .ok());
  EXPECT_EQ(c->ReadReply()->str, "a");
  EXPECT_EQ(c->ReadReply()->str, "b");
  Result<RespValue> error = c->ReadReply();
  ASSERT_TRUE(error.ok()) << error.status().ToString();
  EXPECT_EQ(error->str.rfind("ERR Protocol error: ", 0), 0u) << error->str;
  EXPECT_FALSE(c->ReadReply().ok());
}

TEST_F(RespServerTest, TinyReplyCapFlushesInBatchesAndKeepsOrder) {
  RespServerOptions options = TestOptions();
  options.max_pending_replies = 64;  // forces a write every few replies
  StartServer(options);
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 2000; ++i)
    cmds.push_back({"ECHO", std::string(i % 50, 'x') + std::to_string(i)});
  auto replies = c->Pipeline(cmds);
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  ASSERT_EQ(replies->size(), cmds.size());
  for (size_t i = 0; i < cmds.size(); ++i) ASSERT_EQ((*replies)[i].str, cmds[i][1]);
}

TEST_F(RespServerTest, DeferredRepliesKeepOrder) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  auto replies = c->Pipeline(
      {{"SLOWECHO", "a"}, {"ECHO", "b"}, {"SLOWECHO", "c"}, {"SLOWECHO", "d"}, {"PING"}});
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  std::vector<std::string> got;
  for (const RespValue& v : *replies) got.push_back(v.str);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b", "c", "d", "PONG"}));
}

TEST_F(RespServerTest, LongCommandsStepInPipelineOrder) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  auto replies = c->Pipeline({{"ECHO", "a"}, {"STEPS", "3"}, {"ECHO", "b"}, {"STEPS", "2"},
                              {"STEPS", "2", "throw"}, {"PING"}});
  ASSERT_TRUE(replies.ok()) << replies.status().ToString();
  ASSERT_EQ(replies->size(), 6u);
  EXPECT_EQ((*replies)[0].str, "a");
  EXPECT_EQ((*replies)[1].integer, 3);
  EXPECT_EQ((*replies)[2].str, "b");
  EXPECT_EQ((*replies)[3].integer, 2);
  EXPECT_TRUE((*replies)[4].is_error());
  EXPECT_NE((*replies)[4].str.find("step failed"), std::string::npos) << (*replies)[4].str;
  EXPECT_EQ((*replies)[5].str, "PONG");
  std::lock_guard<std::mutex> lock(events_mu_);
  EXPECT_EQ(events_, (std::vector<std::string>{"step 3 3", "step 3 2", "step 3 1", "step 2 2",
                                               "step 2 1", "step 2 2", "step 2 1"}));
}

// One io thread serves both connections: SETFLAG can only run between
// WAITFLAG's steps.
TEST_F(RespServerTest, OtherConnectionsOfTheThreadRunBetweenSteps) {
  RespServerOptions options = TestOptions();
  options.threads = 1;
  StartServer(options);
  auto waiting = Connect(*server_);
  auto other = Connect(*server_);
  ASSERT_TRUE(waiting && other);
  const std::string wire = EncodeCommand({"WAITFLAG"}) + EncodeCommand({"ECHO", "after"});
  ASSERT_TRUE(waiting->SendRaw(wire).ok());
  EXPECT_EQ(Call(*other, {"PING"}).str, "PONG");
  EXPECT_EQ(Call(*other, {"SETFLAG"}).str, "OK");
  EXPECT_EQ(waiting->ReadReply()->str, "seen");
  EXPECT_EQ(waiting->ReadReply()->str, "after");
}

// Bytes the process's allocator has handed out and not had back.
size_t HeapInUse() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

// An answered long request leaves nothing on a connection that then idles
// (after a second, resp_server_session.cc): each idle connection here held
// its request's argument vector (8 MB) and its reply's buffer before.
TEST_F(RespServerTest, IdleConnectionsKeepNothingOfLongRequests) {
  StartServer();
  constexpr size_t kArgs = 200000;
  std::vector<std::string> big{"ONES"};
  for (size_t i = 0; i < kArgs; ++i) big.push_back("argument-number-" + std::to_string(i));
  std::vector<std::unique_ptr<RespClient>> clients;
  const size_t before = HeapInUse();
  for (int i = 0; i < 4; ++i) {
    clients.push_back(Connect(*server_));
    ASSERT_TRUE(clients.back());
    auto reply = clients.back()->Command(big);
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    ASSERT_EQ(reply->elements.size(), kArgs);
    // Answered only after the server is done with the long request.
    EXPECT_EQ(Call(*clients.back(), {"PING"}).str, "PONG");
  }
  size_t after = 0;
  EXPECT_TRUE(Eventually([&] {
    after = HeapInUse();
    return after < before + (8u << 20);
  })) << "grew " << (after - before) / 1024 << " KiB";
}

TEST_F(RespServerTest, HeldReplyBlocksOnlyItsConnection) {
  StartServer();
  auto held = Connect(*server_);
  auto other = Connect(*server_);
  ASSERT_TRUE(held && other);
  ASSERT_TRUE(
      held->SendRaw(EncodeCommand({"HOLD"}) + EncodeCommand({"ECHO", "after"})).ok());
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> lock(held_mu_);
    return !held_.empty();
  }));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Call(*other, {"PING"}).str, "PONG");
  Release();
  EXPECT_EQ(held->ReadReply()->str, "released");
  EXPECT_EQ(held->ReadReply()->str, "after");
}

TEST_F(RespServerTest, DroppedDeferredReplyBecomesError) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  RespValue v = Call(*c, {"DROP"});
  EXPECT_TRUE(v.is_error());
  EXPECT_EQ(Call(*c, {"PING"}).str, "PONG");
}

TEST_F(RespServerTest, MalformedFramesCloseOnlyThatConnection) {
  StartServer();
  auto healthy = Connect(*server_);
  ASSERT_TRUE(healthy);
  const std::string cases[] = {
      "*1\r\n:1\r\n",                                    // not a bulk string
      "*1\r\n$-5\r\n",                                   // negative length
      "*1\r\n$4611686018427387904\r\n",                  // 2^62
      "*1\r\n$99999999999999999999\r\n",                 // overflows int64
      "*2000000\r\n",                                    // over max_array_len
      "*1\r\n$4\r\nPINGxx",                              // missing CRLF after bulk
      "*1x\r\n",                                         // non-digit length
      std::string("*1\r\n\x00\xff\x10garbage\r\n", 16),  // binary garbage in a frame
      std::string(70 * 1024, '\x01'),                    // inline line over 64 KiB
      "PING \"unbalanced\r\n",
  };
  for (const std::string& bad : cases) {
    SCOPED_TRACE(testing::PrintToString(bad.substr(0, 40)));
    auto c = Connect(*server_);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->SendRaw(bad).ok());
    Result<RespValue> reply = c->ReadReply();
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    EXPECT_EQ(reply->str.rfind("ERR Protocol error: ", 0), 0u) << reply->str;
    Result<RespValue> after = c->ReadReply();
    EXPECT_FALSE(after.ok()) << "connection left open after " << reply->str;
    EXPECT_EQ(Call(*healthy, {"PING"}).str, "PONG");
  }
  EXPECT_GE(server_->stats().protocol_errors, std::size(cases));
}

TEST_F(RespServerTest, TruncatedFramesAndHugeHeadersDoNotDisturbOthers) {
  StartServer();
  auto healthy = Connect(*server_);
  ASSERT_TRUE(healthy);
  std::vector<std::unique_ptr<RespClient>> stalled;
  for (const std::string& partial :
       {std::string("*1000000\r\n"), std::string("*2\r\n$4\r\nECHO\r\n$3\r\nab"),
        std::string("*3\r\n$3\r\nSET"), std::string("$60000000\r\n")}) {
    stalled.push_back(Connect(*server_));
    ASSERT_TRUE(stalled.back());
    ASSERT_TRUE(stalled.back()->SendRaw(partial).ok());
  }
  for (int i = 0; i < 20; ++i) EXPECT_EQ(Call(*healthy, {"ECHO", "x"}).str, "x");
  stalled[1]->SendRaw("c\r\n").IgnoreError();  // completes the ECHO
  EXPECT_EQ(stalled[1]->ReadReply()->str, "abc");
  stalled.clear();  // disconnect mid-frame
  EXPECT_EQ(Call(*healthy, {"PING"}).str, "PONG");
  // Binary garbage ending in a newline is an (unknown) inline command.
  auto g = Connect(*server_);
  ASSERT_TRUE(g);
  ASSERT_TRUE(g->SendRaw(std::string("\x01\xfe\x7f zz\n", 7)).ok());
  EXPECT_EQ(g->ReadReply()->str.rfind("ERR unknown command", 0), 0u);
}

TEST_F(RespServerTest, QuitClosesAfterReply) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->SendRaw(EncodeCommand({"QUIT"}) + EncodeCommand({"PING"})).ok());
  EXPECT_EQ(c->ReadReply()->str, "OK");
  EXPECT_FALSE(c->ReadReply().ok());
}

TEST_F(RespServerTest, IdleTimeoutClosesConnection) {
  RespServerOptions options = TestOptions();
  options.idle_timeout = 200ms;
  StartServer(options);
  RespClientOptions patient;
  patient.timeout = 30s;
  auto c = Connect(*server_, patient);
  ASSERT_TRUE(c);
  Result<RespValue> reply = c->ReadReply();  // nothing sent: waits for close
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), Status::Code::kIoError) << reply.status().ToString();
}

TEST_F(RespServerTest, MaxConnectionsRejectsExtraClients) {
  RespServerOptions options = TestOptions();
  options.max_connections = 2;
  StartServer(options);
  auto a = Connect(*server_);
  auto b = Connect(*server_);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Eventually([&] { return server_->stats().connections_current == 2; }));
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  Result<RespValue> reply = c->ReadReply();
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(*reply, RespValue::Error("ERR max number of clients reached"));
  EXPECT_EQ(Call(*a, {"PING"}).str, "PONG");
  EXPECT_EQ(server_->stats().connections_rejected, 1u);
}

TEST_F(RespServerTest, TwoThousandIdleConnections) {
  constexpr int kIdle = 2000;
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_cur < 2 * kIdle + 256) {
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, 2 * kIdle + 256);
    setrlimit(RLIMIT_NOFILE, &lim);
    getrlimit(RLIMIT_NOFILE, &lim);
  }
  if (lim.rlim_cur < 2 * kIdle + 256) GTEST_SKIP() << "RLIMIT_NOFILE too low";
  StartServer();
  boost::asio::io_context ioc;
  std::vector<boost::asio::ip::tcp::socket> idle;
  boost::asio::ip::tcp::endpoint ep(boost::asio::ip::make_address("127.0.0.1"),
                                    server_->port());
  for (int i = 0; i < kIdle; ++i) {
    idle.emplace_back(ioc);
    boost::system::error_code ec;
    idle.back().connect(ep, ec);
    ASSERT_FALSE(ec) << i << ": " << ec.message();
  }
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(Call(*c, {"ECHO", std::to_string(i)}).str, std::to_string(i));
  EXPECT_TRUE(
      Eventually([&] { return server_->stats().connections_current == kIdle + 1; }));
}

TEST_F(RespServerTest, InfoUsesProvider) {
  server_ = std::make_unique<RespServer>(TestOptions());
  std::vector<std::string> asked;
  std::mutex mu;
  server_->SetInfoProvider([&](std::string_view section) {
    std::lock_guard<std::mutex> lock(mu);
    asked.emplace_back(section);
    return section.empty() || section == "frontier" ? "# Frontier\r\nqueued_urls:5\r\n"
                                                    : "";
  });
  ASSERT_TRUE(server_->Start().ok());
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  std::string all = Call(*c, {"INFO"}).str;
  EXPECT_NE(all.find("# Server\r\n"), std::string::npos);
  EXPECT_NE(all.find("connected_clients:1\r\n"), std::string::npos);
  EXPECT_NE(all.find("# Frontier\r\nqueued_urls:5\r\n"), std::string::npos);
  std::string only = Call(*c, {"INFO", "Frontier"}).str;
  EXPECT_EQ(only, "# Frontier\r\nqueued_urls:5\r\n");
  std::string stats = Call(*c, {"INFO", "stats"}).str;
  EXPECT_NE(stats.find("total_commands_processed:"), std::string::npos);
  EXPECT_EQ(stats.find("# Frontier"), std::string::npos);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(asked, (std::vector<std::string>{"", "frontier", "stats"}));
}

TEST_F(RespServerTest, CommandIntrospection) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  RespValue all = Call(*c, {"COMMAND"});
  ASSERT_EQ(all.type, RespType::kArray);
  ASSERT_EQ(all.elements.size(), server_->commands().size());
  bool saw_ping = false;
  for (const RespValue& entry : all.elements) {
    ASSERT_EQ(entry.elements.size(), 10u);
    if (entry.elements[0].str == "ping") {
      saw_ping = true;
      EXPECT_EQ(entry.elements[1].integer, -1);
    }
  }
  EXPECT_TRUE(saw_ping);
  RespValue docs = Call(*c, {"COMMAND", "DOCS", "echo", "nosuch"});
  ASSERT_EQ(docs.elements.size(), 2u);
  EXPECT_EQ(docs.elements[0].str, "echo");
  EXPECT_EQ(docs.elements[1].Find("summary")->str, "Returns the given string.");
  RespValue info = Call(*c, {"COMMAND", "INFO", "get", "echo"});
  ASSERT_EQ(info.elements.size(), 2u);
  EXPECT_TRUE(info.elements[0].is_null());
  EXPECT_EQ(info.elements[1].elements[1].integer, 2);
}

TEST_F(RespServerTest, StartValidatesListen) {
  struct Case {
    std::string listen;
    std::string token;
  } cases[] = {{"0.0.0.0:0", ""},
               {"nohost", ""},
               {"127.0.0.1:99999", ""},
               {"example.com:80", ""},
               {"[::]:0", ""}};
  for (const Case& tc : cases) {
    RespServerOptions options = TestOptions();
    options.listen = tc.listen;
    options.auth_token = tc.token;
    RespServer server(options);
    Status st = server.Start();
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << tc.listen;
  }
}

TEST_F(RespServerTest, StopClosesClients) {
  StartServer();
  auto c = Connect(*server_);
  ASSERT_TRUE(c);
  EXPECT_EQ(Call(*c, {"PING"}).str, "PONG");
  server_->Stop();
  EXPECT_FALSE(c->Command({"PING"}).ok());
  EXPECT_FALSE(RespClient::Connect("127.0.0.1", server_->port(), 2s).ok());
}

std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

TEST_F(RespServerTest, RedisCliWorks) {
  if (access("/usr/bin/redis-cli", X_OK) != 0) GTEST_SKIP() << "redis-cli not installed";
  StartServer();
  std::string base =
      "/usr/bin/redis-cli -h 127.0.0.1 -p " + std::to_string(server_->port());
  EXPECT_EQ(RunCommand(base + " PING 2>&1"), "PONG\n");
  std::string docs = RunCommand(base + " COMMAND DOCS 2>&1");
  EXPECT_NE(docs.find("ping"), std::string::npos) << docs;
  EXPECT_NE(docs.find("summary"), std::string::npos) << docs;
  // Interactive mode fetches COMMAND DOCS for its hints before running input.
  std::string interactive = RunCommand("echo 'echo hello' | " + base + " 2>&1");
  EXPECT_NE(interactive.find("hello"), std::string::npos) << interactive;
  EXPECT_EQ(RunCommand(base + " -3 HELLO 3 2>&1").find("crawlfront") != std::string::npos,
            true);
}

}  // namespace
}  // namespace crawlfront
