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
passed=0
failed=0
run_suite() {  # name, build dir, extra cmake flags...
  local name=$1 dir=$2
  shift 2
  echo "== $name"
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
echo "== instruction budgets (callgrind, bench/instruction_budgets.txt)"
if scripts/check_instructions.sh build-test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "== install (find_package and pkg-config against the installed copy)"
if tests/install/run_install_test.sh build-test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "== function length (scripts/check_function_length.sh: every function under 80 lines)"
if scripts/check_function_length.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# The sanitizer build re-runs every gtest; Invariants.HundredThousand checks fewer scenarios there.
GPUSIZER_INVARIANT_SCENARIOS="${GPUSIZER_INVARIANT_SCENARIOS_ASAN:-5000}" \
run_suite "tests under ASan+UBSan" build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUSIZER_SANITIZE=ON \
  -DGPUSIZER_BUILD_BENCH=OFF
if [ -x tests/fuzz/run_fuzz.sh ]; then
  echo "== fuzzing"
  if tests/fuzz/run_fuzz.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi
if [ -x tests/soak/run_soak.sh ]; then
  echo "== soak (server on loopback, ${GPUSIZER_SOAK_SECONDS:=10} s)"
  if GPUSIZER_SOAK_SECONDS=$GPUSIZER_SOAK_SECONDS tests/soak/run_soak.sh build-test; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
fi
if [ -x scripts/test_web.sh ]; then
  echo "== web"
  if scripts/test_web.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
