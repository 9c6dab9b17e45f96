#include "crawlfront/worker/warc.h"

#include <libdeflate.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <utility>

namespace crawlfront {

// ---------------------------------------------------------------- SHA-1

namespace {

// Fetched once: an EVP_sha1() digest is looked up again on every init.
const EVP_MD* Sha1Md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA1", nullptr);
  return md;
}

}  // namespace

Sha1::Sha1() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || Sha1Md() == nullptr ||
      !EVP_DigestInit_ex2(ctx_, Sha1Md(), nullptr)) {
    throw std::runtime_error("OpenSSL SHA-1 is unavailable");
  }
}

Sha1::~Sha1() { EVP_MD_CTX_free(ctx_); }

void Sha1::Update(std::string_view data) {
  EVP_DigestUpdate(ctx_, data.data(), data.size());
}

std::array<uint8_t, 20> Sha1::Final() {
  std::array<uint8_t, 20> out{};
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx_, out.data(), &n);
  return out;
}

std::string Base32(const uint8_t* data, size_t size) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < size; ++i) {
    acc = (acc << 8) | data[i];
    bits += 8;
    while (bits >= 5) out += kAlphabet[(acc >> (bits - 5)) & 31], bits -= 5;
  }
  if (bits > 0) out += kAlphabet[(acc << (5 - bits)) & 31];
  while (out.size() % 8 != 0) out += '=';
  return out;
}

std::string WarcSha1Digest(std::string_view data) {
  Sha1 sha;
  sha.Update(data);
  auto digest = sha.Final();
  return "sha1:" + Base32(digest.data(), digest.size());
}

// ---------------------------------------------------------------- records

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

std::string FormatUtc(std::chrono::system_clock::time_point t, const char* format) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

std::string WarcDate(std::chrono::system_clock::time_point t) {
  return FormatUtc(t, "%Y-%m-%dT%H:%M:%SZ");
}

// "<urn:uuid:...>", a random (version 4) UUID.
std::string NewRecordId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~uint64_t{0xF000}) | 0x4000;                      // version 4
  lo = (lo & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // variant 10
  char buf[64];
  std::snprintf(buf, sizeof buf, "<urn:uuid:%08x-%04x-%04x-%04x-%012llx>",
                static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

// True if `s` is non-empty and has no whitespace or control characters, so it
// can stand alone as a WARC header value or a warc-fields value.
bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (c <= 0x20 || c == 0x7f) return false;
  }
  return true;
}

// A complete uncompressed record: version, headers, Content-Length, the block
// (head + body) and the two CRLFs that end a record.
std::string BuildRecord(const Headers& headers, std::string_view head,
                        std::string_view body) {
  std::string r = "WARC/1.1\r\n";
  for (const auto& [name, value] : headers) r += name + ": " + value + "\r\n";
  r += "Content-Length: " + std::to_string(head.size() + body.size()) + "\r\n\r\n";
  r.append(head).append(body).append("\r\n\r\n");
  return r;
}

std::string BlockDigest(std::string_view head, std::string_view body) {
  Sha1 sha;
  sha.Update(head);
  sha.Update(body);
  auto digest = sha.Final();
  return "sha1:" + Base32(digest.data(), digest.size());
}

// One compressor per thread and level: setting one up costs more than
// compressing a small record (zlib's deflateInit2 per record was most of a
// page's WARC CPU).
libdeflate_compressor* CompressorFor(int level) {
  struct Cache {
    std::array<libdeflate_compressor*, 10> by_level{};
    ~Cache() {
      for (auto* c : by_level) libdeflate_free_compressor(c);
    }
  };
  thread_local Cache cache;
  libdeflate_compressor*& c = cache.by_level[level];
  if (c == nullptr) c = libdeflate_alloc_compressor(level);
  return c;
}

// Appends `in` to *out as one complete gzip member.
Status AppendGzipMember(std::string_view in, int level, std::string* out) {
  libdeflate_compressor* c = CompressorFor(level);
  if (c == nullptr) return Status::Internal("cannot allocate a gzip compressor");
  size_t start = out->size();
  out->resize(start + libdeflate_gzip_compress_bound(c, in.size()));
  size_t n = libdeflate_gzip_compress(c, in.data(), in.size(), out->data() + start,
                                      out->size() - start);
  out->resize(start + n);
  if (n == 0) return Status::Internal("gzip compression failed");
  return Status::Ok();
}

Status AppendRecord(const std::string& record, int level, std::string* out) {
  if (level == 0) {
    out->append(record);
    return Status::Ok();
  }
  return AppendGzipMember(record, level, out);
}

