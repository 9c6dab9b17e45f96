// The Redis basics a client library or redis-cli/redis-benchmark expects:
// PING, ECHO, HELLO, AUTH, QUIT, SELECT, CLIENT, CONFIG GET, COMMAND, INFO.
// Replies and error texts follow Redis 7 so clients parse them unchanged.
#include <charconv>
#include <initializer_list>
#include <string>

#include "crawlfront/common/ascii.h"
#include "crawlfront/frontier/resp_server.h"

namespace crawlfront {
namespace {

constexpr std::string_view kServerVersion = "0.1.0";

// Compares in time independent of where the first difference is.
bool TokenMatches(std::string_view given, std::string_view expected) {
  if (expected.empty()) return false;
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^ expected[i % expected.size()]);
  }
  return diff == 0;
}

struct Subcommand {
  std::string_view name, help;  // name lower-case, as Redis prints it in errors
};

// Redis 7's "CMD HELP" reply: a line per subcommand and one of help for it.
void SubcommandHelp(CallContext& ctx, std::initializer_list<Subcommand> known) {
  const std::string command = AsciiUpper(ctx.args()[0]);
  ctx.reply().ArrayHeader(2 * known.size() + 3);
  ctx.reply().SimpleString(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  for (const Subcommand& k : known) {
    ctx.reply().SimpleString(AsciiUpper(k.name));
    ctx.reply().SimpleString("    " + std::string(k.help));
  }
  ctx.reply().SimpleString("HELP");
  ctx.reply().SimpleString("    Print this help.");
}

// Redis 7 texts for a bad subcommand: unknown name, or known with a wrong
// argument count ("wrong number of arguments for 'client|setname' command").
// "CMD HELP" gets the help.
void SubcommandError(CallContext& ctx, std::initializer_list<Subcommand> known) {
  std::string command = AsciiLower(ctx.args()[0]);
  std::string sub = AsciiLower(ctx.args()[1]);
  if (sub == "help" && ctx.args().size() == 2) return SubcommandHelp(ctx, known);
  for (const Subcommand& k : known) {
    if (k.name == sub || sub == "help") {
      ctx.reply().Error("ERR wrong number of arguments for '" + command + "|" + sub +
                        "' command");
      return;
    }
  }
  ctx.reply().Error("ERR unknown subcommand '" + ctx.args()[1].substr(0, 128) +
                    "'. Try " + AsciiUpper(command) + " HELP.");
}

void WrongPass(RespWriter& out) {
  out.Error("WRONGPASS invalid username-password pair or user is disabled.");
}

// Checks AUTH credentials; writes the error and returns false on failure.
bool CheckCredentials(CallContext& ctx, std::string_view user, std::string_view token) {
  const std::string& expected = ctx.server().options().auth_token;
  if (expected.empty()) {
    ctx.reply().Error(
        "ERR AUTH <password> called without any password configured for the default "
        "user. "
        "Are you sure your configuration is correct?");
    return false;
  }
  if (user != "default" || !TokenMatches(token, expected)) {
    WrongPass(ctx.reply());
    return false;
  }
  ctx.client().authenticated = true;
  return true;
}

void Ping(CallContext& ctx) {
  if (ctx.args().size() > 2) {
    ctx.reply().Error("ERR wrong number of arguments for 'ping' command");
  } else if (ctx.args().size() == 2) {
    ctx.reply().Bulk(ctx.args()[1]);
  } else {
    ctx.reply().SimpleString("PONG");
  }
}

void Auth(CallContext& ctx) {
  auto args = ctx.args();
  if (args.size() > 3) {
    ctx.reply().Error("ERR syntax error");
    return;
  }
  std::string_view user = args.size() == 3 ? std::string_view(args[1]) : "default";
  if (CheckCredentials(ctx, user, args.back())) ctx.reply().SimpleString("OK");
}

void WriteHelloMap(CallContext& ctx) {
  RespWriter& out = ctx.reply();
  out.MapHeader(7);
  out.Bulk("server"), out.Bulk("crawlfront");
  out.Bulk("version"), out.Bulk(kServerVersion);
  out.Bulk("proto"), out.Integer(ctx.protocol());
  out.Bulk("id"), out.Integer(static_cast<int64_t>(ctx.client().id));
  out.Bulk("mode"), out.Bulk("standalone");
  out.Bulk("role"), out.Bulk("master");
  out.Bulk("modules"), out.ArrayHeader(0);
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
void Hello(CallContext& ctx) {
  auto args = ctx.args();
  int version = ctx.protocol();
  if (args.size() >= 2) {
    auto [end, ec] =
        std::from_chars(args[1].data(), args[1].data() + args[1].size(), version);
    if (ec != std::errc() || end != args[1].data() + args[1].size()) {
      ctx.reply().Error("ERR Protocol version is not an integer or out of range");
      return;
    }
    if (version != 2 && version != 3) {
      ctx.reply().Error("NOPROTO unsupported protocol version");
      return;
    }
  }
  std::string new_name;
  bool set_name = false;
  for (size_t i = 2; i < args.size(); ++i) {
    bool more = i + 1 < args.size();
    if (EqualsIgnoreCase(args[i], "AUTH") && i + 2 < args.size()) {
      if (!CheckCredentials(ctx, args[i + 1], args[i + 2])) return;
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "SETNAME") && more) {
      new_name = args[++i];
      set_name = true;
    } else {
      ctx.reply().Error("ERR Syntax error in HELLO option '" + args[i] + "'");
      return;
    }
  }
  if (!ctx.client().authenticated) {
    ctx.reply().Error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise "
        "the "
        "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client "
        "and "
        "select the RESP protocol version at the same time");
    return;
  }
  if (set_name) ctx.client().name = new_name;
  ctx.SetProtocol(version);
  WriteHelloMap(ctx);
}

