#include "crawlfront/simweb/sim_web.h"

#include <gtest/gtest.h>

#include "crawlfront/simweb/links.h"
#include "test_util.h"

namespace crawlfront::simweb {
namespace {

using testing::MakeWeb;
using testing::SmallWeb;

TEST(SimWebTest, SameOptionsGiveByteIdenticalResponses) {
  SimWeb a = MakeWeb(SmallWeb());
  SimWeb b = MakeWeb(SmallWeb());
  for (const char* target : {"/", "/p/3", "/robots.txt", "/r/0", "/r/0/2", "/files/0.png",
                             "/files/1.pdf", "/big/0", "/slow/0", "/cal/2007/8"}) {
    for (uint32_t host = 0; host < 6; ++host) {
      Response first = a.Fetch(HostName(host), target);
      Response second = b.Fetch(HostName(host), target);
      EXPECT_EQ(first.status, second.status) << host << target;
      EXPECT_EQ(first.content_type, second.content_type) << host << target;
      EXPECT_EQ(first.location, second.location) << host << target;
      EXPECT_EQ(first.body, second.body) << host << target;
      EXPECT_EQ(first.delay_ms, second.delay_ms) << host << target;
    }
  }
}

TEST(SimWebTest, DifferentSeedsGiveDifferentWebs) {
  SimWeb a = MakeWeb(SmallWeb(1));
  SimWeb b = MakeWeb(SmallWeb(2));
  int differing = 0;
  for (uint32_t page = 1; page < 30; ++page) {
    std::string target = "/p/" + std::to_string(page);
    if (a.Fetch("h0.simweb.test", target).body !=
        b.Fetch("h0.simweb.test", target).body) {
      ++differing;
    }
  }
  EXPECT_GT(differing, 25);
}

struct RouteCase {
  const char* host;
  const char* target;
  int status;
  const char* content_type;  // prefix
};

TEST(SimWebTest, RoutesAnswerTheDocumentedStatuses) {
  // SmallWeb: 6 hosts, 30 pages, 3 redirects, 2 files, 1 slow page; host 1
  // robots 404, host 2 robots 500, host 0 and 3 carry the calendar.
  const RouteCase cases[] = {
      {"h0.simweb.test", "/", 200, "text/html"},
      {"H0.SimWeb.Test:8080", "/p/29", 200, "text/html"},
      {"h0.simweb.test", "/p/30", 404, "text/html"},
      {"h0.simweb.test", "/p/0", 404, "text/html"},
      {"h0.simweb.test", "/p/05", 404, "text/html"},
      {"h0.simweb.test", "/p/5/", 404, "text/html"},
      {"h0.simweb.test", "/p/5?x=1", 404, "text/html"},
      {"h6.simweb.test", "/", 404, "text/html"},
      {"example.com", "/", 404, "text/html"},
      {"", "/", 404, "text/html"},
      {"h0.simweb.test", "p/1", 400, "text/html"},
      {"h0.simweb.test", "/robots.txt", 200, "text/plain"},
      {"h1.simweb.test", "/robots.txt", 404, "text/plain"},
      {"h2.simweb.test", "/robots.txt", 500, "text/plain"},
      {"h0.simweb.test", "/r/2", 301, "text/html"},
      {"h0.simweb.test", "/r/2/2", 302, "text/html"},
      {"h0.simweb.test", "/r/3", 404, "text/html"},
      {"h0.simweb.test", "/error", 500, "text/html"},
      {"h0.simweb.test", "/gone/0", 404, "text/html"},
      {"h0.simweb.test", "/files/1.pdf", 200, "application/pdf"},
      {"h0.simweb.test", "/files/1.png", 200, "image/png"},
      {"h0.simweb.test", "/files/2.png", 404, "text/html"},
      {"h0.simweb.test", "/s?q=alpha&n=3", 200, "text/html"},
      {"h0.simweb.test", "/s?q=nope&n=3", 404, "text/html"},
      {"h0.simweb.test", "/private/2", 200, "text/html"},
      {"h0.simweb.test", "/private/open/1", 200, "text/html"},
      {"h0.simweb.test", "/hidden/script/4", 200, "text/html"},
      {"h0.simweb.test", "/cal/2024/12", 200, "text/html"},
      {"h0.simweb.test", "/cal/2024/13", 404, "text/html"},
      {"h1.simweb.test", "/cal/2024/1", 404, "text/html"},
      {"h1.simweb.test", "/big/0", 200, "text/html"},
      {"h0.simweb.test", "/big/0", 404, "text/html"},
  };
  SimWeb web = MakeWeb(SmallWeb());
  for (const RouteCase& c : cases) {
    Response r = web.Fetch(c.host, c.target);
    EXPECT_EQ(r.status, c.status) << c.host << " " << c.target;
    EXPECT_EQ(r.content_type.rfind(c.content_type, 0), 0u)
        << c.host << " " << c.target << " " << r.content_type;
  }
  EXPECT_EQ(web.Fetch("h0.simweb.test", "/" + std::string(kMaxTargetLength, 'a')).status,
            414);
}

TEST(SimWebTest, RedirectChainsEndOnAPage) {
  SimWeb web = MakeWeb(SmallWeb());
  for (uint32_t host = 0; host < 6; ++host) {
    for (int chain = 0; chain < 3; ++chain) {
      std::string url = UrlOf(host, "/r/" + std::to_string(chain));
      Response first = web.Fetch(HostName(host), "/r/" + std::to_string(chain));
      ASSERT_EQ(first.status, 301);
      EXPECT_EQ(first.location, url + "/2");
      Response second = web.Fetch(HostName(host), "/r/" + std::to_string(chain) + "/2");
      ASSERT_EQ(second.status, 302);
      std::string location = second.location;
      std::string final_url = location[0] == '/' ? UrlOf(host, location) : location;
      EXPECT_EQ(final_url, RedirectTargetOf(web.options(),
                                            Route(web.options(), host,
                                                  "/r/" + std::to_string(chain) + "/2")));
      std::string rest = final_url.substr(7);
      size_t slash = rest.find('/');
      EXPECT_EQ(web.Fetch(rest.substr(0, slash), rest.substr(slash)).status, 200)
          << final_url;
    }
  }
}

TEST(SimWebTest, SlowPagesCarryADelayInRange) {
  SimWeb web = MakeWeb(SmallWeb());
  for (uint32_t host = 0; host < 6; ++host) {
    Response r = web.Fetch(HostName(host), "/slow/0");
    EXPECT_GE(r.delay_ms, 200u);
    EXPECT_LE(r.delay_ms, 500u);
  }
  EXPECT_EQ(web.Fetch("h0.simweb.test", "/p/1").delay_ms, 0u);
}

TEST(SimWebTest, LargePageHasItsLinksAfterTheFiller) {
  SimWebOptions options = SmallWeb();
  options.large_min_bytes = 1'000'000;
  options.large_max_bytes = 2'000'000;
  SimWeb web = MakeWeb(options);
  Response r = web.Fetch("h1.simweb.test", "/big/0");
  ASSERT_EQ(r.status, 200);
  EXPECT_GE(r.body.size(), 1'000'000u);
  EXPECT_LE(r.body.size(), 2'100'000u);
  size_t first_link = r.body.find("href=");
  ASSERT_NE(first_link, std::string::npos);
  EXPECT_GT(first_link, 1'000'000u);
}

TEST(SimWebTest, SomePagesAreNotUtf8AndSayWhichCharset) {
  SimWeb web = MakeWeb(SmallWeb());
  int latin1 = 0, sjis = 0;
  for (uint32_t host = 0; host < 6; ++host) {
    for (uint32_t page = 1; page < 30; ++page) {
      Response r = web.Fetch(HostName(host), "/p/" + std::to_string(page));
      if (r.content_type == "text/html; charset=ISO-8859-1") {
        ++latin1;
        EXPECT_NE(r.body.find("<meta charset=\"ISO-8859-1\">"), std::string::npos);
        EXPECT_NE(r.body.find("Caf\xE9"), std::string::npos);
      }
      if (r.content_type == "text/html; charset=Shift_JIS") {
        ++sjis;
        EXPECT_NE(r.body.find("charset=Shift_JIS\">"), std::string::npos);
        EXPECT_NE(r.body.find("\x95\x5C"), std::string::npos);
      }
    }
  }
  EXPECT_GT(latin1, 0);
  EXPECT_GT(sjis, 0);
}

TEST(SimWebTest, FilesLookLikeWhatTheyClaim) {
  SimWeb web = MakeWeb(SmallWeb());
  Response pdf = web.Fetch("h3.simweb.test", "/files/0.pdf");
  EXPECT_EQ(pdf.body.rfind("%PDF-1.4\n", 0), 0u);
  Response png = web.Fetch("h3.simweb.test", "/files/0.png");
  EXPECT_EQ(png.body.rfind("\x89PNG\r\n\x1a\n", 0), 0u);
  EXPECT_EQ(png.body.substr(png.body.size() - 8, 4), "IEND");
}

TEST(SimWebTest, CalendarIsEndlessButBounded) {
  SimWeb web = MakeWeb(SmallWeb());
  PageLinks middle = LinksOf(web.options(), Route(web.options(), 0, "/cal/2024/1"));
  std::vector<std::string> targets;
  for (const Link& link : middle.links) targets.push_back(link.target);
  EXPECT_EQ(targets, (std::vector<std::string>{"http://h0.simweb.test/cal/2023/12",
                                               "http://h0.simweb.test/cal/2024/2",
                                               "http://h0.simweb.test/"}));
  PageLinks last = LinksOf(web.options(), Route(web.options(), 0, "/cal/9999/12"));
  EXPECT_EQ(last.links.size(), 2u);  // no month after 9999/12
}

TEST(SimWebTest, RejectsOptionsOutOfBounds) {
  SimWebOptions zero_hosts = SmallWeb();
  zero_hosts.hosts = 0;
  SimWebOptions inverted_links = SmallWeb();
  inverted_links.min_links = 5;
  inverted_links.max_links = 4;
  SimWebOptions inverted_slow = SmallWeb();
  inverted_slow.slow_min_ms = 600;
  for (const SimWebOptions& options : {zero_hosts, inverted_links, inverted_slow}) {
    Result<SimWeb> web = SimWeb::Create(options);
    ASSERT_FALSE(web.ok());
    EXPECT_EQ(web.status().code(), Status::Code::kInvalidArgument);
  }
}

TEST(SimWebTest, HostWithoutPortHandlesPortsAndCase) {
  EXPECT_EQ(HostWithoutPort("H1.SimWeb.Test:8080"), "h1.simweb.test");
  EXPECT_EQ(HostWithoutPort("h1.simweb.test"), "h1.simweb.test");
  EXPECT_EQ(HostWithoutPort("[::1]:80"), "[::1]");
  EXPECT_EQ(HostWithoutPort("[::1]"), "[::1]");
}

}  // namespace
}  // namespace crawlfront::simweb
