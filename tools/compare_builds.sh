#!/usr/bin/env bash
# Runs two gpusizer binaries over the same scenarios (the shipped validation cases and N random
# ones from tools/random_scenarios.py) and prints how many answer lines differ, with the first few;
# then the same for the bad and odd lines of tools/bad_scenarios.py (every field given a value of
# each JSON type, unknown keys, two bad fields at once, non-objects: the error answers and notes),
# and whether the two exit statuses agree.
# Usage: tools/compare_builds.sh OLD_BINARY NEW_BINARY [N]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
old="$1" new="$2" n="${3:-2000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$root" >"$work/cases.jsonl" <<'PY'
import json, sys
root = sys.argv[1]
for name in ("memory_cases.jsonl", "throughput_cases.jsonl"):
    for line in open(f"{root}/data/validation/{name}"):
        if line.strip():
            print(json.dumps(json.loads(line)["scenario"]))
PY
python3 "$root/tools/random_scenarios.py" "$n" >>"$work/cases.jsonl"
"$old" estimate --input "$work/cases.jsonl" --format jsonl --jobs 1 >"$work/old.jsonl" 2>/dev/null || true
"$new" estimate --input "$work/cases.jsonl" --format jsonl --jobs 1 >"$work/new.jsonl" 2>/dev/null || true
total=$(wc -l <"$work/cases.jsonl")
diffs=$(paste -d '\n' "$work/old.jsonl" "$work/new.jsonl" | awk 'NR%2{a=$0;next} a!=$0{c++} END{print c+0}')
echo "$total scenarios, $diffs answers differ"
python3 "$root/tools/bad_scenarios.py" >"$work/bad.jsonl"
old_rc=0 new_rc=0
"$old" estimate --input "$work/bad.jsonl" --format jsonl --jobs 1 >"$work/old_bad.jsonl" 2>/dev/null || old_rc=$?
"$new" estimate --input "$work/bad.jsonl" --format jsonl --jobs 1 >"$work/new_bad.jsonl" 2>/dev/null || new_rc=$?
bad_total=$(wc -l <"$work/bad.jsonl")
bad_diffs=$(paste -d '\n' "$work/old_bad.jsonl" "$work/new_bad.jsonl" | awk 'NR%2{a=$0;next} a!=$0{c++} END{print c+0}')
echo "$bad_total bad or odd lines, $bad_diffs answers differ (exit status $old_rc and $new_rc)"
if [ "${KEEP:-}" ]; then cp "$work"/*.jsonl "$KEEP"/; fi
