#pragma once
// Headless Chromium and a plain HTTP GET for the dashboard tests. Chromium
// runs with a fresh profile, no proxy, and a host resolver that resolves
// every name to nothing, so it can only ever load 127.0.0.1 URLs.

#include <chrono>
#include <string>

#include "crawlfront/common/status.h"

namespace crawlfront::ui {

// Path of the chromium binary: $CRAWLFRONT_CHROMIUM when set, else the first
// "chromium" or "chromium-browser" in PATH. Empty when none is found (tests
// then skip).
std::string FindChromium();

// What one headless Chromium run should do with a page.
struct BrowserRun {
  std::string chromium;     // from FindChromium()
  std::string url;          // must start with "http://127.0.0.1:"
  std::string scratch_dir;  // profile, HOME and logs go below it
  // Virtual time the page may run before the DOM is dumped or the screenshot
  // taken (the dashboard polls every 1.5 s). Default: 5000 ms.
  int virtual_time_ms = 5000;
  // Wall-clock bound on the whole run; Chromium is killed after it.
  std::chrono::seconds timeout{60};
};

// Loads the page, lets its scripts run, and returns the serialized DOM
// (chromium --dump-dom). InvalidArgument for a URL that is not on 127.0.0.1;
// Unavailable (with the tail of its stderr) when Chromium cannot start,
// times out, exits non-zero or dumps nothing (the page did not load).
Result<std::string> DumpDom(const BrowserRun& run);

// Same, but writes a PNG screenshot of a `width`x`height` window to `png`.
Status Screenshot(const BrowserRun& run, const std::string& png, int width, int height);

// GET http://127.0.0.1:<port><path> with libcurl (no proxy, 10 s timeout).
// Returns the body of a 200 reply; Unavailable for a network failure,
// Internal for any other status.
Result<std::string> HttpGet(int port, const std::string& path);

}  // namespace crawlfront::ui
