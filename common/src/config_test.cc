#include "crawlfront/common/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

namespace crawlfront {
namespace {

using std::chrono::milliseconds;

enum class Mode { kFast, kSafe };

// One field of every supported type.
struct ExampleOpts {
  std::string listen;
  bool verbose = false;
  int64_t port = 0;
  uint32_t backlog = 0;
  double ratio = 0;
  std::vector<std::string> seeds;
  milliseconds timeout{0};
  std::string durability;
  Mode mode = Mode::kFast;
  std::string name;  // top-level key, no section
};

ConfigTable<ExampleOpts> MakeTable() {
  ConfigTable<ExampleOpts> t;
  t.Add("name", &ExampleOpts::name, "node-a", "Node name.");
  t.Add("server.listen", &ExampleOpts::listen, "127.0.0.1", "Listen address.");
  t.Add("server.port", &ExampleOpts::port, 7000, 1, 65535, "TCP port.");
  t.Add("server.backlog", &ExampleOpts::backlog, 128u, 1u, 4096u, "Accept backlog.");
  t.Add("server.verbose", &ExampleOpts::verbose, false, "Log every command.");
  t.Add("bloom.ratio", &ExampleOpts::ratio, 0.5, 0.0, 1.0, "Rebuild threshold.");
  t.Add("crawl.seeds", &ExampleOpts::seeds, {"http://a/", "http://b/"}, "Seed URLs.");
  t.Add("crawl.timeout", &ExampleOpts::timeout, milliseconds(2000), milliseconds(1),
        milliseconds(3600000), "Fetch timeout.");
  t.AddEnum("storage.durability", &ExampleOpts::durability, "wal", {"wal", "fsync"},
            "What an add survives.");
  t.AddEnum("storage.mode", &ExampleOpts::mode, Mode::kSafe,
            {{"fast", Mode::kFast}, {"safe", Mode::kSafe}}, "Trade-off.");
  return t;
}

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTable<ExampleOpts> table_ = MakeTable();
  ExampleOpts opts_ = table_.Defaults();
};

TEST_F(ConfigTest, TableIsWellFormed) { EXPECT_TRUE(table_.definition_error().ok()); }

// Options built in code are checked like loaded ones: bounds and rules.
TEST_F(ConfigTest, CheckValuesAppliesBoundsAndRulesToBuiltOptions) {
  table_.Check("crawl.seeds", [](const config_internal::Value& v) -> std::string {
    for (const std::string& s : std::get<std::vector<std::string>>(v)) {
      if (s.rfind("http://", 0) != 0) return "http:// URLs";
    }
    return "";
  });
  EXPECT_TRUE(table_.CheckValues(opts_).ok());
  ExampleOpts o = opts_;
  o.port = 0;
  Status st = table_.CheckValues(o);
  EXPECT_EQ(st.message(), "server.port: expected integer in [1, 65535], got 0");
  o = opts_;
  o.seeds = {"http://a/", "ftp://b/"};
  st = table_.CheckValues(o);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message().rfind("crawl.seeds: expected http:// URLs, got ", 0), 0u)
      << st.message();
  o = opts_;
  EXPECT_FALSE(table_.ApplyOverride("crawl.seeds=ftp://x/", &o).ok()) << "rules apply to loads";
}

TEST_F(ConfigTest, DefaultsComeFromTheTable) {
  EXPECT_EQ(opts_.name, "node-a");
  EXPECT_EQ(opts_.listen, "127.0.0.1");
  EXPECT_EQ(opts_.port, 7000);
  EXPECT_EQ(opts_.backlog, 128u);
  EXPECT_FALSE(opts_.verbose);
  EXPECT_DOUBLE_EQ(opts_.ratio, 0.5);
  EXPECT_EQ(opts_.seeds, (std::vector<std::string>{"http://a/", "http://b/"}));
  EXPECT_EQ(opts_.timeout, milliseconds(2000));
  EXPECT_EQ(opts_.durability, "wal");
  EXPECT_EQ(opts_.mode, Mode::kSafe);
}

TEST_F(ConfigTest, LoadsEveryType) {
  const char* text = R"(
name = "node-b"
[server]
listen = "0.0.0.0"
port = 8080
backlog = 16
verbose = true
[bloom]
ratio = 1            # an integer is accepted for a float
[crawl]
seeds = ["http://c/"]
timeout = "5m"
[storage]
durability = "fsync"
mode = "fast"
)";
  ASSERT_TRUE(table_.LoadString(text, &opts_).ok());
  EXPECT_EQ(opts_.name, "node-b");
  EXPECT_EQ(opts_.listen, "0.0.0.0");
  EXPECT_EQ(opts_.port, 8080);
  EXPECT_EQ(opts_.backlog, 16u);
  EXPECT_TRUE(opts_.verbose);
  EXPECT_DOUBLE_EQ(opts_.ratio, 1.0);
  EXPECT_EQ(opts_.seeds, std::vector<std::string>{"http://c/"});
  EXPECT_EQ(opts_.timeout, milliseconds(5 * 60 * 1000));
  EXPECT_EQ(opts_.durability, "fsync");
  EXPECT_EQ(opts_.mode, Mode::kFast);
}