std::string WarcinfoBlock(const WarcOptions& o) {
  std::string b = "software: " + o.software + "\r\nformat: WARC File Format 1.1\r\n" +
                  "conformsTo: http://iipc.github.io/warc-specifications/"
                  "specifications/warc-format/warc-1.1/\r\n";
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != 0) {
    b += "hostname: " + std::string(host) + "\r\n";
  }
  if (!o.operator_info.empty()) b += "operator: " + o.operator_info + "\r\n";
  if (!o.description.empty()) b += "description: " + o.description + "\r\n";
  return b;
}

Status ValidateExchange(const WarcExchange& ex) {
  if (!IsToken(ex.target_uri)) {
    return Status::InvalidArgument(
        "WARC target URI is empty or has whitespace/control "
        "characters");
  }
  if (!ex.ip_address.empty() && !IsToken(ex.ip_address)) {
    return Status::InvalidArgument("WARC IP address has whitespace/control characters");
  }
  for (const std::string& link : ex.outlinks) {
    if (!IsToken(link)) {
      return Status::InvalidArgument(
          "outlink is empty or has whitespace/control "
          "characters");
    }
  }
  return Status::Ok();
}

constexpr const char* kNotModifiedProfile =
    "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

// Request, response (or revisit) and metadata records of one exchange,
// compressed.
Status BuildExchange(const WarcExchange& ex, int level, std::string* out,
                     uint64_t* record_count) {
  const std::string date = WarcDate(ex.fetch_time);
  const std::string response_id = NewRecordId();
  auto http = [&](const char* type, const std::string& id, std::string_view head,
                  std::string_view body) {
    const bool revisit = id == response_id && ex.not_modified;
    Headers h = {{"WARC-Type", revisit ? "revisit" : type},
                 {"WARC-Record-ID", id},
                 {"WARC-Date", date},
                 {"WARC-Target-URI", ex.target_uri}};
    if (id != response_id) h.push_back({"WARC-Concurrent-To", response_id});
    if (!ex.ip_address.empty()) h.push_back({"WARC-IP-Address", ex.ip_address});
    if (revisit) h.push_back({"WARC-Profile", kNotModifiedProfile});
    h.push_back({"WARC-Block-Digest", BlockDigest(head, body)});
    // A revisit has no payload of its own to digest.
    if (!revisit) h.push_back({"WARC-Payload-Digest", WarcSha1Digest(body)});
    if (id == response_id && ex.truncated) h.push_back({"WARC-Truncated", "length"});
    h.push_back({"Content-Type", std::string("application/http;msgtype=") + type});
    return BuildRecord(h, head, body);
  };
  CRAWLFRONT_RETURN_IF_ERROR(AppendRecord(
      http("request", NewRecordId(), ex.request_head, ex.request_body), level, out));
  CRAWLFRONT_RETURN_IF_ERROR(AppendRecord(
      http("response", response_id, ex.response_head, ex.response_body), level, out));
  *record_count = 2;
  if (ex.outlinks.empty()) return Status::Ok();
  std::string block;
  for (const std::string& link : ex.outlinks) block += "outlink: " + link + "\r\n";
  Headers h = {{"WARC-Type", "metadata"},
               {"WARC-Record-ID", NewRecordId()},
               {"WARC-Date", date},
               {"WARC-Target-URI", ex.target_uri},
               {"WARC-Concurrent-To", response_id},
               {"WARC-Block-Digest", BlockDigest(block, "")},
               {"Content-Type", "application/warc-fields"}};
  *record_count = 3;
  return AppendRecord(BuildRecord(h, block, ""), level, out);
}

}  // namespace

// ---------------------------------------------------------------- writer

WarcWriter::WarcWriter(WarcOptions options) : options_(std::move(options)) {}

WarcWriter::~WarcWriter() { Close().IgnoreError(); }

Result<std::unique_ptr<WarcWriter>> WarcWriter::Open(WarcOptions options) {
  if (options.dir.empty()) return Status::InvalidArgument("WARC dir is empty");
  if (options.gzip_level < 0 || options.gzip_level > 9) {
    return Status::InvalidArgument("WARC gzip_level must be in [0, 9]");
  }
  if (options.max_file_bytes == 0) {
    return Status::InvalidArgument("WARC max_file_bytes must be > 0");
  }
  if (!IsToken(options.prefix) || options.prefix.find('/') != std::string::npos) {
    return Status::InvalidArgument("WARC prefix must be a plain file name part");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) {
    return Status::IoError("cannot create WARC dir '" + options.dir +
                           "': " + ec.message());
  }
  // The first file is created with the first exchange (a worker that
  // fetches nothing leaves no warcinfo-only file); a directory that cannot
  // hold it still fails here.
  if (::access(options.dir.c_str(), W_OK | X_OK) != 0) {
    return Status::IoError("WARC dir '" + options.dir + "' is not writable: " +
                           std::strerror(errno));
  }
  return std::unique_ptr<WarcWriter>(new WarcWriter(std::move(options)));
}