void Quit(CallContext& ctx) {
  ctx.reply().SimpleString("OK");
  ctx.CloseAfterReply();
}

void Select(CallContext& ctx) {
  const std::string& index = ctx.args()[1];
  int64_t db = 0;
  auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), db);
  if (ec != std::errc() || end != index.data() + index.size()) {
    ctx.reply().Error("ERR value is not an integer or out of range");
  } else if (db != 0) {
    ctx.reply().Error("ERR DB index is out of range");
  } else {
    ctx.reply().SimpleString("OK");
  }
}

bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;  // Redis: no spaces or control bytes
  }
  return true;
}

void Client(CallContext& ctx) {
  auto args = ctx.args();
  std::string sub = AsciiLower(args[1]);
  if (sub == "setname" && args.size() == 3) {
    if (!ValidClientName(args[2])) {
      ctx.reply().Error(
          "ERR Client names cannot contain spaces, newlines or special characters.");
      return;
    }
    ctx.client().name = args[2];
    ctx.reply().SimpleString("OK");
  } else if (sub == "getname" && args.size() == 2) {
    if (ctx.client().name.empty()) {
      ctx.reply().Null();
    } else {
      ctx.reply().Bulk(ctx.client().name);
    }
  } else if (sub == "id" && args.size() == 2) {
    ctx.reply().Integer(static_cast<int64_t>(ctx.client().id));
  } else if (sub == "setinfo" && args.size() == 4) {
    ctx.reply().SimpleString("OK");  // library name/version: accepted, unused
  } else {
    SubcommandError(ctx, {{"setname", "<name>: name this connection."},
                          {"getname", "Return the name of this connection."},
                          {"id", "Return the id of this connection."},
                          {"setinfo", "<attr> <value>: accepted and ignored (client libraries)."}});
  }
}

// CONFIG GET: the frontier has no Redis config; benchmarks probe "save" and
// "appendonly", and an empty result tells them nothing is set.
void Config(CallContext& ctx) {
  auto args = ctx.args();
  if (EqualsIgnoreCase(args[1], "GET") && args.size() >= 3) {
    ctx.reply().MapHeader(0);
  } else {
    SubcommandError(ctx, {{"get", "<pattern> ...: no Redis parameters here, so always empty; "
                                  "the frontier's settings are in its config file."}});
  }
}

void Info(CallContext& ctx) {
  std::string section = ctx.args().size() >= 2 ? AsciiLower(ctx.args()[1]) : "";
  ctx.reply().Bulk(ctx.server().RenderInfo(section));
}

}  // namespace

// resp_server_command.cc
void RegisterCommandIntrospection(RespServer& server);

void RespServer::RegisterBuiltins() {
  auto add = [this](const char* name, int arity, uint32_t flags, const char* summary,
                    void (*handler)(CallContext&)) {
    CommandSpec spec;
    spec.arity = arity;
    spec.flags = flags;
    spec.summary = summary;
    spec.group = "connection";
    spec.handler = handler;
    Register(name, std::move(spec));
  };
  add("PING", -1, kCmdFast, "Returns the server's liveliness response.", Ping);
  add("ECHO", 2, kCmdFast, "Returns the given string.",
      [](CallContext& ctx) { ctx.reply().Bulk(ctx.args()[1]); });
  add("AUTH", -2, kCmdNoAuth | kCmdFast, "Authenticates the connection.", Auth);
  add("HELLO", -1, kCmdNoAuth | kCmdFast, "Handshakes with the server.", Hello);
  add("QUIT", -1, kCmdNoAuth | kCmdFast, "Closes the connection.", Quit);
  add("SELECT", 2, kCmdFast, "Changes the selected database (only 0 exists).", Select);
  add("CLIENT", -2, 0, "Connection name and id: SETNAME, GETNAME, ID.", Client);
  add("CONFIG", -2, kCmdAdmin, "CONFIG GET returns no parameters.", Config);
  add("INFO", -1, 0, "Returns information and statistics about the server.", Info);
  RegisterCommandIntrospection(*this);
}

}  // namespace crawlfront
