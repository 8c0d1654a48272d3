#!/usr/bin/env bash
# Browser tests of the page: starts `gpusizer serve` on a free loopback port and drives Debian's
# chromium with playwright-core (web/tests/*.test.mjs). Screenshots go to web/test-results/.
# Builds what is missing first: web/node_modules (npm ci), web/dist (npm run build), and the
# gpusizer binary with the bundle compiled in.
# Env: GPUSIZER_BUILD_DIR (default build-test if present, else build), GPUSIZER_BIN (default
# <build dir>/gpusizer), CHROMIUM (default /usr/bin/chromium).
# Prints "N passed, M failed" last; exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "web tests need Node.js and npm"; echo "0 passed, 1 failed"; exit 1
fi
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "installing chromium (Debian package) for the browser tests"
  $sudo_cmd apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi
if [ ! -d web/node_modules/playwright-core ] || [ ! -f web/dist/index.html ]; then
  scripts/build_web.sh
fi
build="${GPUSIZER_BUILD_DIR:-}"
if [ -z "$build" ]; then
  if [ -f build-test/CMakeCache.txt ]; then build=build-test; else build=build; fi
fi
if [ -z "${GPUSIZER_BIN:-}" ]; then
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  # Recompiles the embedded page when web/dist changed; a no-op otherwise.
  cmake --build "$build" --target gpusizer >/dev/null
  export GPUSIZER_BIN="$root/$build/gpusizer"
fi
export CHROMIUM="$chromium"
cd web
exec node tests/run.mjs
