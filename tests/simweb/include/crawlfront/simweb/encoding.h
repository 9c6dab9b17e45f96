#pragma once
// HTTP content codings for simweb: choosing one from a request's
// Accept-Encoding (RFC 9110 12.5.3) and encoding bodies with gzip (zlib),
// br (brotli) or zstd. Pure functions; thread-safe. Decode exists so tests
// can check what the server sent.

#include <string>
#include <string_view>
#include <vector>

#include "crawlfront/common/status.h"

namespace crawlfront::simweb {

enum class ContentCoding { kIdentity, kGzip, kBrotli, kZstd };

// "identity", "gzip", "br", "zstd": the token of the Content-Encoding header.
std::string_view CodingName(ContentCoding coding);

// Parses a comma-separated list of coding names ("gzip,br,zstd"), in the
// server's order of preference. InvalidArgument for an unknown or repeated
// name or "identity" (never offered: it is what no coding means).
Result<std::vector<ContentCoding>> ParseCodingList(std::string_view list);

// The coding of a response: of the `offered` codings, the one the request's
// Accept-Encoding value weights highest (q > 0; an absent coding gets the
// weight of "*", else 0; "x-gzip" counts as gzip), ties going to the earlier
// offered one. kIdentity when none is acceptable or the header is empty.
ContentCoding ChooseCoding(std::string_view accept_encoding,
                           const std::vector<ContentCoding>& offered);

// `body` encoded with `coding` (a copy for kIdentity). Deterministic: the
// same body gives the same bytes (the gzip header has no name and no time).
std::string Encode(ContentCoding coding, std::string_view body);

// The inverse of Encode for any valid stream of the coding; Corruption for
// bad or truncated input.
Result<std::string> Decode(ContentCoding coding, std::string_view data);

}  // namespace crawlfront::simweb
