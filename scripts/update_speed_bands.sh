#!/usr/bin/env bash
# Rewrites data/speed_bands.json from the shipped throughput measurements (gpusizer validate
# --bands), then rebuilds so that the binary embeds it. Run after a change that moves speed
# figures, together with scripts/update_validation_doc.sh; a test fails while the file is stale.
#   scripts/update_speed_bands.sh [BINARY]   (default build-test/gpusizer)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build-test/gpusizer}
"$binary" validate --bands >data/speed_bands.json.new
mv data/speed_bands.json.new data/speed_bands.json
echo "wrote data/speed_bands.json; rebuild to embed it"
