#!/usr/bin/env bash
# Server cost per POST /api/v1/estimate (issue 18 aims at under 20 us of server CPU): starts
# `gpusizer serve` on a free loopback port as its own process and sends REQUESTS requests from
# bench/load_client.cc (gpusizer_load, another process) over two keep-alive connections, so that
# the client's work is not counted. Two figures, neither a test (it asserts nothing):
#   - time: the server process's user + system CPU over the requests (/proc/PID/stat), in us;
#   - instructions (COUNT=instructions): the server under callgrind, once with REQUESTS and once
#     with 2 x REQUESTS requests; the difference over REQUESTS is the instructions of one request
#     with start-up and shutdown cancelled out (repeatable on a busy machine, unlike the time).
#   bench/http_estimate_cpu.sh [BUILD_DIR] [REQUESTS] [BODY]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
requests=${2:-20000}
body=${3:-'{"model": "llama-2-7b", "gpu": "a100-sxm4-80gb", "batch": 8, "seq_len": 4096}'}
for program in "$build/gpusizer" "$build/gpusizer_load"; do
  [ -x "$program" ] || { echo "http_estimate_cpu: $program was not built" >&2; exit 1; }
done
work=$(mktemp -d)
server=""
stop_server() {
  if [ -n "$server" ]; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# Starts the server (under the command prefix "$@", e.g. valgrind) and sets $server and $port.
start_server() {
  : >"$work/log"
  "$@" "$build/gpusizer" serve --port 0 --threads 2 >"$work/log" 2>&1 &
  server=$!
  port=""
  for _ in $(seq 600); do
    port=$(grep -oE '127\.0\.0\.1:[0-9]+' "$work/log" | head -1 | cut -d: -f2 || true)
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  echo "http_estimate_cpu: the server did not start" >&2
  cat "$work/log" >&2
  exit 1
}

load() {  # load N: N requests; prints the client's table
  "$build/gpusizer_load" --port "$port" --connections 2 --seconds 60 --max-requests "$1" \
    --body "$body"
}

if [ "${COUNT:-time}" = instructions ]; then
  command -v valgrind >/dev/null || { echo "http_estimate_cpu: valgrind is not installed" >&2; exit 1; }
  totals=()
  for n in "$requests" "$((2 * requests))"; do
    start_server valgrind --tool=callgrind --callgrind-out-file="$work/cg.$n"
    load "$n" >/dev/null
    stop_server
    totals+=("$(awk '/^(summary|totals):/ {print $2; exit}' "$work/cg.$n")")
  done
  echo "server instructions per request: $(((totals[1] - totals[0]) / requests)) ($requests and $((2 * requests)) requests)"
  exit 0
fi

start_server
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
load 500 >/dev/null  # warm-up: catalog tables, first-touch pages
before=$(cpu_ticks)
table=$(load "$requests")
after=$(cpu_ticks)
echo "$table"
done_requests=$(echo "$table" | tail -1 | awk -F'|' '{gsub(/ /, "", $3); print $3}')
awk -v t="$((after - before))" -v hz="$ticks" -v n="$done_requests" 'BEGIN {
  printf "server CPU per request: %.1f us (%d requests, %.2f s of server CPU)\n",
         t / hz / n * 1e6, n, t / hz }'
