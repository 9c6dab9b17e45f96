#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test.
#   scripts/test.sh                      # normal build in build/
#   BUILD_DIR=build-asan scripts/test.sh -DCRAWLFRONT_SANITIZE=address,undefined
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh "$@"
BUILD_DIR=${BUILD_DIR:-build}
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" --timeout 900
