#!/usr/bin/env bash
# Runs every test: the unit and end-to-end suite (warnings as errors), the instruction budgets of
# the hot paths (counted under callgrind), the install test, the function-length rule, the same
# suite under AddressSanitizer and UndefinedBehaviorSanitizer, the fuzz targets for a bounded
# number of runs, a 10-second soak of the server on loopback and the browser tests. Prints a
# closing line 'N passed, M failed'.
# docs/reliability.md and docs/performance.md describe the checks and their latest figures.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh || exit 1
jobs=$(nproc)
# The browser tests' packages and web/node_modules download while the C++ builds compile; the web
# section waits for them. (Only node_modules: the bundle itself is built there, so no build embeds
# a half-written web/dist.)
web_deps_log=$(mktemp)
trap 'rm -f "$web_deps_log"' EXIT
web_deps_pid=""
if [ -x scripts/test_web.sh ]; then
  (scripts/install_web_deps.sh --browser && cd web && npm ci --no-audit --no-fund) \
    >"$web_deps_log" 2>&1 &
  web_deps_pid=$!
fi
passed=0
failed=0
# Each section's header, and the wall time of the one before it: CI's log says where its time goes.
section_name="" section_start=$SECONDS
section() {  # name (empty: close the last section)
  [ -n "$section_name" ] && echo "-- $section_name: $((SECONDS - section_start)) s"
  section_name=$1 section_start=$SECONDS
  [ -n "$1" ] && echo "== $1"
  return 0
}
run_suite() {  # name, build dir, extra cmake flags...
  local name=$1 dir=$2
  shift 2
  section "$name"
  if ! cmake -S . -B "$dir" -G Ninja -DGPUSIZER_WERROR=ON "$@" >/dev/null ||
     ! cmake --build "$dir" -j "$jobs"; then
    echo "$name: build failed"
    failed=$((failed + 1))
    return
  fi
  if (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 600); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}
run_suite "tests (release)" build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSIZER_BUILD_BENCH=ON
section "instruction budgets (callgrind, bench/instruction_budgets.txt)"
if scripts/check_instructions.sh build-test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
section "install (find_package and pkg-config against the installed copy)"
if tests/install/run_install_test.sh build-test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
section "function length (scripts/check_function_length.sh: every function under 80 lines)"
if scripts/check_function_length.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# The sanitizer build re-runs every gtest; Invariants.HundredThousand checks fewer scenarios there.
GPUSIZER_INVARIANT_SCENARIOS="${GPUSIZER_INVARIANT_SCENARIOS_ASAN:-5000}" \
run_suite "tests under ASan+UBSan" build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUSIZER_SANITIZE=ON \
  -DGPUSIZER_BUILD_BENCH=OFF
if [ -x tests/fuzz/run_fuzz.sh ]; then
  section "fuzzing"
  if tests/fuzz/run_fuzz.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi
if [ -x tests/soak/run_soak.sh ]; then
  section "soak (server on loopback, ${GPUSIZER_SOAK_SECONDS:=10} s)"
  if GPUSIZER_SOAK_SECONDS=$GPUSIZER_SOAK_SECONDS tests/soak/run_soak.sh build-test; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
fi
if [ -x scripts/test_web.sh ]; then
  section "web"
  if [ -n "$web_deps_pid" ] && ! wait "$web_deps_pid"; then cat "$web_deps_log"; fi
  if scripts/test_web.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi
section ""
echo "whole run: $SECONDS s"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
