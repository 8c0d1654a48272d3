#!/usr/bin/env bash
# Mean instructions per item of one bench/instruction_counts measure over 16 environment sizes
# (callgrind). The stack's alignment moves a single run's count by up to ~130 instructions, so
# docs/performance.md and bench/instruction_budgets.txt quote this mean.
#   tools/mean_instructions.sh BUILD/instruction_counts MEASURE [ITEMS]
set -euo pipefail
prog=$1
measure=$2
items=${3:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sum=0
for i in $(seq 0 15); do
  pad=$(printf '%*s' $((i * 16 + 1)) '' | tr ' ' x)
  env PAD="$pad" valgrind --tool=callgrind --collect-atstart=no \
    --callgrind-out-file="$tmp/o.$i" "$prog" "$measure" "$items" >/dev/null 2>&1
  total=$(awk '/^(summary|totals):/ {print $2; exit}' "$tmp/o.$i")
  sum=$((sum + total / items))
done
echo "$measure mean16 $((sum / 16))"