TEST_F(ConfigTest, EmptyFileKeepsDefaults) {
  ASSERT_TRUE(table_.LoadString("", &opts_).ok());
  EXPECT_EQ(table_.Dump(opts_), table_.Dump(table_.Defaults()));
}

TEST_F(ConfigTest, AbsentKeysKeepTheirValue) {
  opts_.port = 1234;
  ASSERT_TRUE(table_.LoadString("[server]\nlisten = \"::1\"\n", &opts_).ok());
  EXPECT_EQ(opts_.port, 1234);
  EXPECT_EQ(opts_.listen, "::1");
}

// Each bad document must fail with an error naming source, line and the
// given fragments; and must leave the options unchanged.
struct BadCase {
  const char* name;
  const char* text;
  std::vector<std::string> fragments;
};

TEST_F(ConfigTest, BadValuesNameKeyLineAndExpectation) {
  const std::vector<BadCase> cases = {
      {"unknown key",
       "[server]\nport = 1\n\nlisen = \"x\"\n",
       {"f.toml:4: unknown key 'server.lisen'", "did you mean 'server.listen'"}},
      {"unknown section", "[nope]\nx = 1\n", {"f.toml:1: unknown section 'nope'"}},
      {"misspelt section", "[sever]\nport = 1\n", {"did you mean 'server'?"}},
      {"wrong type",
       "[server]\nport = \"80\"\n",
       {"f.toml:2: key 'server.port'", "expected integer in [1, 65535]", "got string"}},
      {"above max",
       "[server]\nport = 70000\n",
       {"f.toml:2: key 'server.port'", "[1, 65535]", "got 70000"}},
      {"below min", "[server]\n\nbacklog = 0\n", {"f.toml:3: key 'server.backlog'"}},
      {"float bounds", "[bloom]\nratio = 1.5\n", {"f.toml:2", "float in [0.0, 1.0]"}},
      {"float nan", "[bloom]\nratio = nan\n", {"f.toml:2", "got nan"}},
      {"bool type", "[server]\nverbose = 1\n", {"f.toml:2", "expected boolean"}},
      {"list element", "[crawl]\nseeds = [\"a\", 2]\n", {"expected array of strings"}},
      {"bad duration",
       "[crawl]\ntimeout = \"5 min\"\n",
       {"f.toml:2: key 'crawl.timeout'", "\"5 min\""}},
      {"duration bounds", "[crawl]\ntimeout = \"2h\"\n", {"duration in [1ms, 1h]"}},
      {"enum",
       "[storage]\ndurability = \"never\"\n",
       {"f.toml:2", "one of \"wal\", \"fsync\"", "got \"never\""}},
      {"key is a table",
       "[server.listen]\nx = 1\n",
       {"key 'server.listen'", "got table"}},
      {"syntax", "[server]\nport = = 3\n", {"f.toml:2:", "TOML syntax error"}},
      {"unterminated", "name = \"abc\n", {"f.toml:1:", "TOML syntax error"}},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    ExampleOpts before = opts_;
    Status st = table_.LoadString(c.text, &opts_, "f.toml");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
    for (const std::string& f : c.fragments) {
      EXPECT_NE(st.message().find(f), std::string::npos) << st.message();
    }
    EXPECT_EQ(table_.Dump(opts_), table_.Dump(before));
  }
}

TEST_F(ConfigTest, ReportsAllErrorsInLineOrder) {
  Status st = table_.LoadString("[server]\nport = 0\n[crawl]\nseedz = []\n", &opts_, "c");
  ASSERT_FALSE(st.ok());
  size_t first = st.message().find("c:2:");
  size_t second = st.message().find("c:4:");
  ASSERT_NE(first, std::string::npos) << st.message();
  ASSERT_NE(second, std::string::npos) << st.message();
  EXPECT_LT(first, second);
}

