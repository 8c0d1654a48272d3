#!/usr/bin/env bash
# Loopback load test of POST /api/v1/estimate: requests/s and latency percentiles.
# Usage: scripts/load_test.sh [build dir] [gpusizer_load flags...]
#   (default: 4 connections, 5 s, an in-process server on a free 127.0.0.1 port)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
cmake --build "$build" --target gpusizer_load >/dev/null
"$build/gpusizer_load" "$@"
