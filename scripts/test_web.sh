#!/usr/bin/env bash
# Browser tests of the page: starts `gpusizer serve` on a free loopback port and drives Debian's
# chromium with playwright-core (web/tests/*.test.mjs). Screenshots go to web/test-results/.
# Builds what is missing first: the Debian packages (scripts/install_web_deps.sh --browser),
# web/node_modules (npm ci), web/dist (npm run build), and the gpusizer binary with the bundle
# compiled in.
# Env: GPUSIZER_BUILD_DIR (default build-test if present, else build), GPUSIZER_BIN (default
# <build dir>/gpusizer), CHROMIUM (default /usr/bin/chromium).
# Prints "N passed, M failed" last; exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Node, npm, Chromium and a CJK font (the Chinese screenshots and checks need its glyphs).
if ! scripts/install_web_deps.sh --browser; then
  echo "web tests need Node.js, npm, chromium and fonts-noto-cjk (Debian packages)"
  echo "0 passed, 1 failed"; exit 1
fi
chromium="${CHROMIUM:-/usr/bin/chromium}"
# npm ci when node_modules is missing or older than the lock file; the bundle is always rebuilt
# (under a second), so the binary never embeds a page older than web/src.
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  scripts/build_web.sh
else
  (cd web && npm run build --silent)
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
