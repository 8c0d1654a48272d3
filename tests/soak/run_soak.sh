#!/usr/bin/env bash
# Soaks `gpusizer serve` on 127.0.0.1 for GPUSIZER_SOAK_SECONDS (default 20) with
# GPUSIZER_SOAK_THREADS (default 4) client threads sending valid and malformed requests; prints
# requests served and the server's RSS before and after; exits 0 on pass, 1 on fail.
# Usage: tests/soak/run_soak.sh [build-dir]   (default build-test if configured, else build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-}"
if [ -z "$build" ]; then
  if [ -f "$root/build-test/CMakeCache.txt" ]; then build="$root/build-test"; else build="$root/build"; fi
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target gpusizer gpusizer_soak >/dev/null
exec "$build/gpusizer_soak" "$build/gpusizer"
