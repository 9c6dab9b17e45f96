#include "crawlfront/simweb/links.h"

#include <array>

#include "crawlfront/simweb/rng.h"
#include "href_writer.h"

namespace crawlfront::simweb {
namespace {

// Salts keep the random streams of different purposes independent.
enum Salt : uint64_t {
  kSaltLinks = 11,
  kSaltBase = 12,
  kSaltMeta = 13,
  kSaltCharset = 14,
  kSaltRedirect = 15,
  kSaltBig = 16,
  kSaltSlow = 17,
};

struct External {
  std::string_view written;
  std::string_view target;  // "" when not an http(s) URL
};

// Links a crawler scoped to *.simweb.test must not follow.
constexpr std::array<External, 10> kExternals = {{
    {"http://example.com/", "http://example.com/"},
    {"http://example.com/page/1#top", "http://example.com/page/1"},
    {"https://www.example.org/a?b=1&amp;c=2", "https://www.example.org/a?b=1&c=2"},
    {"http://outside.invalid/p/1", "http://outside.invalid/p/1"},
    {"http://notsimweb.test/p/1", "http://notsimweb.test/p/1"},
    {"http://simweb.test/", "http://simweb.test/"},
    {"http://h1.simweb.test.evil.invalid/", "http://h1.simweb.test.evil.invalid/"},
    {"mailto:webmaster@h0.simweb.test", ""},
    {"javascript:void(0)", ""},
    {"ftp://h1.simweb.test/pub/", ""},
}};

std::string PagePath(uint64_t page) {
  return page == 0 ? "/" : "/p/" + std::to_string(page);
}

Target Local(uint32_t host, std::string path) { return Target{HostName(host), path}; }

// Collects the links of one page while writing each href relative to the
// page's effective base URL.
class LinkList {
 public:
  LinkList(BaseUrl base, uint64_t key) : base_(std::move(base)), rng_(key) {}

  Rng& rng() { return rng_; }

  void Add(const Target& target, Place place = Place::kAnchor, bool nofollow = false) {
    links_.push_back(Link{WriteHref(target, base_, rng_), target.Url(), place, nofollow});
  }
  void AddExternal() {
    const External& e = kExternals[rng_.Below(kExternals.size())];
    links_.push_back(Link{std::string(e.written), std::string(e.target)});
  }
  // Repeats an earlier link exactly: pages often link the same URL twice.
  void AddDuplicate() {
    if (!links_.empty()) links_.push_back(links_[rng_.Below(links_.size())]);
  }
  std::vector<Link> Take() { return std::move(links_); }

