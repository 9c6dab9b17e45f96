#include "e2e_logs.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace crawlfront::e2e {
namespace {

namespace fs = std::filesystem;

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError("cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "1796207510.578" -> 1796207510578.
bool ParseTimeMs(const std::string& text, int64_t* ms) {
  size_t dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || text.size() - dot != 4) return false;
  try {
    *ms = std::stoll(text.substr(0, dot)) * 1000 + std::stoll(text.substr(dot + 1));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

// Inflates the gzip member starting at `*pos`; advances `*pos` past it.
Result<std::string> InflateMember(const std::string& gz, size_t* pos) {
  z_stream zs{};
  if (inflateInit2(&zs, 31) != Z_OK) return Status::Internal("inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data() + *pos));
  zs.avail_in = static_cast<uInt>(gz.size() - *pos);
  std::string out;
  int rc = Z_OK;
  char buf[16384];
  while (rc == Z_OK) {  // bounded: each round consumes input or ends
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;
  }
  size_t used = zs.total_in;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    return Status::Corruption("bad gzip member at offset " + std::to_string(*pos));
  }
  *pos += used;
  return out;
}

// Parses exactly one record filling all of `data`.
Result<WarcRecord> ParseRecord(const std::string& data) {
  size_t end = data.find("\r\n\r\n");
  if (data.rfind("WARC/1.1\r\n", 0) != 0 || end == std::string::npos) {
    return Status::Corruption("record does not start with WARC/1.1 headers");
  }
  WarcRecord r;
  std::istringstream lines(data.substr(10, end - 10));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(": ");
    if (colon == std::string::npos) return Status::Corruption("bad header line: " + line);
    r.headers[line.substr(0, colon)] = line.substr(colon + 2);
  }
  size_t length = 0;
  try {
    length = std::stoull(r.Get("Content-Length"));
  } catch (const std::exception&) {
    return Status::Corruption("bad Content-Length");
  }
  if (end + 4 + length + 4 != data.size() || data.compare(end + 4 + length, 4, "\r\n\r\n") != 0) {
    return Status::Corruption("Content-Length does not end the member with CRLF CRLF");
  }
  r.block = data.substr(end + 4, length);
  return r;
}

}  // namespace

Result<std::vector<AccessEntry>> ReadAccessLog(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IoError("cannot open " + path);
  std::vector<AccessEntry> out;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    std::istringstream fields(line);
    std::string time;
    AccessEntry e;
    if (!(fields >> time >> e.host >> e.target >> e.status >> e.body_bytes) ||
        !ParseTimeMs(time, &e.time_ms)) {
      return Status::Corruption(path + ":" + std::to_string(n) + ": bad line: " + line);
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<OracleResult> ReadOracle(const std::string& stdout_path, const std::string& stderr_path) {
  OracleResult r;
  std::ifstream out(stdout_path), err(stderr_path);
  if (!out || !err) return Status::IoError("cannot open the oracle's output");
  for (std::string line; std::getline(out, line);) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) return Status::Corruption("oracle line: " + line);
    r.expected[line.substr(0, tab)] = std::atoi(line.c_str() + tab + 1);
  }
  for (std::string line; std::getline(err, line);) {
    const std::string kTrap = "trap-prefix\t";
    if (line.rfind(kTrap, 0) == 0) r.trap_prefixes.push_back(line.substr(kTrap.size()));
  }
  return r;
}

Result<std::vector<WarcRecord>> ReadWarcGz(const std::string& path) {
  auto gz = ReadFile(path);
  if (!gz.ok()) return gz.status();
  std::vector<WarcRecord> records;
  size_t pos = 0;
  while (pos < gz->size()) {  // each member consumes at least its header
    auto member = InflateMember(*gz, &pos);
    if (!member.ok()) return Status::Corruption(path + ": " + member.status().message());
    auto record = ParseRecord(*member);
    if (!record.ok()) return Status::Corruption(path + ": " + record.status().message());
    records.push_back(std::move(*record));
  }
  return records;
}

Result<std::vector<WarcRecord>> ReadWarcDir(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().string().ends_with(".warc.gz")) files.push_back(e.path().string());
  }
  if (ec) return Status::IoError("cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<WarcRecord> all;
  for (const auto& f : files) {
    auto records = ReadWarcGz(f);
    if (!records.ok()) return records.status();
    all.insert(all.end(), records->begin(), records->end());
  }
  return all;
}

}  // namespace crawlfront::e2e
