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
build_suite() {  # name, build dir, extra cmake flags...: configures and builds; fails the suite
  local name=$1 dir=$2
  shift 2
  section "$name"
  if ! cmake -S . -B "$dir" -G Ninja -DGPUSIZER_WERROR=ON "$@" >/dev/null ||
     ! cmake --build "$dir" -j "$jobs"; then
    echo "$name: build failed"
    failed=$((failed + 1))
    return 1
  fi
}
run_suite() {  # name, build dir, extra cmake flags...: each test in its own process (ctest)
  build_suite "$@" || return
  if (cd "$2" && ctest --output-on-failure -j "$jobs" --timeout 600); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}
# A sanitized test process takes about 0.4 s to start and leak-check, which over ~480 tests is a
# quarter of that suite's time. Here the test program runs once per core, each process a gtest
# shard (GTEST_TOTAL_SHARDS), printing only failures; a shard past 30 minutes is stopped.
run_suite_in_shards() {  # name, build dir, extra cmake flags...
  build_suite "$@" || return
  local dir=$2 shard pids=() status=0
  for ((shard = 0; shard < jobs; shard++)); do
    (cd "$dir" && GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard \
      timeout 1800 ./gpusizer_tests --gtest_brief=1 >"shard-$shard.log" 2>&1) &
    pids+=($!)
  done
  for shard in "${!pids[@]}"; do
    if ! wait "${pids[$shard]}"; then
      status=1
      echo "shard $shard of $jobs failed:"
      cat "$dir/shard-$shard.log"
    else
      tail -n 1 "$dir/shard-$shard.log"
    fi
  done
  if [ "$status" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
# The release suite is built without debug information (-g costs about a third of each compile
# and most of the link); GCC's code is the same with or without -g, so the instruction budgets
# count the same instructions.
run_suite "tests (release)" build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DGPUSIZER_BUILD_BENCH=ON
section "instruction budgets (callgrind, bench/instruction_budgets.txt)"
if scripts/check_instructions.sh build-test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
section "install (find_package and pkg-config against the installed copy)"
if tests/install/run_install_test.sh build-test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
section "function length (scripts/check_function_length.sh: every function under 80 lines)"
if scripts/check_function_length.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# The sanitizer build re-runs every gtest, about 40 times slower than the release build: there
# Invariants.HundredThousand checks 2,000 scenarios (with ThousandsOfRandomScenarios' 3,000).
# It is built with clang (LLVM wrote both sanitizers), which compiles this instrumented -O0 build
# in about 40% less CPU time than g++; the release suite above stays on g++.
GPUSIZER_INVARIANT_SCENARIOS="${GPUSIZER_INVARIANT_SCENARIOS_ASAN:-2000}" \
run_suite_in_shards "tests under ASan+UBSan" build-sanitize -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DGPUSIZER_SANITIZE=ON -DGPUSIZER_BUILD_BENCH=OFF
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
