#!/usr/bin/env bash
# The 10,000-line JSONL batch of issue 18 as a user runs it, on one thread: `gpusizer estimate
# --input FILE.jsonl --format jsonl --jobs 1`, the whole process (start-up, parsing, estimates,
# what to change on the lines that do not fit, JSON text). The batch repeats the four lines of
# bench/estimate_bench.cc (two fit, two do not). Prints the best and the median wall seconds of
# RUNS runs; the aim is under 0.15 s. A figure, not a test: it asserts nothing.
#   bench/jsonl_batch.sh [BUILD_DIR] [RUNS] [LINES]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
runs=${2:-5}
lines=${3:-10000}
program=$build/gpusizer
[ -x "$program" ] || { echo "jsonl_batch: $program was not built" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$lines" >"$work/batch.jsonl" <<'PY'
import sys
four = [
    '{"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4}',
    '{"model": "llama-3.1-70b", "task": "qlora", "gpu": "a100-80g"}',
    '{"model": "mixtral-8x7b-v0.1", "engine": "vllm", "gpu": "h100", "gpu_count": 2}',
    '{"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}}',
]
for i in range(int(sys.argv[1])):
    print(four[i % 4])
PY
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$program" estimate --input "$work/batch.jsonl" --format jsonl --jobs 1 >"$work/out.jsonl"
  end=$(date +%s.%N)
  times+=("$(echo "$end - $start" | bc)")
done
printf '%s\n' "${times[@]}" | sort -n | awk -v lines="$lines" -v bytes="$(wc -c <"$work/out.jsonl")" '
  {t[NR] = $1}
  END {printf "%d lines, one thread: best %.3f s, median %.3f s (%d runs, %.1f MB out)\n",
       lines, t[1], t[int((NR + 1) / 2)], NR, bytes / 1e6}'
