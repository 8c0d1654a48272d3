#!/usr/bin/env bash
# Installs what the web page needs from Debian 12's packages, skipping what is already there:
#   scripts/install_web_deps.sh            Node.js and npm (to build web/dist)
#   scripts/install_web_deps.sh --browser  also Chromium and a CJK font (the browser tests drive
#                                          Chromium; the Chinese page needs glyphs to be checked)
# Exits non-zero when a package cannot be installed; callers decide whether that is fatal.
set -euo pipefail
packages=(nodejs npm)
[ "${1:-}" = "--browser" ] && packages+=(chromium fonts-noto-cjk)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm installed some other way (nvm, a tarball) count as present.
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for p in "${missing[@]}"; do [ "$p" = nodejs ] || [ "$p" = npm ] || filtered+=("$p"); done
  missing=("${filtered[@]}")
fi
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
    "${missing[@]}" >/dev/null
fi
