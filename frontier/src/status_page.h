#pragma once
// Embedded dashboard assets (private to the status server).

#include <string>
#include <string_view>

#include "crawlfront/frontier/status_snapshot.h"

namespace crawlfront {

struct EmbeddedAsset;  // status_assets_gen.h, generated at build time

// The embedded file called `name` (e.g. "dashboard.js"), or nullptr.
const EmbeddedAsset* FindEmbeddedAsset(std::string_view name);

// The dashboard page; with `snapshot` == nullptr an empty shell that shows
// data only once the script has fetched it (used when a token is required,
// since the page itself is served without one).
std::string RenderDashboardPage(const StatusSnapshot* snapshot);

}  // namespace crawlfront
