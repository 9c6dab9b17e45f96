#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test.
#   scripts/test.sh                      # normal build in build/
#   BUILD_DIR=build-asan scripts/test.sh -DCRAWLFRONT_SANITIZE=address,undefined
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh "$@"
BUILD_DIR=${BUILD_DIR:-build}
# An independent WARC reader for tests/e2e (npm's warcio); optional: the test
# skips itself without node.
if command -v npm >/dev/null && [ ! -d "$BUILD_DIR/node/node_modules/warcio" ]; then
  npm install --prefix "$BUILD_DIR/node" --no-audit --no-fund --silent warcio@2.4.11 ||
    echo "test.sh: could not install warcio; the WARC reader test will be skipped"
fi
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" --timeout 900
