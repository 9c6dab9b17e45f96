#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and crawls the
# bundled synthetic web (simweb) on 127.0.0.1 with a frontier (and its status
# page) and a worker, printing where to look. Extra arguments go to
# `crawlctl run` (see build/bin/crawlctl run --help), e.g.:
#   scripts/demo.sh --hosts 50 --pages 100 --workers 2 --linger 300
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
TARGETS="crawl-frontier crawl-worker crawlctl simweb" scripts/build.sh
# Each demo starts afresh unless asked to continue the last one.
fresh=--fresh
for a in "$@"; do [ "$a" = --resume ] && fresh=; done
exec "$BUILD_DIR/bin/crawlctl" run --workdir demo-run $fresh --hosts 20 --pages 50 --workers 2 \
  --delay-ms 100 "$@"
