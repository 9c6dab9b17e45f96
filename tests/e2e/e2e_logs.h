#pragma once
// Readers for what an end-to-end crawl leaves behind: simweb's access log,
// the oracle's output and the workers' WARC files. Pure file parsing; the
// checks in e2e_checks.h compare them.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront::e2e {

// One line of simweb's access log:
// "<unix s>.<ms> <host> <path+query> <status> <body bytes>".
struct AccessEntry {
  int64_t time_ms = 0;  // the line's timestamp, in ms
  std::string host;
  std::string target;  // path and query
  int status = 0;
  int64_t body_bytes = 0;  // as sent, so content-encoded when simweb encoded it
  std::string Url() const { return "http://" + host + target; }
};

// Every line of the log, in file order. Corruption names the first bad line.
Result<std::vector<AccessEntry>> ReadAccessLog(const std::string& path);

// The oracle's "URL<TAB>STATUS" lines and its "trap-prefix<TAB>URL" notes.
struct OracleResult {
  std::map<std::string, int> expected;  // URL -> HTTP status
  std::vector<std::string> trap_prefixes;
};

// Parses the oracle's stdout and stderr files. Corruption on a bad line.
Result<OracleResult> ReadOracle(const std::string& stdout_path, const std::string& stderr_path);

// One WARC record: named headers and the block.
struct WarcRecord {
  std::map<std::string, std::string> headers;
  std::string block;
  std::string Get(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// Reads a .warc.gz file member by member (each gzip member inflated on its
// own, as docs/warc.md promises one record per member). Corruption when a
// member is not valid gzip, holds other than exactly one record, or a record
// is malformed; IoError when the file cannot be read.
Result<std::vector<WarcRecord>> ReadWarcGz(const std::string& path);

// All records of every *.warc.gz file in `dir`, files in name order.
Result<std::vector<WarcRecord>> ReadWarcDir(const std::string& dir);

}  // namespace crawlfront::e2e
