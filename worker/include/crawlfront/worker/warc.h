#pragma once
// WARC/1.1 output (ISO 28500:2017). Each fetch becomes a request, a response
// and optionally a metadata record; each record is one gzip member so readers
// can seek to any record. docs/warc.md describes the layout.

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace crawlfront {

// Incremental SHA-1 (FIPS 180-4) through OpenSSL, for WARC digests. Not for
// security.
class Sha1 {
 public:
  Sha1();
  ~Sha1();
  Sha1(const Sha1&) = delete;
  Sha1& operator=(const Sha1&) = delete;
  void Update(std::string_view data);
  // The 20-byte digest; the object must not be used afterwards.
  std::array<uint8_t, 20> Final();

 private:
  ::evp_md_ctx_st* ctx_;
};

// RFC 4648 base32 (upper case, '=' padding), the WARC digest encoding.
std::string Base32(const uint8_t* data, size_t size);

// "sha1:<base32>" of `data`, as WARC-Block-Digest / WARC-Payload-Digest.
std::string WarcSha1Digest(std::string_view data);

struct WarcOptions {
  // Directory for the files; created if missing.
  std::string dir;
  // File names are <prefix>-<UTC yyyymmddhhmmssmmm>-<serial>.warc[.gz]. Give
  // concurrent writers distinct prefixes (e.g. with a worker id); same-name
  // collisions are avoided anyway by skipping to the next serial.
  // Default: "crawlfront".
  std::string prefix = "crawlfront";
  // A new file starts when the next exchange would push the current file past
  // this size. A file may exceed it only when a single exchange does.
  // Larger files mean fewer files; smaller ones are easier to move.
  // Default: 1 GiB.
  uint64_t max_file_bytes = uint64_t{1} << 30;
  // Compression level 1..9 (libdeflate's, close to zlib's) writing .warc.gz (one gzip
  // member per record); 0 writes plain uncompressed .warc. Higher levels cost CPU for a
  // few % of size. Default: 6.
  int gzip_level = 6;
  // warcinfo "software" field. Default: "crawlfront/0.1".
  std::string software = "crawlfront/0.1";
  // warcinfo "operator" field (contact of who runs the crawl); omitted if empty.
  // Default: "".
  std::string operator_info;
  // warcinfo "description"; omitted if empty. Default: "".
  std::string description;
};

// One HTTP fetch. The writer stores the bytes verbatim; the caller makes
// head and body agree. The worker passes the request as sent and the response
// with its body decoded and Content-Encoding renamed (docs/warc.md).
struct WarcExchange {
  std::string target_uri;  // no whitespace or control characters
  std::string ip_address;  // of the server; empty omits WARC-IP-Address
  std::chrono::system_clock::time_point fetch_time;  // -> WARC-Date (seconds)
  std::string request_head;   // request line + headers + blank line
  std::string request_body;   // usually empty (GET)
  std::string response_head;  // status line + headers + blank line
  std::string response_body;  // the body as the head describes it
  // The body was cut at a size limit: adds "WARC-Truncated: length".
  bool truncated = false;
  // A 304 to a conditional request: the response is written as a revisit
  // record of the server-not-modified profile (WARC 1.1, 6.7.3).
  bool not_modified = false;
  // Links found in the body; non-empty adds a metadata record
  // ("outlink: <url>" lines). No whitespace or control characters.
  std::vector<std::string> outlinks;
};

// Writes exchanges to size-rotated WARC files in one directory.
//
// Thread-safety: all methods may be called from several threads; an internal
// mutex orders writes (records are built and compressed outside the lock).
// For throughput give each fetch thread its own writer and prefix.
//
// A failed write leaves the writer failed: every later call returns the same
// error (the file may end in a partial record; earlier records stay readable).
class WarcWriter {
 public:
  // Creates the directory if needed; the first file (starting with a
  // warcinfo record) is created by the first WriteExchange, so a writer that
  // writes nothing leaves no file. InvalidArgument for bad options, IoError
  // if the directory cannot be created or written to.
  static Result<std::unique_ptr<WarcWriter>> Open(WarcOptions options);
  ~WarcWriter();  // Close(), ignoring its status
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // Appends request, response and (if outlinks) metadata records, all in the
  // same file, rotating first if needed. InvalidArgument for a bad target URI,
  // IP or outlink (nothing is written); IoError on a write failure.
  Status WriteExchange(const WarcExchange& exchange);

  // Pushes written bytes to the OS and fsyncs the current file.
  Status Flush();

  // Flushes and closes the current file. Later writes fail; calling Close
  // again returns OK.
  Status Close();

  // Path of the file being written (the last one after Close); "" before
  // the first exchange.
  std::string current_path() const;
  // Records written (warcinfo included) over all files.
  uint64_t records() const;
  // Bytes written (compressed size) over all files.
  uint64_t bytes() const;
  // Number of files started.
  uint64_t files() const;

 private:
  explicit WarcWriter(WarcOptions options);
  Status StartFile();                                             // REQUIRES: mu_ held
  Status CloseFile();                                             // REQUIRES: mu_ held
  Status Append(const std::string& data, uint64_t record_count);  // REQUIRES: mu_

  const WarcOptions options_;
  mutable std::mutex mu_;
  std::FILE* file_ = nullptr;
  std::string path_;
  uint64_t file_bytes_ = 0;  // in the current file
  bool file_has_exchange_ = false;
  uint64_t serial_ = 0;
  uint64_t records_ = 0;
  uint64_t bytes_ = 0;
  uint64_t files_ = 0;
  bool closed_ = false;
  Status failure_;
};

}  // namespace crawlfront