TEST(DurationTest, ParsesUnits) {
  const std::vector<std::pair<std::string, int64_t>> cases = {
      {"0", 0},       {"250", 250},    {"250ms", 250}, {"2s", 2000},
      {"5m", 300000}, {"1h", 3600000}, {"90s", 90000}};
  for (const auto& [text, ms] : cases) {
    auto d = ParseDuration(text);
    ASSERT_TRUE(d.ok()) << text;
    EXPECT_EQ(d->count(), ms) << text;
    EXPECT_EQ(ParseDuration(FormatDuration(*d))->count(), ms) << text;
  }
  for (const char* bad : {"", "s", "1.5s", "-1s", "5 s", "3d", "1hh",
                          "99999999999999999999", "9999999999999999h"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
  EXPECT_EQ(FormatDuration(milliseconds(7200000)), "2h");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1500ms");
}

TEST_F(ConfigTest, OverridesParsePerType) {
  const std::vector<std::string> sets = {
      "server.port=9000",    "server.verbose=true",
      "bloom.ratio=0.25",    "crawl.seeds=http://x/, http://y/",
      "crawl.timeout=250ms", "storage.durability=fsync",
      "storage.mode=fast",   "server.listen=a=b",  // only the first '=' splits
      "server.backlog=4096"};
  for (const auto& s : sets) ASSERT_TRUE(table_.ApplyOverride(s, &opts_).ok()) << s;
  EXPECT_EQ(opts_.port, 9000);
  EXPECT_TRUE(opts_.verbose);
  EXPECT_DOUBLE_EQ(opts_.ratio, 0.25);
  EXPECT_EQ(opts_.seeds, (std::vector<std::string>{"http://x/", "http://y/"}));
  EXPECT_EQ(opts_.timeout, milliseconds(250));
  EXPECT_EQ(opts_.durability, "fsync");
  EXPECT_EQ(opts_.mode, Mode::kFast);
  EXPECT_EQ(opts_.listen, "a=b");
  EXPECT_EQ(opts_.backlog, 4096u);
}

TEST_F(ConfigTest, ListOverrideAcceptsTomlArrayAndEmpty) {
  ASSERT_TRUE(table_.ApplyOverride("crawl.seeds=[\"a,1\", \"b\"]", &opts_).ok());
  EXPECT_EQ(opts_.seeds, (std::vector<std::string>{"a,1", "b"}));
  ASSERT_TRUE(table_.ApplyOverride("crawl.seeds=", &opts_).ok());
  EXPECT_TRUE(opts_.seeds.empty());
}

TEST_F(ConfigTest, BadOverridesFailAndChangeNothing) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"server.port", "expected section.key=value"},
      {"server.prot=1", "unknown key 'server.prot'"},
      {"server.port=eighty", "expected integer in [1, 65535], got \"eighty\""},
      {"server.port=0", "got 0"},
      {"server.port=80x", "expected integer"},
      {"server.verbose=yes", "expected boolean"},
      {"bloom.ratio=2", "float in"},
      {"crawl.timeout=soon", "duration in"},
      {"storage.durability=none", "one of"},
      {"crawl.seeds=[1]", "array of strings"},
      {"crawl.seeds=[", "TOML array"},
      {"server.listen=\xff", "not valid UTF-8"},
      {"server.listen=\xc0\xaf", "not valid UTF-8"},      // overlong '/'
      {"server.listen=\xed\xa0\x80", "not valid UTF-8"},  // surrogate
      {"server.listen=\xe2\x82", "not valid UTF-8"},      // cut short
  };
  for (const auto& [assignment, fragment] : cases) {
    ExampleOpts before = opts_;
    Status st = table_.ApplyOverride(assignment, &opts_);
    ASSERT_FALSE(st.ok()) << assignment;
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
    EXPECT_EQ(table_.Dump(opts_), table_.Dump(before));
  }
}

TEST_F(ConfigTest, DumpLoadsBackToTheSameValues) {
  ASSERT_TRUE(table_.ApplyOverride("server.listen=quote\" back\\slash", &opts_).ok());
  ASSERT_TRUE(table_.ApplyOverride("bloom.ratio=0.1", &opts_).ok());
  ASSERT_TRUE(table_.ApplyOverride("crawl.timeout=90s", &opts_).ok());
  ASSERT_TRUE(table_.ApplyOverride("storage.mode=fast", &opts_).ok());
  ASSERT_TRUE(
      table_.ApplyOverride("name=caf\xc3\xa9 \xf0\x9f\x95\xb7 tab\there", &opts_).ok());
  std::string dump = table_.Dump(opts_);
  EXPECT_EQ(dump.find("name = "), 0u) << dump;  // top-level key before any section
  ExampleOpts reloaded = table_.Defaults();
  ASSERT_TRUE(table_.LoadString(dump, &reloaded).ok()) << dump;
  EXPECT_EQ(table_.Dump(reloaded), dump);
  EXPECT_EQ(reloaded.listen, opts_.listen);
  EXPECT_EQ(reloaded.name, opts_.name);
  EXPECT_DOUBLE_EQ(reloaded.ratio, 0.1);
  EXPECT_TRUE(table_.MissingKeys(dump)->empty());
}

