#!/usr/bin/env bash
# Server cost per POST /api/v1/estimate (issue 18 aims at under 20 us of server CPU): starts
# `gpusizer serve` on a free loopback port as its own process and sends REQUESTS requests from
# bench/load_client.cc (gpusizer_load, another process) over two keep-alive connections, so that
# the client's work is not counted. Two figures, neither a test (it asserts nothing):
#   - time: the server process's user + system CPU over the requests (/proc/PID/stat), in us;
#   - instructions (COUNT=instructions): the server under callgrind, once with REQUESTS and once
#     with 2 x REQUESTS requests; the difference over REQUESTS is the instructions of one request
#     with start-up and shutdown cancelled out (repeatable on a busy machine, unlike the time).
#   - system calls (COUNT=syscalls): the server under `strace -f -c` over REQUESTS requests after
#     the warm-up; each call made at least once per 10 requests, per request (strace slows the
#     server, so how often epoll_wait finds the next request already in differs from a plain run).
# CPUS=LIST (a taskset list, e.g. CPUS=0) runs the server and the client on those CPUs only. With
# one CPU the server never wakes a client sleeping on another CPU, nor is woken from one: on a
# virtual machine each such wake-up is an inter-processor interrupt through the hypervisor, which
# the kernel books to the process that sends it (docs/performance.md, "the server's CPU").
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
pin=()
[ -n "${CPUS:-}" ] && pin=(taskset -c "$CPUS")

# Starts the server (under the command prefix "$@", e.g. valgrind) and sets $server and $port.
start_server() {
  : >"$work/log"
  "${pin[@]}" "$@" "$build/gpusizer" serve --port 0 --threads 2 >"$work/log" 2>&1 &
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
  "${pin[@]}" "$build/gpusizer_load" --port "$port" --connections 2 --seconds 60 \
    --max-requests "$1" --body "$body"
}

if [ "${COUNT:-time}" = syscalls ]; then
  command -v strace >/dev/null || { echo "http_estimate_cpu: strace is not installed" >&2; exit 1; }
  start_server
  load 500 >/dev/null
  strace -f -c -o "$work/strace" -p "$server" 2>/dev/null &
  tracer=$!
  sleep 1
  load "$requests" >/dev/null
  kill -INT "$tracer"
  wait "$tracer" 2>/dev/null || true
  awk -v n="$requests" '$NF ~ /^[a-z_0-9]+$/ && $NF != "total" && $4 ~ /^[0-9]+$/ && $4 * 10 >= n {
    printf "%s %.2f\n", $NF, $4 / n; total += $4 / n }
    END { printf "system calls per request: %.2f\n", total }' "$work/strace"
  exit 0
fi

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
load 500 >/dev/null  # warm-up: catalog tables, first-touch pages
read -r user_before system_before < <(awk '{print $14, $15}' "/proc/$server/stat")
table=$(load "$requests")
read -r user_after system_after < <(awk '{print $14, $15}' "/proc/$server/stat")
echo "$table"
done_requests=$(echo "$table" | tail -1 | awk -F'|' '{gsub(/ /, "", $3); print $3}')
awk -v u="$((user_after - user_before))" -v s="$((system_after - system_before))" \
  -v hz="$ticks" -v n="$done_requests" 'BEGIN {
  printf "server CPU per request: %.1f us (user %.1f + system %.1f; %d requests, %.2f s of server CPU)\n",
         (u + s) / hz / n * 1e6, u / hz / n * 1e6, s / hz / n * 1e6, n, (u + s) / hz }'
