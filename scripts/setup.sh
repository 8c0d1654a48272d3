#!/usr/bin/env bash
# The newcomer's first command: install what is missing, build, and run gpusizer's main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
# The web page: Node and npm from Debian, then the bundle from web/package-lock.json, so that the
# binary built below embeds it and `build/gpusizer serve` serves the page. Without npm (offline,
# no registry) the binary still builds and its page says the bundle was not built.
if scripts/install_web_deps.sh && scripts/build_web.sh; then
  echo "web page built (web/dist); build/gpusizer serve serves it"
else
  echo "warning: the web page was not built (needs Node.js, npm and the npm registry);" \
       "build/gpusizer serve will say so. Retry with scripts/build_web.sh, then rebuild." >&2
fi
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