TEST_F(ConfigTest, MissingKeysListsUnsetKeys) {
  auto missing = table_.MissingKeys("name = \"x\"\n[server]\nport = 1\n");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(*missing,
            (std::vector<std::string>{"server.listen", "server.backlog", "server.verbose",
                                      "bloom.ratio", "crawl.seeds", "crawl.timeout",
                                      "storage.durability", "storage.mode"}));
  EXPECT_FALSE(table_.MissingKeys("[server").ok());
}

TEST_F(ConfigTest, HelpTextListsEveryKey) {
  std::string help = table_.HelpText({{"listen", "server.listen"}});
  EXPECT_NE(help.find("server.listen = \"127.0.0.1\"\n    string; flag --listen\n"
                      "    Listen address.\n"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("crawl.timeout = \"2s\""), std::string::npos) << help;
  EXPECT_NE(help.find("one of \"fast\", \"safe\""), std::string::npos) << help;
}

TEST_F(ConfigTest, CommandLineGivesFileThenOverridesInOrder) {
  auto path = std::filesystem::temp_directory_path() /
              ("config_test_" + std::to_string(::getpid()) + ".toml");
  std::ofstream(path) << "[server]\nport = 8000\nlisten = \"file\"\n";
  std::string path_arg = path.string();
  const char* argv[] = {"prog",
                        "--config",
                        path_arg.c_str(),
                        "--listen",
                        "flag",
                        "--set",
                        "server.port=9000",
                        "--verbose",
                        "--set=server.port=9001",
                        "rest",
                        "--",
                        "--not-a-flag"};
  auto cl =
      table_.ParseArgs(std::size(argv), argv,
                       {{"listen", "server.listen"}, {"verbose", "server.verbose"}});
  ASSERT_TRUE(cl.ok()) << cl.status().ToString();
  EXPECT_EQ(cl->positional, (std::vector<std::string>{"rest", "--not-a-flag"}));
  auto opts = table_.Load(*cl);
  std::filesystem::remove(path);
  ASSERT_TRUE(opts.ok()) << opts.status().ToString();
  EXPECT_EQ(opts->listen, "flag");
  EXPECT_EQ(opts->port, 9001);
  EXPECT_TRUE(opts->verbose);
  EXPECT_EQ(opts->backlog, 128u);  // default: set nowhere
}

TEST_F(ConfigTest, BadCommandLinesFail) {
  const std::vector<std::vector<const char*>> cases = {
      {"prog", "--bogus"}, {"prog", "--set"}, {"prog", "--config"}, {"prog", "--listen"}};
  for (const auto& argv : cases) {
    auto cl = table_.ParseArgs(argv.size(), argv.data(), {{"listen", "server.listen"}});
    EXPECT_FALSE(cl.ok()) << argv.back();
  }
  const char* help[] = {"prog", "-h"};
  EXPECT_TRUE(table_.ParseArgs(2, help)->help);
  auto bad_alias = table_.ParseArgs(1, help, {{"x", "no.such"}});
  EXPECT_EQ(bad_alias.status().code(), Status::Code::kInternal);
}

TEST_F(ConfigTest, MissingFileIsAnIoError) {
  Status st = table_.LoadFile("/nonexistent/crawlfront.toml", &opts_);
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_NE(st.message().find("/nonexistent/crawlfront.toml"), std::string::npos);
}

TEST(ConfigDefinitionTest, MistakesInTheTableAreReported) {
  struct O {
    int64_t a = 0, b = 0;
    std::string s;
  };
  const std::vector<std::pair<std::string, std::function<void(ConfigTable<O>&)>>> cases =
      {
          {"declared twice",
           [](auto& t) {
             t.Add("x.a", &O::a, 1, 0, 9, "");
             t.Add("x.a", &O::b, 1, 0, 9, "");
           }},
          {"bad default", [](auto& t) { t.Add("x.a", &O::a, 10, 0, 9, ""); }},
          {"min > max", [](auto& t) { t.Add("x.a", &O::a, 1, 9, 0, ""); }},
          {"section.key", [](auto& t) { t.Add("x..a", &O::a, 1, 0, 9, ""); }},
          {"section.key", [](auto& t) { t.Add("x a", &O::a, 1, 0, 9, ""); }},
          {"clashes",
           [](auto& t) {
             t.Add("x", &O::s, "", "");
             t.Add("x.a", &O::a, 1, 0, 9, "");
           }},
          {"bad default",
           [](auto& t) {
             t.AddEnum("x.s", &O::s, "c", {"a", "b"}, "");
           }},
      };
  for (const auto& [fragment, define] : cases) {
    ConfigTable<O> t;
    define(t);
    Status st = t.definition_error();
    ASSERT_FALSE(st.ok()) << fragment;
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
    O o;
    EXPECT_EQ(t.LoadString("", &o).code(), Status::Code::kInternal);
  }
}

}  // namespace
}  // namespace crawlfront
