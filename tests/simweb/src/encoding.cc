#include "crawlfront/simweb/encoding.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace crawlfront::simweb {
namespace {

// Settings that keep large pages cheap to serve; ratio matters little here.
constexpr int kGzipLevel = 6;
constexpr int kBrotliQuality = 5;
constexpr int kZstdLevel = 3;
// Decode refuses to produce more than this (a test helper, not a bomb sink).
constexpr size_t kMaxDecodedBytes = size_t{64} << 20;

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// A qvalue ("0", "0.5", "1.000") in thousandths, or -1 if malformed.
int ParseQ(std::string_view q) {
  if (q.empty() || (q[0] != '0' && q[0] != '1') || q.size() > 5) return -1;
  if (q.size() > 1 && q[1] != '.') return -1;
  int value = (q[0] - '0') * 1000;
  int scale = 100;
  for (char c : q.substr(std::min<size_t>(2, q.size()))) {
    if (c < '0' || c > '9') return -1;
    value += (c - '0') * scale;
    scale /= 10;
  }
  return value > 1000 ? -1 : value;
}

// Accept-Encoding as coding name -> weight in thousandths. Elements with a
// malformed weight are ignored.
std::map<std::string, int> ParseAccept(std::string_view header) {
  std::map<std::string, int> weights;
  size_t start = 0;
  while (start <= header.size()) {
    size_t end = std::min(header.find(',', start), header.size());
    std::string_view element = header.substr(start, end - start);
    start = end + 1;
    size_t semi = element.find(';');
    std::string name = Trim(element.substr(0, semi));
    int q = 1000;
    if (semi != std::string_view::npos) {
      std::string param = Trim(element.substr(semi + 1));
      q = param.starts_with("q=") ? ParseQ(param.substr(2)) : -1;
    }
    if (name == "x-gzip") name = "gzip";
    if (!name.empty() && q >= 0) weights[name] = q;
  }
  return weights;
}

std::string Gzip(std::string_view body) {
  z_stream zs{};
  deflateInit2(&zs, kGzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, body.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);  // deflateBound guarantees room: one call ends the stream
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string Brotli(std::string_view body) {
  size_t size = BrotliEncoderMaxCompressedSize(body.size());
  std::string out(size == 0 ? body.size() + 1024 : size, '\0');
  size = out.size();
  BrotliEncoderCompress(kBrotliQuality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, body.size(),
                        reinterpret_cast<const uint8_t*>(body.data()), &size,
                        reinterpret_cast<uint8_t*>(out.data()));
  out.resize(size);
  return out;
}

std::string Zstd(std::string_view body) {
  std::string out(ZSTD_compressBound(body.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), body.data(), body.size(), kZstdLevel);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

Result<std::string> Gunzip(std::string_view data) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return Status::Internal("inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  int rc = Z_OK;
  char chunk[16384];
  while (rc == Z_OK && out.size() <= kMaxDecodedBytes) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof(chunk);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - zs.avail_out);
  }
  const bool whole = rc == Z_STREAM_END && zs.avail_in == 0;
  inflateEnd(&zs);
  if (!whole) return Status::Corruption("gzip: bad or truncated stream");
  return out;
}

Result<std::string> Unbrotli(std::string_view data) {
  BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  size_t avail_in = data.size();
  const uint8_t* next_in = reinterpret_cast<const uint8_t*>(data.data());
  std::string out;
  BrotliDecoderResult rc = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
  uint8_t chunk[16384];
  while (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT && out.size() <= kMaxDecodedBytes) {
    size_t avail_out = sizeof(chunk);
    uint8_t* next_out = chunk;
    rc = BrotliDecoderDecompressStream(state, &avail_in, &next_in, &avail_out, &next_out,
                                       nullptr);
    out.append(reinterpret_cast<char*>(chunk), sizeof(chunk) - avail_out);
  }
  BrotliDecoderDestroyInstance(state);
  if (rc != BROTLI_DECODER_RESULT_SUCCESS || avail_in != 0) {
    return Status::Corruption("br: bad or truncated stream");
  }
  return out;
}

Result<std::string> Unzstd(std::string_view data) {
  ZSTD_DStream* stream = ZSTD_createDStream();
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  std::string out;
  size_t rc = 1;  // non-zero: a frame is still open
  char chunk[16384];
  while (rc != 0 && !ZSTD_isError(rc) && out.size() <= kMaxDecodedBytes) {
    ZSTD_outBuffer buf{chunk, sizeof(chunk), 0};
    rc = ZSTD_decompressStream(stream, &buf, &in);
    out.append(chunk, buf.pos);
    if (rc != 0 && in.pos == in.size && buf.pos < buf.size) break;  // input ended mid-frame
  }
  ZSTD_freeDStream(stream);
  if (rc != 0 || in.pos != in.size) return Status::Corruption("zstd: bad or truncated stream");
  return out;
}

}  // namespace

std::string_view CodingName(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::kIdentity: return "identity";
    case ContentCoding::kGzip: return "gzip";
    case ContentCoding::kBrotli: return "br";
    case ContentCoding::kZstd: return "zstd";
  }
  return "identity";
}

Result<std::vector<ContentCoding>> ParseCodingList(std::string_view list) {
  std::vector<ContentCoding> out;
  size_t start = 0;
  while (!list.empty() && start <= list.size()) {
    size_t end = std::min(list.find(',', start), list.size());
    std::string name = Trim(list.substr(start, end - start));
    start = end + 1;
    bool known = false;
    for (ContentCoding c : {ContentCoding::kGzip, ContentCoding::kBrotli, ContentCoding::kZstd}) {
      if (name != CodingName(c)) continue;
      if (std::find(out.begin(), out.end(), c) != out.end()) {
        return Status::InvalidArgument("encoding '" + name + "' given twice");
      }
      out.push_back(c);
      known = true;
    }
    if (!known) return Status::InvalidArgument("unknown encoding '" + name + "' (gzip, br, zstd)");
  }
  return out;
}

ContentCoding ChooseCoding(std::string_view accept_encoding,
                           const std::vector<ContentCoding>& offered) {
  const std::map<std::string, int> weights = ParseAccept(accept_encoding);
  auto star = weights.find("*");
  ContentCoding best = ContentCoding::kIdentity;
  int best_q = 0;
  for (ContentCoding c : offered) {
    auto it = weights.find(std::string(CodingName(c)));
    int q = it != weights.end() ? it->second : star != weights.end() ? star->second : 0;
    if (q > best_q) {
      best = c;
      best_q = q;
    }
  }
  return best;
}

std::string Encode(ContentCoding coding, std::string_view body) {
  switch (coding) {
    case ContentCoding::kGzip: return Gzip(body);
    case ContentCoding::kBrotli: return Brotli(body);
    case ContentCoding::kZstd: return Zstd(body);
    case ContentCoding::kIdentity: break;
  }
  return std::string(body);
}

Result<std::string> Decode(ContentCoding coding, std::string_view data) {
  switch (coding) {
    case ContentCoding::kGzip: return Gunzip(data);
    case ContentCoding::kBrotli: return Unbrotli(data);
    case ContentCoding::kZstd: return Unzstd(data);
    case ContentCoding::kIdentity: break;
  }
  return std::string(data);
}

}  // namespace crawlfront::simweb
