#!/usr/bin/env bash
# Configures and builds crawlfront into build/ (or $BUILD_DIR).
# Extra arguments go to cmake's configure step, e.g. -DCRAWLFRONT_SANITIZE=address,undefined
# TARGETS="a b" builds only those targets (default: everything).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
GEN=()
if command -v ninja >/dev/null && [ ! -f "$BUILD_DIR/Makefile" ]; then GEN=(-G Ninja); fi
cmake -S . -B "$BUILD_DIR" "${GEN[@]}" "$@" >/dev/null
TARGET_ARGS=()
for t in ${TARGETS:-}; do TARGET_ARGS+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j "$JOBS" "${TARGET_ARGS[@]}"
