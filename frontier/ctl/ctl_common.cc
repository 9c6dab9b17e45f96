#include <charconv>
#include <cstdio>
#include <sstream>

#include "ctl.h"

namespace crawlfront::ctl {

Result<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& s) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon + 1 == s.size()) {
    return Status::InvalidArgument("expected HOST:PORT, got '" + s + "'");
  }
  std::string host = s.substr(0, colon);
  if (host.size() > 1 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned port = 0;
  auto [p, ec] = std::from_chars(s.data() + colon + 1, s.data() + s.size(), port);
  if (ec != std::errc() || p != s.data() + s.size() || port == 0 || port > 65535) {
    return Status::InvalidArgument("bad port in '" + s + "'");
  }
  return std::make_pair(host.empty() ? std::string("127.0.0.1") : host,
                        static_cast<uint16_t>(port));
}

Result<std::unique_ptr<RespClient>> Connect(const GlobalOptions& g, const std::string& address) {
  auto hp = SplitHostPort(address);
  if (!hp.ok()) return hp.status();
  RespClientOptions o;
  o.timeout = std::chrono::milliseconds(g.timeout_ms);
  o.auth_token = g.auth;
  auto c = RespClient::Connect(hp->first, hp->second, o);
  if (!c.ok()) return Status::Unavailable("frontier " + address + ": " + c.status().message());
  return c;
}

Result<std::vector<RespValue>> CommandAll(const GlobalOptions& g,
                                          const std::vector<std::string>& args) {
  std::vector<RespValue> out;
  for (const auto& f : g.frontiers) {
    auto c = Connect(g, f);
    if (!c.ok()) return c.status();
    auto r = (*c)->Command(args);
    if (!r.ok()) return Status::Unavailable("frontier " + f + ": " + r.status().message());
    if (r->is_error()) return Status::InvalidArgument("frontier " + f + ": " + r->str);
    out.push_back(std::move(r.value()));
  }
  return out;
}

void AddCrawl(const GlobalOptions& g, std::vector<std::string>* args) {
  if (!g.crawl.empty()) {
    args->push_back("CRAWL");
    args->push_back(g.crawl);
  }
}

std::vector<std::pair<std::string, std::string>> ParseInfo(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    out.emplace_back(line.substr(0, colon), line.substr(colon + 1));
  }
  return out;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "crawlctl: %s: %s\n", what.c_str(), s.message().c_str());
  return kExitFailed;
}

}  // namespace crawlfront::ctl
