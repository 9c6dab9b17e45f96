// COMMAND [COUNT | LIST | INFO name... | DOCS [name...]] and INFO rendering.
// redis-cli 7 calls COMMAND DOCS at start-up for its hints, so the shapes
// follow Redis 7 (COMMAND entries have the 10 fields of Redis 7).
#include <unistd.h>

#include <string>

#include "crawlfront/common/ascii.h"
#include "crawlfront/frontier/resp_server.h"

namespace crawlfront {
namespace {

void WriteFlags(uint32_t flags, RespWriter& out) {
  static constexpr std::pair<uint32_t, const char*> kNames[] = {
      {kCmdNoAuth, "no_auth"}, {kCmdReadonly, "readonly"}, {kCmdWrite, "write"},
      {kCmdFast, "fast"},      {kCmdBlocking, "blocking"}, {kCmdAdmin, "admin"},
  };
  size_t n = 0;
  for (const auto& [bit, name] : kNames) n += (flags & bit) ? 1 : 0;
  out.SetHeader(n);
  for (const auto& [bit, name] : kNames) {
    if (flags & bit) out.SimpleString(name);
  }
}

// One Redis 7 COMMAND entry: name, arity, flags, first key, last key, step,
// ACL categories, tips, key specs, subcommands. Our commands declare no keys.
void WriteCommandInfo(const std::string& name, const CommandSpec& spec, RespWriter& out) {
  out.ArrayHeader(10);
  out.Bulk(AsciiLower(name));
  out.Integer(spec.arity);
  WriteFlags(spec.flags, out);
  out.Integer(0);
  out.Integer(0);
  out.Integer(0);
  out.SetHeader(0);
  out.SetHeader(0);
  out.ArrayHeader(0);
  out.ArrayHeader(0);
}

void WriteCommandDoc(const std::string& name, const CommandSpec& spec, RespWriter& out) {
  out.Bulk(AsciiLower(name));
  out.MapHeader(3);
  out.Bulk("summary");
  out.Bulk(spec.summary);
  out.Bulk("since");
  out.Bulk(spec.since);
  out.Bulk("group");
  out.Bulk(spec.group);
}

void CommandDocs(CallContext& ctx) {
  const auto& table = ctx.server().commands();
  auto args = ctx.args();
  RespWriter& out = ctx.reply();
  if (args.size() == 2) {
    out.MapHeader(table.size());
    for (const auto& [name, spec] : table) WriteCommandDoc(name, spec, out);
    return;
  }
  std::vector<decltype(table.begin())> found;
  for (size_t i = 2; i < args.size(); ++i) {
    auto it = table.find(AsciiUpper(args[i]));
    if (it != table.end()) found.push_back(it);
  }
  out.MapHeader(found.size());
  for (auto it : found) WriteCommandDoc(it->first, it->second, out);
}

void Command(CallContext& ctx) {
  const auto& table = ctx.server().commands();
  auto args = ctx.args();
  RespWriter& out = ctx.reply();
  std::string sub = args.size() >= 2 ? AsciiUpper(args[1]) : "";
  if (args.size() == 1) {
    out.ArrayHeader(table.size());
    for (const auto& [name, spec] : table) WriteCommandInfo(name, spec, out);
  } else if (sub == "COUNT" && args.size() == 2) {
    out.Integer(static_cast<int64_t>(table.size()));
  } else if (sub == "LIST" && args.size() == 2) {
    out.ArrayHeader(table.size());
    for (const auto& entry : table) out.Bulk(AsciiLower(entry.first));
  } else if (sub == "INFO") {
    out.ArrayHeader(args.size() - 2);
    for (size_t i = 2; i < args.size(); ++i) {
      auto it = table.find(AsciiUpper(args[i]));
      if (it == table.end()) {
        out.NullArray();
      } else {
        WriteCommandInfo(it->first, it->second, out);
      }
    }
  } else if (sub == "DOCS") {
    CommandDocs(ctx);
  } else if (sub == "HELP" && args.size() == 2) {
    static const char* kHelp[] = {
        "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "(no subcommand)", "    Return details about all commands.",
        "COUNT", "    Return the total number of commands.",
        "LIST", "    Return the names of all commands.",
        "INFO [<command-name> ...]", "    Return details about the given commands.",
        "DOCS [<command-name> ...]", "    Return documentation about the given commands.",
        "HELP", "    Print this help."};
    out.ArrayHeader(std::size(kHelp));
    for (const char* line : kHelp) out.SimpleString(line);
  } else if (sub == "COUNT" || sub == "LIST" || sub == "HELP") {
    out.Error("ERR wrong number of arguments for 'command|" + AsciiLower(sub) + "' command");
  } else {
    out.Error("ERR unknown subcommand '" + args[1].substr(0, 128) +
              "'. Try COMMAND HELP.");
  }
}

bool SectionWanted(std::string_view wanted, std::string_view section) {
  return wanted.empty() || wanted == "all" || wanted == "default" ||
         wanted == "everything" || wanted == section;
}

}  // namespace

void RegisterCommandIntrospection(RespServer& server) {
  CommandSpec spec;
  spec.arity = -1;
  spec.summary = "Returns details about commands: COUNT, LIST, INFO, DOCS.";
  spec.group = "server";
  spec.handler = Command;
  server.Register("COMMAND", std::move(spec));
}

std::string RespServer::RenderInfo(std::string_view section) const {
  std::string out;
  RespServerStats s = stats();
  auto line = [&out](std::string_view key, auto value) {
    out.append(key).append(":").append(std::to_string(value)).append("\r\n");
  };
  if (SectionWanted(section, "server")) {
    auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::steady_clock::now() - started_at_);
    out += "# Server\r\ncrawlfront_version:0.1.0\r\nredis_mode:standalone\r\n";
    line("process_id", static_cast<int64_t>(getpid()));
    line("tcp_port", port());
    line("uptime_in_seconds", static_cast<int64_t>(uptime.count()));
    out += "\r\n";
  }
  if (SectionWanted(section, "clients")) {
    out += "# Clients\r\n";
    line("connected_clients", s.connections_current);
    line("maxclients", options_.max_connections);
    out += "\r\n";
  }
  if (SectionWanted(section, "stats")) {
    out += "# Stats\r\n";
    line("total_connections_received", s.connections_total);
    line("rejected_connections", s.connections_rejected);
    line("total_commands_processed", s.commands_processed);
    line("total_error_replies_protocol", s.protocol_errors);
    out += "\r\n";
  }
  if (info_provider_) {
    bool all = section.empty() || section == "all" || section == "default" ||
               section == "everything";
    out += info_provider_(all ? std::string_view() : section);
  }
  return out;
}

}  // namespace crawlfront
