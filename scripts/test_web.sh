#!/usr/bin/env bash
# Browser tests of the page: starts `gpusizer serve` on a free loopback port and drives Debian's
# chromium (apt-get install chromium) with playwright-core. Screenshots: web/test-results/.
# Env: GPUSIZER_BIN (default build/gpusizer), CHROMIUM (default /usr/bin/chromium).
# Prints "N passed, M failed" last; exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/web"
if [ ! -d node_modules/playwright-core ]; then npm ci --no-audit --no-fund; fi
if [ ! -f dist/index.html ]; then
  echo "web/dist is missing: run scripts/build_web.sh and rebuild gpusizer first" >&2
  exit 1
fi
export GPUSIZER_BIN="${GPUSIZER_BIN:-$root/build/gpusizer}"
if [ ! -x "$GPUSIZER_BIN" ]; then echo "no gpusizer binary at $GPUSIZER_BIN" >&2; exit 1; fi
if ! "$GPUSIZER_BIN" serve --help >/dev/null 2>&1; then
  echo "$GPUSIZER_BIN has no 'serve' command" >&2
  exit 1
fi
exec node tests/run.mjs
