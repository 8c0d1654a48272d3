#!/usr/bin/env bash
# Builds the fuzz targets with clang (libFuzzer + ASan + UBSan) in a separate build folder and runs
# each for a bounded number of inputs: the importers (gguf, safetensors, hf_config, Ollama
# manifests) and the log reader FUZZ_RUNS
# (default 20000) each; the scenario JSON and the HTTP request handling, whose inputs each run a
# whole estimate, FUZZ_RUNS_ESTIMATE (default 20000) each. Exits non-zero on any crash.
# Usage: tests/fuzz/run_fuzz.sh [build-dir]
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$src/build-fuzz}"
runs="${FUZZ_RUNS:-20000}"
runs_estimate="${FUZZ_RUNS_ESTIMATE:-20000}"
max_len="${FUZZ_MAX_LEN:-65536}"

CC="${CC:-clang}" CXX="${CXX:-clang++}" cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSIZER_FUZZ=ON -DGPUSIZER_BUILD_TESTS=OFF \
  -DGPUSIZER_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target fuzz_gguf fuzz_safetensors fuzz_hf_config fuzz_scenario fuzz_http \
  fuzz_ollama_manifest fuzz_log fuzz_seed_corpus

corpus="$build/fuzz-corpus"
"$build/tests/fuzz/fuzz_seed_corpus" "$corpus" "$src"
# Each target runs alone in one process; as many run at once as there are cores, and each one's
# verdict is printed in the fixed order below once all have ended.
fuzz_one() {  # target: runs it, leaves its exit status in fuzz_TARGET.status
  local target=$1 n=$runs len=$max_len extra=()
  case $target in
    scenario | http)
      n=$runs_estimate len=8192
      extra=(-dict="$corpus/$target.dict")
      ;;
  esac
  mkdir -p "$build/fuzz-artifacts/$target"
  echo "$n runs, max_len $len" >"$build/fuzz_$target.what"
  local rc=0
  "$build/tests/fuzz/fuzz_$target" -runs="$n" -max_len="$len" -timeout=10 -rss_limit_mb=2048 \
    "${extra[@]}" -artifact_prefix="$build/fuzz-artifacts/$target/" "$corpus/$target" \
    2>"$build/fuzz_$target.log" || rc=$?
  echo "$rc" >"$build/fuzz_$target.status"
}
targets=(gguf safetensors hf_config ollama_manifest log scenario http)
parallel=$(nproc)
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  fuzz_one "$target" &
done
wait
status=0
for target in "${targets[@]}"; do
  echo "== fuzz_$target: $(cat "$build/fuzz_$target.what")"
  if [ "$(cat "$build/fuzz_$target.status" 2>/dev/null)" != 0 ]; then
    echo "fuzz_$target FAILED; see $build/fuzz_$target.log and $build/fuzz-artifacts/$target/"
    tail -n 40 "$build/fuzz_$target.log"
    status=1
  else
    tail -n 2 "$build/fuzz_$target.log"
  fi
done
exit $status
