#!/usr/bin/env bash
# Installs what gpusizer needs from Debian 12's packages, skipping what is already there.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev libmicrohttpd-dev clang
          libclang-rt-14-dev valgrind universal-ctags)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
