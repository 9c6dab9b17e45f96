#include "crawlfront/simweb/oracle.h"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <deque>
#include <map>
#include <set>
#include <unordered_set>

#include "crawlfront/simweb/links.h"
#include "crawlfront/simweb/robots_model.h"

namespace crawlfront::simweb {
namespace {

constexpr std::string_view kHttp = "http://";

struct SplitUrl {
  std::string host;
  std::string path;  // path and query
};

// REQUIRES: InScope(url).
SplitUrl Split(std::string_view url) {
  std::string_view rest = url.substr(kHttp.size());
  size_t slash = rest.find('/');
  return SplitUrl{std::string(rest.substr(0, slash)), std::string(rest.substr(slash))};
}

// Breadth-first walk state. Owns nothing but strings; one walk per Expect().
class Walk {
 public:
  Walk(const SimWeb& web, const ExpectOptions& options) : web_(web), options_(options) {}

  void Seed(const std::string& url) {
    if (seen_.insert(url).second) queue_.push_back({url, 0});
  }

  // Visits queued URLs in BFS order; bounded by the finite set of URLs the
  // model can produce within max_depth (the trap is never entered).
  void Run() {
    while (!queue_.empty()) {
      auto [url, depth] = queue_.front();
      queue_.pop_front();
      Visit(url, depth);
    }
  }

  Expectation Finish() {
    Expectation out;
    for (auto& [url, status] : fetched_) out.fetches.push_back({url, status});
    out.trap_prefixes.assign(traps_.begin(), traps_.end());
    return out;
  }

 private:
  void Visit(const std::string& url, int depth) {
    SplitUrl split = Split(url);
    std::optional<uint32_t> host = HostIndex(web_.options(), split.host);
    if (split.path.rfind(kTrapPathPrefix, 0) == 0) {
      traps_.insert("http://" + split.host + std::string(kTrapPathPrefix));
      return;
    }
    if (options_.respect_robots && !RobotsAllow(host, split)) return;
    if (!host) {
      fetched_[url] = 404;  // in scope but not one of the web's hosts
      return;
    }
    Resource resource = Route(web_.options(), *host, split.path);
    int status = web_.StatusOf(resource);
    fetched_[url] = status;
    if (resource.kind == Kind::kRedirect) {
      Discover(RedirectTargetOf(web_.options(), resource), depth + 1);
      return;
    }
    if (status != 200) return;
    PageLinks links = LinksOf(web_.options(), resource);
    if (links.meta_nofollow || links.header_nofollow) return;
    for (const Link& link : links.links) {
      if (link.Extractable() && !link.target.empty()) Discover(link.target, depth + 1);
    }
  }

  // Fetches the host's robots.txt on first use (listed with its status).
  bool RobotsAllow(std::optional<uint32_t> host, const SplitUrl& split) {
    std::string robots_url = "http://" + split.host + "/robots.txt";
    if (!host) {
      fetched_.emplace(robots_url, 404);
      return true;
    }
    RobotsFile file = RobotsOf(web_.options(), *host);
    fetched_.emplace(robots_url, file.status);
    return RobotsAllows(file, options_.user_agent, split.path);
  }

  void Discover(const std::string& url, int depth) {
    if (depth > options_.max_depth || !InScope(url)) return;
    if (seen_.insert(url).second) queue_.push_back({url, depth});
  }

  const SimWeb& web_;
  const ExpectOptions& options_;
  std::deque<std::pair<std::string, int>> queue_;
  std::unordered_set<std::string> seen_;
  std::map<std::string, int> fetched_;  // sorted output
  std::set<std::string> traps_;
};

}  // namespace

Result<std::string> CanonicalUrl(std::string_view text) {
  auto parsed = boost::urls::parse_uri(text);
  if (!parsed) {
    return Status::InvalidArgument("not an absolute URL: " + std::string(text));
  }
  boost::urls::url url(*parsed);
  if (!url.has_authority() || url.host().empty()) {
    return Status::InvalidArgument("URL has no host: " + std::string(text));
  }
  url.normalize();
  // Rebuilt by hand: dropping the port and filling an empty path through
  // boost::url setters can leave "/./" behind.
  std::string scheme(url.scheme());
  std::string port(url.port());
  bool default_port = port.empty() || (scheme == "http" && port == "80") ||
                      (scheme == "https" && port == "443");
  std::string out = scheme + "://";
  if (url.has_userinfo()) out += std::string(url.encoded_userinfo()) + "@";
  out += std::string(url.encoded_host());
  if (!default_port) out += ":" + port;
  out += url.encoded_path().empty() ? "/" : std::string(url.encoded_path());
  if (url.has_query()) out += "?" + std::string(url.encoded_query());
  return out;
}

bool InScope(std::string_view url) {
  if (url.substr(0, kHttp.size()) != kHttp) return false;
  std::string_view rest = url.substr(kHttp.size());
  std::string_view host = rest.substr(0, rest.find('/'));
  return host.size() > kDomainSuffix.size() &&
         host.substr(host.size() - kDomainSuffix.size()) == kDomainSuffix &&
         host.find_first_of(":@") == std::string_view::npos && rest.size() > host.size();
}

Result<Expectation> Expect(const SimWeb& web, const ExpectOptions& options) {
  if (options.max_depth < 0 || options.max_depth > 1000) {
    return Status::InvalidArgument("max_depth must be in [0, 1000]");
  }
  Walk walk(web, options);
  std::vector<std::string> skipped;
  if (options.seeds.empty()) {
    for (uint32_t host = 0; host < web.options().hosts; ++host)
      walk.Seed(UrlOf(host, "/"));
  }
  for (const std::string& seed : options.seeds) {
    Result<std::string> url = CanonicalUrl(seed);
    if (url.ok() && InScope(*url)) {
      walk.Seed(*url);
    } else {
      skipped.push_back(seed);
    }
  }
  walk.Run();
  Expectation out = walk.Finish();
  out.skipped_seeds = std::move(skipped);
  return out;
}

}  // namespace crawlfront::simweb
