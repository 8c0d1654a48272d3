#!/usr/bin/env bash
# Installs gpusizer from a build folder into a temporary prefix, then builds a tiny outside
# project against the installed copy twice, with find_package(gpusizer) and with pkg-config, and
# checks both programs print Llama-2-7B's bf16 weights: 6,738,415,616 parameters x 2 bytes.
# Usage: tests/install/run_install_test.sh BUILD_DIR. Prints "N passed, M failed".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:?build folder}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
expected=13476831232
passed=0 failed=0
check() {  # name, command output
  if [ "$2" = "$expected" ]; then passed=$((passed + 1)); echo "ok: $1"
  else failed=$((failed + 1)); echo "FAILED: $1 printed '$2', expected $expected"; fi
}
if ! cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"; echo "0 passed, 1 failed"; exit 1
fi
[ -x "$work/prefix/bin/gpusizer" ] && "$work/prefix/bin/gpusizer" --help >/dev/null &&
  passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAILED: installed CLI"; }
out=""
if cmake -S "$here" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
     >"$work/cmake.log" 2>&1 && cmake --build "$work/cmake-build" >>"$work/cmake.log" 2>&1; then
  out="$("$work/cmake-build/consumer")"
else
  cat "$work/cmake.log"
fi
check "find_package(gpusizer)" "$out"
out=""
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/$(gcc -dumpmachine)/pkgconfig"
if flags="$(pkg-config --cflags --libs gpusizer)" &&
   g++ -std=c++20 "$here/consumer.cc" -o "$work/pc-consumer" $flags 2>"$work/pc.log"; then
  out="$("$work/pc-consumer")"
else
  cat "$work/pc.log"
fi
check "pkg-config gpusizer" "$out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
