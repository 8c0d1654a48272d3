#!/usr/bin/env bash
# Installs gpusizer from a build folder into a temporary prefix, then builds a tiny outside
# project against the installed copy twice, with find_package(gpusizer) and with pkg-config, and
# checks both programs print Llama-2-7B's bf16 weights: 6,738,415,616 parameters x 2 bytes. Then
# configures gpusizer inside another project (add_subdirectory) and builds its lowest layer there.
# Then builds the Debian packages (cpack) and runs the CLI unpacked from the gpusizer package.
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
# Inside another project (add_subdirectory, as FetchContent does): the paths are the project's own
# (PROJECT_SOURCE_DIR), so the data files are found and compiled in. Only the lowest layer is
# built, which holds the embedded data table.
source="$(cd "$here/../.." && pwd)"
mkdir -p "$work/parent"
cat >"$work/parent/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES CXX)
set(GPUSIZER_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(GPUSIZER_BUILD_BENCH OFF CACHE BOOL "" FORCE)
add_subdirectory("$source" gpusizer)
EOF
if cmake -S "$work/parent" -B "$work/parent-build" -G Ninja >"$work/parent.log" 2>&1 &&
   cmake --build "$work/parent-build" --target gpusizer_core >>"$work/parent.log" 2>&1 &&
   grep -q '"gpus.csv"' "$work/parent-build/gpusizer/generated/embedded_data.cc"; then
  passed=$((passed + 1)); echo "ok: add_subdirectory(gpusizer)"
else
  cat "$work/parent.log"; failed=$((failed + 1)); echo "FAILED: add_subdirectory(gpusizer)"
fi
# The Debian packages: gpusizer (the CLI) and libgpusizer-dev (headers, libraries, CMake, .pc).
if (cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1); then
  runtime="$(ls "$work"/deb/gpusizer_*.deb 2>/dev/null | head -1)"
  dev="$(ls "$work"/deb/libgpusizer-dev_*.deb 2>/dev/null | head -1)"
  if [ -n "$runtime" ] && [ -n "$dev" ] && dpkg-deb -x "$runtime" "$work/unpacked" &&
     dpkg-deb -c "$dev" >"$work/dev-contents.txt" &&
     grep -q "gpusizerConfig.cmake" "$work/dev-contents.txt" &&
     "$work"/unpacked/usr*/bin/gpusizer --help >/dev/null &&
     out="$("$work"/unpacked/usr*/bin/gpusizer estimate --model llama-2-7b --weights bf16 \
             --gpu a100-sxm4-80gb --format json | python3 -c \
             'import json,sys; print(json.load(sys.stdin)["memory"]["weights_bytes"])')"; then
    check "gpusizer .deb: unpacked CLI estimate" "$out"
  else
    failed=$((failed + 1)); echo "FAILED: the .deb packages (see below)"; ls "$work/deb" 2>&1
  fi
else
  cat "$work/cpack.log"; failed=$((failed + 1)); echo "FAILED: cpack -G DEB"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
