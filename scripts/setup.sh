#!/usr/bin/env bash
# The newcomer's first command: install what is missing, build, and run gpusizer's main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUSIZER_BUILD_TESTS=OFF >/dev/null
cmake --build build --target gpusizer
echo
echo "== gpusizer estimate --model llama-2-7b --gpu rtx-4090-24gb (serving, bf16, batch 1 x 2048 tokens)"
build/gpusizer estimate --model llama-2-7b --gpu rtx-4090-24gb --format table
echo
echo "== gpusizer estimate --model llama-2-7b --task full --gpu a100-sxm4-80gb --gpu-count 2 --zero-stage 3"
build/gpusizer estimate --model llama-2-7b --task full --gpu a100-sxm4-80gb --gpu-count 2 \
  --zero-stage 3 --format table
echo
echo "binary: build/gpusizer (try: build/gpusizer --help)"
