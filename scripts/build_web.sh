#!/usr/bin/env bash
# Builds the web page into web/dist (npm ci && npm run build). Rebuild gpusizer afterwards: the
# C++ build compiles web/dist into the binary, and serves a "bundle not built" page without it.
set -euo pipefail
cd "$(dirname "$0")/../web"
npm ci --no-audit --no-fund
npm run build