 private:
  BaseUrl base_;
  Rng rng_;
  std::vector<Link> links_;
};

Target RandomPage(const SimWebOptions& o, uint32_t host, Rng& rng) {
  if (o.hosts > 1 && rng.Percent(o.cross_host_percent)) {
    uint32_t other = static_cast<uint32_t>((host + 1 + rng.Below(o.hosts - 1)) % o.hosts);
    return Local(other, PagePath(rng.Below(o.pages)));
  }
  return Local(host, PagePath(rng.Below(o.pages)));
}

// A random in-scope target: mostly pages, sometimes the special resources.
Target RandomTarget(const SimWebOptions& o, uint32_t host, Rng& rng) {
  uint64_t roll = rng.Below(100);
  if (roll < 3 && o.redirects_per_host > 0) {
    return Local(host, "/r/" + std::to_string(rng.Below(o.redirects_per_host)));
  }
  if (roll < 5) return Local(host, "/gone/" + std::to_string(rng.Below(1000000)));
  if (roll < 7 && o.files_per_host > 0) {
    std::string file = std::to_string(rng.Below(o.files_per_host));
    return Local(host, "/files/" + file + (rng.Percent(50) ? ".pdf" : ".png"));
  }
  if (roll < 9) {
    Resource search{Kind::kSearch, host, rng.Below(kWordCount), rng.Below(kSearchMaxN)};
    return Local(host, PathOf(search));
  }
  if (roll < 11) {
    return Local(host, PathOf(Resource{Kind::kPrivate, host, rng.Below(kPrivatePages),
                                       rng.Below(2)}));
  }
  if (roll < 12 && o.slow_pages_per_host > 0) {
    return Local(host, "/slow/" + std::to_string(rng.Below(o.slow_pages_per_host)));
  }
  return RandomPage(o, host, rng);
}

Place RandomPlace(Rng& rng) {
  uint64_t roll = rng.Below(100);
  if (roll < 4) return Place::kArea;
  if (roll < 8) return Place::kIframe;
  return Place::kAnchor;
}

Target Hidden(uint32_t host, HiddenKind kind, uint64_t page) {
  return Local(host,
               PathOf(Resource{Kind::kHidden, host, page, static_cast<uint64_t>(kind)}));
}

// n random links (pages, specials, externals, duplicates).
void AddRandomLinks(const SimWebOptions& o, uint32_t host, LinkList& list) {
  Rng& rng = list.rng();
  uint64_t count = o.min_links + rng.Below(o.max_links - o.min_links + 1);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t roll = rng.Below(100);
    if (roll < 8) {
      list.AddDuplicate();
    } else if (roll < 13) {
      list.AddExternal();
    } else {
      Target target = RandomTarget(o, host, rng);
      list.Add(target, RandomPlace(rng));
    }
  }
}

// Links a crawler must not extract: in a comment, in a script, rel=nofollow.
void AddHiddenLinks(uint32_t host, uint64_t page, uint32_t percent, LinkList& list) {
  if (list.rng().Percent(percent)) {
    list.Add(Hidden(host, HiddenKind::kComment, page), Place::kComment);
  }
  if (list.rng().Percent(percent)) {
    list.Add(Hidden(host, HiddenKind::kScript, page), Place::kScript);
  }
  if (list.rng().Percent(percent)) {
    list.Add(Hidden(host, HiddenKind::kNofollow, page), Place::kAnchor, true);
  }
}

// Every home page carries one of each special resource, so even a tiny web
// exercises all of them.
void AddHomeExtras(const SimWebOptions& o, uint32_t host, LinkList& list) {
  if (o.redirects_per_host > 0) list.Add(Local(host, "/r/0"));
  list.Add(Local(host, "/gone/0"));
  list.Add(Local(host, "/error"));
  if (o.files_per_host > 0) {
    list.Add(Local(host, "/files/0.pdf"));
    list.Add(Local(host, "/files/0.png"));
  }
  list.Add(Local(host, PathOf(Resource{Kind::kSearch, host, host % kWordCount, 1})));
  list.Add(Local(host, "/private/0"));
  list.Add(Local(host, "/private/open/0"));
  if (o.slow_pages_per_host > 0) list.Add(Local(host, "/slow/0"));
  if (HasBigPage(o, host)) list.Add(Local(host, "/big/0"));
  if (HasTrap(o, host)) {
    Resource month{Kind::kCalendar, host, 2000 + o.seed % 25, 1 + o.seed % 12};
    list.Add(Local(host, PathOf(month)));
  }
  // A host inside the scope but outside the web: its server answers 404.
  if (host == 0) list.Add(Target{HostName(o.hosts), "/"});
  list.AddExternal();
}

PageLinks LinksOfPage(const SimWebOptions& o, uint32_t host, uint64_t page) {
  PageLinks out;
  uint64_t host_key = Mix(o.seed, host);
  out.meta_nofollow = page != 0 && (host_key + page) % 29 == 1;
  out.header_nofollow = page != 0 && (host_key + page) % 29 == 2;
  BaseUrl base{HostName(host), DirOf(PagePath(page))};
  if (page != 0 && (Mix(host_key, kSaltBase) + page) % 10 == 2) {
    Rng rng(KeyOf(o.seed, host, page, kSaltBase));
    base = BaseUrl{HostName(static_cast<uint32_t>(rng.Below(o.hosts))),
                   rng.Percent(50) ? "/p/" : "/"};
    out.base_href = "http://" + base.host + base.dir;
  }
  uint64_t charset = (Mix(host_key, kSaltCharset) + page) % 16;
  if (o.non_utf8_pages && page != 0 && charset == 5) out.charset = "ISO-8859-1";
  if (o.non_utf8_pages && page != 0 && charset == 6) out.charset = "Shift_JIS";

  LinkList list(base, KeyOf(o.seed, host, page, kSaltLinks));
  if (page == 0) AddHomeExtras(o, host, list);
  // A ring through all pages keeps every page of a host reachable.
  list.Add(Local(host, PagePath((page + 1) % o.pages)));
  AddRandomLinks(o, host, list);
  AddHiddenLinks(host, page, page == 0 ? 100 : 20, list);
  if (out.meta_nofollow) list.Add(Hidden(host, HiddenKind::kMeta, page));
  if (out.header_nofollow) list.Add(Hidden(host, HiddenKind::kHeader, page));
  out.links = list.Take();
  return out;
}

PageLinks LinksOfCalendar(uint32_t host, uint64_t year, uint64_t month) {
  PageLinks out;
  auto add_month = [&](uint64_t y, uint64_t m) {
    std::string path = "/cal/" + std::to_string(y) + "/" + std::to_string(m);
    out.links.push_back(
        Link{"../" + std::to_string(y) + "/" + std::to_string(m), UrlOf(host, path)});
  };
  if (month > 1) add_month(year, month - 1);
  if (month == 1 && year > 1) add_month(year - 1, 12);
  if (month < 12) add_month(year, month + 1);
  if (month == 12 && year < kCalendarMaxYear) add_month(year + 1, 1);
  out.links.push_back(Link{"/", UrlOf(host, "/")});
  return out;
}

}  // namespace

std::string UrlOf(uint32_t host, std::string_view path) {
  return "http://" + HostName(host) + std::string(path);
}

PageLinks LinksOf(const SimWebOptions& o, const Resource& r) {
  switch (r.kind) {
    case Kind::kPage:
      return LinksOfPage(o, r.host, r.a);
    case Kind::kBig: {
      PageLinks out;
      LinkList list(BaseUrl{HostName(r.host), "/big/"},
                    KeyOf(o.seed, r.host, r.a, kSaltBig));
      AddRandomLinks(o, r.host, list);
      out.links = list.Take();
      return out;
    }
    case Kind::kSlow: {
      PageLinks out;
      LinkList list(BaseUrl{HostName(r.host), "/slow/"},
                    KeyOf(o.seed, r.host, r.a, kSaltSlow));
      list.Add(Local(r.host, "/"));
      list.Add(RandomPage(o, r.host, list.rng()));
      out.links = list.Take();
      return out;
    }
    case Kind::kCalendar:
      return LinksOfCalendar(r.host, r.a, r.b);
    default:
      return PageLinks{};
  }
}

std::string RedirectTargetOf(const SimWebOptions& o, const Resource& r) {
  if (r.b == 1) return UrlOf(r.host, "/r/" + std::to_string(r.a) + "/2");
  Rng rng(KeyOf(o.seed, r.host, r.a, kSaltRedirect));
  return RandomPage(o, r.host, rng).Url();
}

}  // namespace crawlfront::simweb