Status WarcWriter::StartFile() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch())
          .count() %
      1000;
  char millis[8];
  std::snprintf(millis, sizeof millis, "%03d", static_cast<int>(ms));
  const std::string stamp = FormatUtc(now, "%Y%m%d%H%M%S") + millis;
  const char* ext = options_.gzip_level == 0 ? ".warc" : ".warc.gz";
  for (int attempt = 0; attempt < 1000 && file_ == nullptr; ++attempt) {
    char serial[32];
    std::snprintf(serial, sizeof serial, "%05llu",
                  static_cast<unsigned long long>(serial_++));
    std::string name = options_.prefix + "-" + stamp + "-" + serial + ext;
    path_ = (std::filesystem::path(options_.dir) / name).string();
    file_ = std::fopen(path_.c_str(), "wbx");  // x: never overwrite another writer's file
    if (file_ == nullptr && errno != EEXIST) break;
  }
  if (file_ == nullptr) {
    return failure_ = Status::IoError("cannot create WARC file '" + path_ +
                                      "': " + std::strerror(errno));
  }
  ++files_;
  file_bytes_ = 0;
  file_has_exchange_ = false;
  Headers h = {{"WARC-Type", "warcinfo"},
               {"WARC-Record-ID", NewRecordId()},
               {"WARC-Date", WarcDate(now)},
               {"WARC-Filename", std::filesystem::path(path_).filename().string()},
               {"Content-Type", "application/warc-fields"}};
  std::string out;
  CRAWLFRONT_RETURN_IF_ERROR(AppendRecord(BuildRecord(h, WarcinfoBlock(options_), ""),
                                          options_.gzip_level, &out));
  return Append(out, 1);
}

Status WarcWriter::Append(const std::string& data, uint64_t record_count) {
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    return failure_ = Status::IoError("write to '" + path_ +
                                      "' failed: " + std::strerror(errno));
  }
  file_bytes_ += data.size();
  bytes_ += data.size();
  records_ += record_count;
  return Status::Ok();
}

Status WarcWriter::CloseFile() {
  if (file_ == nullptr) return Status::Ok();
  bool ok = std::fflush(file_) == 0 && ::fsync(fileno(file_)) == 0;
  ok = std::fclose(file_) == 0 && ok;
  file_ = nullptr;
  if (!ok) {
    return failure_ =
               Status::IoError("closing '" + path_ + "' failed: " + std::strerror(errno));
  }
  return Status::Ok();
}

Status WarcWriter::WriteExchange(const WarcExchange& exchange) {
  CRAWLFRONT_RETURN_IF_ERROR(ValidateExchange(exchange));
  std::string out;
  uint64_t record_count = 0;
  CRAWLFRONT_RETURN_IF_ERROR(
      BuildExchange(exchange, options_.gzip_level, &out, &record_count));
  std::lock_guard lock(mu_);
  if (!failure_.ok()) return failure_;
  if (closed_) return Status::InvalidArgument("WARC writer is closed");
  if (file_ == nullptr) {
    CRAWLFRONT_RETURN_IF_ERROR(StartFile());
  } else if (file_has_exchange_ && file_bytes_ + out.size() > options_.max_file_bytes) {
    CRAWLFRONT_RETURN_IF_ERROR(CloseFile());
    CRAWLFRONT_RETURN_IF_ERROR(StartFile());
  }
  file_has_exchange_ = true;
  return Append(out, record_count);
}

Status WarcWriter::Flush() {
  std::lock_guard lock(mu_);
  if (!failure_.ok()) return failure_;
  if (file_ == nullptr) return Status::Ok();
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) {
    return failure_ = Status::IoError("flushing '" + path_ +
                                      "' failed: " + std::strerror(errno));
  }
  return Status::Ok();
}

Status WarcWriter::Close() {
  std::lock_guard lock(mu_);
  if (closed_) return Status::Ok();
  closed_ = true;
  Status st = CloseFile();
  return failure_.ok() ? st : failure_;
}

std::string WarcWriter::current_path() const {
  std::lock_guard lock(mu_);
  return path_;
}

uint64_t WarcWriter::records() const {
  std::lock_guard lock(mu_);
  return records_;
}

uint64_t WarcWriter::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

uint64_t WarcWriter::files() const {
  std::lock_guard lock(mu_);
  return files_;
}

}  // namespace crawlfront
