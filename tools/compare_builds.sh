#!/usr/bin/env bash
# Runs two gpusizer binaries over the same scenarios (the shipped validation cases and N random
# ones from tools/random_scenarios.py) and prints how many answer lines differ, with the first few.
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
if [ "${KEEP:-}" ]; then cp "$work"/*.jsonl "$KEEP"/; fi
