#!/usr/bin/env bash
# Counts the instructions per item of each hot path (bench/instruction_counts.cc) under
# callgrind and fails when one exceeds its budget in bench/instruction_budgets.txt. Counted,
# not timed: the figure does not depend on how busy the machine is.
#   scripts/check_instructions.sh [BUILD_DIR]   (default build-test)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
program=$build/instruction_counts
if [ ! -x "$program" ]; then
  echo "check_instructions: $program was not built (needs valgrind's valgrind/callgrind.h)" >&2
  exit 1
fi
command -v valgrind >/dev/null || { echo "check_instructions: valgrind is not installed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
printf '%-30s %12s %12s\n' measure per_item budget
while read -r measure items budget _; do
  case "$measure" in '' | '#'*) continue ;; esac
  valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/$measure" \
    "$program" "$measure" "$items" >/dev/null 2>"$out/$measure.log" ||
    { echo "$measure: the program failed"; cat "$out/$measure.log"; status=1; continue; }
  total=$(awk '/^(summary|totals):/ {print $2; exit}' "$out/$measure")
  per_item=$((total / items))
  verdict=ok
  if [ "$per_item" -gt "$budget" ]; then verdict="OVER BUDGET"; status=1; fi
  printf '%-30s %12d %12d  %s\n' "$measure" "$per_item" "$budget" "$verdict"
done <bench/instruction_budgets.txt
exit $status
