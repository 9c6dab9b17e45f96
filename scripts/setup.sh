#!/usr/bin/env bash
# Installs every Debian package crawlfront needs. Idempotent: installs only
# what is missing, so a second run costs a few seconds.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev
  libboost1.81-dev libboost-url1.81-dev libboost-json1.81-dev
  libboost-program-options1.81-dev
  librocksdb-dev libcurl4-openssl-dev libgumbo-dev libxxhash-dev libre2-dev
  libtomlplusplus-dev libspdlog-dev libfmt-dev zlib1g-dev libpsl-dev libidn2-dev
  libxml2-dev libexpat1-dev libbrotli-dev libzstd-dev libdeflate-dev libssl-dev libjemalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  redis-tools redis-server wget2 python3 prometheus
  chromium fonts-dejavu-core
  nginx openssl
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
