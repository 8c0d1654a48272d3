#!/usr/bin/env bash
# Runs two gpusizer binaries on the same ~40 recommend requests (serving, training, traffic and
# SLO, allowed lists, budgets, regions, Apple, bad input, nothing fits) with --format json and
# prints how many answers differ (stdout and exit status), with the first few names. For
# refactors of the advisor, whose answers must stay byte-identical.
# Usage: tools/compare_recommend.sh OLD_BINARY NEW_BINARY   (KEEP=DIR keeps both outputs)
set -euo pipefail
old="$1" new="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cases=(
  'serve-8b|{"model":"llama-3.1-8b","engine":"vllm"}'
  'serve-8b-default|{"model":"llama-3.1-8b"}'
  'serve-70b|{"model":"llama-3.1-70b","engine":"vllm","batch":16,"seq_len":8192}'
  'serve-70b-quant|{"model":"llama-3.1-70b","allow_quantization":true}'
  'serve-speed|{"model":"llama-3.1-8b","objective":"speed","top":5}'
  'serve-power|{"model":"qwen2.5-32b","objective":"power"}'
  'serve-min-tps|{"model":"llama-3.1-70b","min_tokens_per_s":5000}'
  'serve-ttft|{"model":"llama-3.1-8b","max_ttft_ms":50,"seq_len":32768}'
  'serve-budget|{"model":"llama-3.1-70b","budget_usd":6}'
  'serve-onprem-budget|{"model":"llama-3.1-8b","on_prem":true,"budget_usd":20000}'
  'serve-cloud|{"model":"mixtral-8x7b","deployment":"cloud","limit":3}'
  'serve-cn|{"model":"llama-3.1-70b","region":"cn"}'
  'serve-allowed|{"model":"llama-3.1-70b","gpus":["h100-sxm5-80gb","a100-sxm4-80gb","l40s"]}'
  'serve-one-gpu-nofit|{"model":"llama-3.1-405b","gpu":"4090","max_gpus":2}'
  'serve-vendor|{"model":"llama-3.1-8b","vendor":"amd"}'
  'serve-segment|{"model":"llama-2-7b","segment":"consumer","production":false}'
  'serve-production|{"model":"llama-3.1-8b","production":true,"headroom":0.3}'
  'serve-apple|{"model":"llama-3.1-8b","engine":"llama.cpp","weights":"q4_k_m","segment":"apple-soc"}'
  'serve-gguf|{"model":"llama-3.1-8b","engine":"llama.cpp","allow_quantization":true}'
  'serve-nofit|{"model":"llama-3.1-405b","max_gpus":1}'
  'serve-traffic|{"model":"llama-3.1-8b","traffic":{"requests_per_s":20},"slo":{"ttft_ms":500,"tpot_ms":50}}'
  'serve-traffic-70b|{"model":"llama-3.1-70b","traffic":{"requests_per_s":5,"prompt_len":2000,"output_len":300},"limit":4}'
  'train-lora|{"model":"llama-2-7b","task":"lora"}'
  'train-qlora|{"model":"llama-3.1-70b","task":"qlora","top":5}'
  'train-full|{"model":"llama-2-13b","task":"full","max_gpus":16}'
  'train-full-days|{"model":"llama-2-7b","task":"full","training":{"tokens":1e9},"max_days":2}'
  'train-pretrain|{"model":"llama-2-70b","task":"pretrain","gpu_count":64,"gpus":["h100-sxm5-80gb"],"training":{"tokens":1e10}}'
  'train-pinned|{"model":"llama-2-7b","task":"full","parallel":{"tp":2},"training":{"zero_stage":1},"gpus":["a100-sxm4-80gb"]}'
  'train-cv|{"model":"yolov8m","task":"cv-train"}'
  'train-cn|{"model":"llama-2-7b","task":"lora","region":"cn","training":{"tokens":1e8}}'
  'train-speed|{"model":"llama-2-13b","task":"full","objective":"speed","top":8}'
  'train-onprem|{"model":"llama-2-7b","task":"full","on_prem":true,"budget_usd":200000,"training":{"tokens":1e9}}'
  'train-power|{"model":"llama-2-7b","task":"qlora","objective":"power","gpus":["4090","a100-sxm4-80gb","l40s"]}'
  'serve-traffic-cn|{"model":"llama-3.1-8b","region":"cn","traffic":{"requests_per_s":10}}'
  'train-offload|{"model":"llama-2-13b","task":"full","allow_offload":true,"max_gpus":1}'
  'bad-objective|{"model":"llama-3.1-8b","objective":"fast"}'
  'bad-gpu|{"model":"llama-3.1-8b","gpus":["nonexistent-gpu"]}'
  'bad-vendor|{"model":"llama-3.1-8b","vendor":"acme"}'
  'bad-count|{"model":"llama-2-7b","task":"full","gpu_count":0}'
  'bad-pin|{"model":"llama-2-7b","task":"full","parallel":{"tp":"two"}}'
  'bad-constraints|{"model":"llama-3.1-8b","constraints":5}'
  'bad-top|{"model":"llama-3.1-8b","top":0}'
  'bad-budget|{"model":"llama-3.1-8b","budget_usd":-1}'
  'bad-both|{"model":"llama-3.1-8b","cloud":true,"on_prem":true}'
  'bad-request|[1,2]'
  'bad-model|{"model":"no-such-model","budget_usd":"x"}'
)
total=0 differ=0 shown=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  printf '%s\n' "${c#*|}" >"$work/$name.json"
  for side in old new; do
    bin=$old
    [ "$side" = new ] && bin=$new
    rc=0
    "$bin" recommend --input "$work/$name.json" --format json >"$work/$name.$side.out" \
      2>"$work/$name.$side.err" || rc=$?
    echo "exit $rc" >>"$work/$name.$side.out"
    cat "$work/$name.$side.err" >>"$work/$name.$side.out"
  done
  total=$((total + 1))
  if ! cmp -s "$work/$name.old.out" "$work/$name.new.out"; then
    differ=$((differ + 1))
    if [ $shown -lt 5 ]; then
      echo "differs: $name"
      shown=$((shown + 1))
    fi
  fi
done
echo "$total recommend requests, $differ answers differ"
if [ "${KEEP:-}" ]; then cp "$work"/*.out "$KEEP"/; fi
