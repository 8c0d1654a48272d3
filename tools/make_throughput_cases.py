#!/usr/bin/env python3
"""Maps data/validation/throughput.csv to data/validation/throughput_cases.jsonl (docs/speed.md).

One case per CSV row: the contract scenario, the Estimate key to compare, the measured value in
that key's unit, include/exclude with the reason, and use = calibrate | validate. Within each
group the included rows alternate calibrate/validate in CSV order (first row calibrates), so the
split is repeatable and every group is represented on both sides. Run from the repository root.
"""
import csv
import json
import re

MODELS = {
    "Llama 3 8B": "llama-3.1-8b", "Llama 3.x 8B": "llama-3.1-8b", "Llama 3.1 8B": "llama-3.1-8b",
    "Llama 3.1 8B Instruct": "llama-3.1-8b", "Llama 3 8B (fine-tune, same arch)": "llama-3.1-8b",
    "Llama 3 70B": "llama-3.1-70b", "Llama 3.1 70B": "llama-3.1-70b",
    "Llama 3.2 3B": "llama-3.2-3b",
    "Llama 3.3 70B Instruct": "llama-3.3-70b-instruct",
    "Llama 3.1 405B": "llama-3.1-405b", "Llama 3.1 405B Instruct": "llama-3.1-405b",
    "Llama 2 7B": "llama-2-7b", "Llama 2 7B Chat": "llama-2-7b", "LLaMA 7B": "llama-2-7b",
    "Llama 2 13B": "llama-2-13b", "Baichuan2 13B": "baichuan2-13b", "Llama 2 70B": "llama-2-70b", "LLaMA 70B": "llama-2-70b",
    "Mistral 7B Instruct v0.2": "mistral-7b-v0.3",
    "DeepSeek-R1-Distill-Qwen-7B": "deepseek-r1-distill-qwen-7b",
    "Qwen3-235B-A22B": "qwen3-235b-a22b", "Llama 4 Maverick 17B-128E": "llama-4-maverick-17b-128e",
    "Llama 4 Scout 17B-16E": "llama-4-scout-17b-16e",
    # The v0.17 perf-overview's "Mistral 7B" (the page names no checkpoint): mistralai/Mistral-7B-v0.1,
    # the only Mistral 7B of the models trtllm-bench supported when these tables began
    # (tensorrt_llm/bench/build/benchmark_config.yml, v0.12 era; its Mixtral is
    # mistralai/Mixtral-8x7B-v0.1, the page's "Mixtral 8x7B").
    "Mistral 7B": "mistral-7b-v0.1",
}
# trtllm-bench runs a dataset of this many requests per ISL/OSL pair, all queued at once
# (TensorRT-LLM docs/source/performance/perf-overview.md at 00f37686, "Preparing a Dataset":
# $num_requests by input and output length), so a row is that finite job's output rate: the
# estimate's offline_output_tokens_per_s with offline_requests set, not the steady state.
PERF_OVERVIEW_REQUESTS = {(128, 128): 30000, (128, 2048): 3000, (128, 4096): 1500,
                          (1000, 2000): 1500, (2048, 128): 3000, (2048, 2048): 1500,
                          (5000, 500): 1500, (1000, 1000): 3000, (500, 2000): 3000,
                          (20000, 2000): 1000}
# Mixture-of-experts models of the rows (their TensorRT-LLM tables are the held-out group
# trtllm-bench-moe).
MOE_MODELS = {"Qwen3-235B-A22B", "Llama 4 Maverick 17B-128E", "Llama 4 Scout 17B-16E"}
# MPT (llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml): d_model, n_heads, n_layers;
# expansion_ratio 4, vocab 50368, no biases, tied embeddings, ALiBi (no position table).
MPT = {"MPT-125m": (768, 12, 12), "MPT-350m": (1024, 16, 24), "MPT-760m": (1536, 12, 24),
       "MPT-1b": (2048, 16, 24), "MPT-3b": (2560, 20, 32), "MPT-7b": (4096, 32, 32),
       "MPT-13b": (5120, 40, 40), "MPT-30b": (7168, 64, 48), "MPT-70b": (8192, 64, 80)}
GPUS = {
    "RTX 4090 24GB": "rtx-4090-24gb", "L40S 48GB": "l40s-48gb", "A100 PCIe 80GB": "a100-pcie-80gb",
    "A100 SXM 80GB": "a100-sxm4-80gb", "A100 SXM 80GB (330W cap)": "a100-sxm4-80gb",
    "A100 SXM 40GB": "a100-sxm4-40gb", "H100 SXM 80GB": "h100-sxm5-80gb",
    "H100 SXM 80GB (700W)": "h100-sxm5-80gb", "H200 SXM 141GB": "h200-sxm-141gb",
    "B200 180GB": "b200-180gb", "AMD MI300X 192GB": "mi300x-192gb",
    "M2 Ultra 76-core GPU 192GB": "apple-m2-ultra-192gb",
    "Apple M2 Ultra (76-core GPU)": "apple-m2-ultra-192gb",
    "M3 Max 40-core GPU 64GB": "apple-m3-max-128gb", "RTX 3090 24GB": "rtx-3090-24gb",
    "RTX 3090 Ti 24GB": "rtx-3090-ti-24gb", "RTX A6000 48GB": "rtx-a6000-48gb",
    "NVIDIA L4 24GB": "l4-24gb", "NVIDIA A10G 24GB": "a10g-24gb",
    "AMD RX 7900 XTX 24GB": "rx-7900-xtx-24gb",
    "H100 (Scaleway; variant not stated)": "h100-pcie-80gb",
    "RTX PRO 6000 Blackwell Server Edition 96GB": "rtx-pro-6000-blackwell-96gb",
    "A100 80GB (variant not stated)": "a100-sxm4-80gb", "A100 80GB (350-400W)": "a100-sxm4-80gb",
    "H100 80GB (700W)": "h100-sxm5-80gb",
    "RTX 3080 Ti 12GB": "rtx-3080-ti-12gb", "RTX 4070 Ti 12GB": "rtx-4070-ti-12gb",
    "RTX 4080 16GB": "rtx-4080-16gb",
    "Tesla P40 24GB": "tesla-p40-24gb",
}
# GPUs without FP16 tensor cores (data/gpus.csv fp16 NA): their llama-bench rows form a group of
# their own, held out (session 21, issue 14): nothing in data/speed.json was fitted on them.
NO_TENSOR_CORE_GPUS = {"Tesla P40 24GB"}
# Rows made scoreable after the calibrate/validate split was fixed (session 21: the three GeForce
# cards entered data/gpus.csv and Mistral-7B-v0.1 data/models.jsonl). They are held out, whatever
# their group, and take no turn in the alternation below: data/speed.json was fitted on the
# calibrate half without them, and no existing row changes side.
LATE_GPUS = {"RTX 3080 Ti 12GB", "RTX 4070 Ti 12GB", "RTX 4080 16GB"}
LATE_MODELS = {"Mistral 7B"}
# Mistral-7B-v0.1 (config.json sliding_window 4096). The TensorRT path of TensorRT-LLM does not
# take the window from the checkpoint: LLaMAConfig.from_hugging_face (tensorrt_llm/models/llama/
# config.py) reads no sliding_window, and the window is the runtime max_attention_window_size
# ("set to the sliding_window value in the config", examples/llama/README.md, Mistral v0.1: passed
# to run.py by hand). trtllm-bench throughput sets only free_gpu_memory_fraction and block reuse
# in its KvCacheConfig (tensorrt_llm/bench/dataclasses/configuration.py), so the attention window
# is the engine's max_seq_len: every layer attends to, and caches, the whole context. Rows whose
# ISL + OSL exceeds the window are therefore modelled on the same config without it.
MISTRAL_V01_FULL_ATTENTION = {
    "architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 32768,
    "rope_theta": 10000.0, "rms_norm_eps": 1e-05, "tie_word_embeddings": False,
    "hidden_act": "silu", "sliding_window": None}


def weights_of(p):
    p = p.upper()
    if p.startswith("Q4_K_M"): return "q4_k_m"
    # llama.cpp's "small" K-quant mixes (llama-bench "Q4_K - Small" etc.) keep the K format in
    # nearly every matrix (llama.cpp llama_model_quantize_impl): the format itself.
    if p.startswith("Q4_K_S"): return "q4_k"
    if p.startswith("Q5_K_S"): return "q5_k"
    if p.startswith("Q3_K_S"): return "q3_k"
    if p.startswith("Q6_K"): return "q6_k"
    if p.startswith("Q2_K"): return "q2_k"
    if p.startswith("Q4_0"): return "q4_0"
    # llama.cpp's legacy 32-value blocks with a min (Q4_1, Q5_1) or a fifth bit (Q5_0, Q5_1): their
    # own data/formats.csv rows (ggml-common.h block_q4_1, block_q5_0, block_q5_1).
    if p.startswith("Q4_1"): return "q4_1"
    if p.startswith("Q5_0"): return "q5_0"
    if p.startswith("Q5_1"): return "q5_1"
    if p.startswith("Q8_0"): return "q8_0"
    if p.startswith("F16") or p.startswith("FP16"): return "fp16"
    if p.startswith("BF16"): return "bf16"
    if p.startswith("FP8"): return "fp8"
    if p.startswith("INT8 WEIGHT"): return "int8"
    # gpt-fast's int4 (quantize.py groupsize 32): a bf16 scale and zero a group, the head too.
    if p.startswith("INT4 WEIGHT-ONLY G32"): return "int4-g32"
    if p.startswith("INT4 WEIGHT-ONLY"): return "int4"
    if p.startswith("NF4"): return "nf4"
    if p.startswith("LLM.INT8"): return "int8"  # bitsandbytes Linear8bitLt
    return None


def engine_of(e):
    e = e.lower()
    if e.startswith("llama.cpp"): return "llama.cpp"
    if "tensorrt" in e: return "trtllm"
    if e.startswith("sglang"): return "sglang"
    if e.startswith("vllm"): return "vllm"
    if e.startswith("gpt-fast"): return "vllm"  # compiled + CUDA graphs: a vLLM-class engine
    if "torchtune" in e: return "torchtune"  # its own recipes and kernels, not HF/PEFT
    if e.startswith("transformers"): return "hf"
    if "llm foundry" in e: return "fsdp"
    if "meta internal (4d" in e: return "megatron"
    return None


def num(s):
    m = re.match(r"\s*~?(\d+)", s or "")
    return int(m.group(1)) if m else None


def case(r):
    c = {"id": "TP-%s" % r["id"], "notes": ""}
    metric, engine_text = r["metric"], r["engine"]
    eng = engine_of(engine_text)
    src = r["source"]
    group = ("bnb-hf" if "bitsandbytes" in engine_text else
             "llama.cpp-pr6017" if "pull request #6017" in src else
             "llama-bench-no-tensor-cores" if r["gpu"] in NO_TENSOR_CORE_GPUS else
             "llama-bench" if "XiongjieDai" in src or "llama-bench" in r["notes"] else
             "gpt-fast" if "gpt-fast" in engine_text else
             "trtllm-static" if "v0.6.1" in engine_text or "v0.5" in engine_text else
             "trtllm-bench-0.17" if "TensorRT-LLM 0.17" in engine_text else
             "trtllm-bench-moe" if "PyTorch backend" in engine_text and r["model"] in MOE_MODELS else
             "trtllm-bench" if "PyTorch backend" in engine_text else
             "vllm-oci" if "OCI" in r["notes"] else
             "vllm-rocm-docker" if "ROCm/vllm docs/dev-docker" in src else
             "serving" if metric in ("aggregate_output_tok_s", "ttft_ms", "tpot_ms", "request_throughput") else
             "llm-foundry" if "llm-foundry" in src else
             "torchtune" if "torchtune" in src else
             "llama3-pretrain" if "Llama 3.1 405B" == r["model"] else "other")
    c["group"] = group
    c["_src"] = src
    c["_late"] = r["gpu"] in LATE_GPUS or r["model"] in LATE_MODELS
    reason = None
    model = MODELS.get(r["model"])
    gpu = GPUS.get(r["gpu"])
    weights = weights_of(r["precision"])
    try:
        gpus = int(r["num_gpus"])
    except ValueError:
        gpus, reason = 1, "cluster-level figure (GPU count not given)"
    scen = {"model": model, "engine": eng, "gpu": gpu, "gpu_count": gpus}
    if group == "trtllm-static":
        # The 2023 tables ran TensorRT-LLM v0.6.1 (L40S v0.5): data/engines.json release "0.6".
        scen["engine_version"] = "0.6"
    if group == "trtllm-bench-0.17":
        # TensorRT engines under the C++ executor: release "0.8" (0.8 to 0.21) of
        # data/engines.json. The page raised the KV share to 0.95 "in the majority of cases".
        scen["engine_version"] = "0.17"
        scen["gpu_memory_utilization"] = 0.95
    old_vllm = re.search(r"version field '(\d+)\.(\d+)", engine_text)
    if eng == "vllm" and old_vllm and (int(old_vllm.group(1)), int(old_vllm.group(2))) < (0, 21):
        # vLLM before 0.21 defaulted gpu_memory_utilization to 0.9 (0.92 from 0.21, vLLM PR
        # #38284): the row ran with the default of its own release, not today's.
        scen["gpu_memory_utilization"] = 0.9
    par = r["parallelism"]
    tp = re.search(r"TP(\d+)", par)
    pp = re.search(r"PP(\d+)", par)
    parallel = {}
    if tp and int(tp.group(1)) > 1: parallel["tp"] = int(tp.group(1))
    if pp and int(pp.group(1)) > 1: parallel["pp"] = int(pp.group(1))
    value = float(r["value"])
    train = metric.startswith("train") or metric == "tflops_per_gpu"
    if train:
        seq = num(r["input_len"])
        scen["seq_len"] = seq
        if r["model"] in MPT:
            d, h, L = MPT[r["model"]]
            scen["model"] = {"hf_config": {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox",
                             "hidden_size": d, "intermediate_size": 4 * d, "num_attention_heads": h,
                             "num_hidden_layers": L, "vocab_size": 50368, "max_position_embeddings": seq,
                             "tie_word_embeddings": True, "use_parallel_residual": False}}
            c["notes"] += "MPT as a gpt_neox-shaped hf_config (llm-foundry yaml dims; biases/rotary differ, <1% params). "
            m = re.match(r"micro (\d+) x accum (\d+)", r["batch"])
            micro, accum = int(m.group(1)), int(m.group(2))
            scen["batch"] = micro
            scen["task"] = "pretrain"
            scen["weights"] = "bf16"
            scen["parallel"] = {"dp": gpus}
            scen["training"] = {"mixed_precision": "pure-bf16" if "pure" in r["precision"] else "bf16",
                                "gradient_checkpointing": "(AC)" in r["notes"], "zero_stage": 3,
                                "flash_attention": True, "grad_accum": accum,
                                "global_batch": micro * accum * gpus}
            if "FP8" in r["precision"]: reason = "fp8 training is not a contract mixed_precision"
        elif "torchtune" in src and "flags table" in engine_text:
            # The README's 'Optimization flags' table (PR #2003): Llama 3.2 3B on one A100, batch
            # 2, packed to 4096, each technique added to the row before; LoRA and QLoRA take the
            # 3B_{lora,qlora}_single_device defaults (lora_rank 64, lora_attn_modules [q_proj,
            # v_proj, output_proj], apply_lora_to_mlp True) without optimizer_in_bwd and AdamW8bit.
            # The row's flags are in its notes.
            task = "full" if "Full" in engine_text else "qlora" if "QLoRA" in engine_text else "lora"
            notes = r["notes"]
            scen.update({"task": task, "batch": 2, "weights": "nf4" if task == "qlora" else "bf16"})
            scen["training"] = {"optimizer": "adamw-8bit" if "AdamW8bit" in notes else "adamw",
                                "mixed_precision": "pure-bf16", "flash_attention": True,
                                "grad_accum": 1,
                                "gradient_checkpointing": "AC on" in notes,
                                "compile": "; compile;" in notes,
                                "chunked_loss": "chunked CE" in notes,
                                "optimizer_in_backward": "optimizer_in_bwd" in notes,
                                "activation_offload": "activation offload" in notes}
            if task != "full":
                scen["training"].update({"lora_rank": 64, "lora_targets": [
                    "q_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]})
            if "not packed" in notes:
                reason = "not packed: the padding of each batch (alpaca lengths) is not stated"
            c["notes"] += "torchtune optimization-flags table; single device. "
        elif "torchtune" in src:
            task = "full" if "Full" in engine_text else "qlora" if "QLoRA" in engine_text else "lora"
            scen.update({"task": task, "batch": 2, "weights": "nf4" if task == "qlora" else "bf16"})
            # The README table came with torchtune commit 30b8519 (PR #1664, 2024-09-24); the
            # configs of that commit, recipes/configs/llama3_1/8B_{lora,qlora}_single_device.yaml:
            # lora_rank 8; LoRA lora_attn_modules [q_proj, v_proj], apply_lora_to_mlp False (the
            # MLP and output_proj joined only on 2024-11-07, e137afe); QLoRA [q_proj, v_proj,
            # k_proj, output_proj] with apply_lora_to_mlp (w1, w2, w3 = gate, down, up). The
            # engine is torchtune (compiled, its own LoRALinear), not PEFT. The table states
            # compile; the configs' loss is CEWithChunkedOutputLoss, and 8B_full_single_device
            # steps bitsandbytes' PagedAdamW8bit in the backward (as the memory cases TT-001..).
            targets = (["q_proj", "v_proj"] if task == "lora" else
                       ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
            scen["training"] = {"mixed_precision": "pure-bf16" if task == "full" else "bf16",
                                "gradient_checkpointing": True, "flash_attention": True, "grad_accum": 1,
                                "lora_rank": 8, "lora_targets": targets,
                                "compile": True, "chunked_loss": True}
            if task == "full":
                scen["training"].update({"optimizer": "paged-adamw-8bit",
                                         "optimizer_in_backward": True})
            if gpus > 1:
                # The 8 x A100 rows run the distributed recipes: FSDP full shard (engine fsdp,
                # ZeRO-3) with the configs the memory cases TT-006..008 read (70B full: CPU
                # offload and the optimizer in the backward; 70B LoRA rank 16 on q, k, v; 405B
                # QLoRA rank 16 on every linear). The table does not say whether tokens/s is per
                # GPU or for the eight; only the aggregate is physical: per GPU, the 70B LoRA
                # row's 3,497 tok/s at 6 x 70.6e9 FLOPs a token would be 1.5 PFLOPS on a 312-TFLOPS
                # A100, while the aggregate is 437 tok/s a GPU, 185 TFLOPS.
                scen.update({"engine": "fsdp", "parallel": {"dp": gpus}})
                scen["training"].update({"mixed_precision": "pure-bf16", "zero_stage": 3,
                                         "compile": True, "chunked_loss": True, "optimizer": "adamw"})
                if task == "full":
                    scen["training"].update({"offload": "optimizer+params",
                                             "optimizer_in_backward": True})
                    for k in ("lora_rank", "lora_targets"): scen["training"].pop(k, None)
                elif task == "lora":
                    scen["training"].update({"lora_rank": 16, "lora_targets": ["q_proj", "k_proj", "v_proj"]})
                else:
                    scen["training"]["lora_rank"] = 16
                value = value / gpus
                c["notes"] += "8 GPUs: the table's tokens/s read as the aggregate, / 8 per GPU. "
            if "A6000" in r["gpu"]:
                # 154.8 TFLOPS dense bf16 vs the RTX 4090's 165.2, yet 1.5x its tokens/s; the LoRA
                # row implies 97% of the dense rate even without recomputation.
                reason = "source inconsistent: RTX A6000 rows 1.5x the RTX 4090's with a lower peak"
            c["notes"] += ("torchtune recipes: activation checkpointing on, compile; %s. "
                           % ("single device" if gpus == 1 else "distributed, FSDP"))
        elif group == "llama3-pretrain":
            scen.update({"task": "pretrain", "weights": "bf16", "batch": 1})
            dp = re.search(r"DP(\d+)", par)
            parallel["dp"] = int(dp.group(1))
            scen["training"] = {"mixed_precision": "bf16", "gradient_checkpointing": False, "zero_stage": 1,
                                "global_batch": 16 * 1024 * 1024 // seq}
            # Interleaving: the paper (sec. 3.3.2) balances the pipeline by taking one
            # Transformer layer each from the first and last stages (they hold the embedding and
            # the head): 126 layers = 16 stages x 8 virtual chunks of one layer - 2, i.e. v = 8.
            parallel["pp_interleave"] = 8
            cp = re.search(r"CP(\d+)", par)
            if cp and int(cp.group(1)) > 1:
                # At 131k tokens attention is ~40% of the FLOPs: timed at FlashAttention's
                # measured training rates (data/speed.json training.attention_backward).
                parallel["cp"] = int(cp.group(1))
        else:
            reason = reason or "model not in the catalog and no config (GPT-2 XL FP8 microbenchmark)"
        if "DERIVED" in r["notes"]: reason = "DERIVED from model-card GPU-hours: a lower bound incl. downtime"
        c["compare"] = {"train_tokens_per_s_per_gpu": "train_tokens_per_s_per_gpu",
                        "train_tokens_per_s": "train_tokens_per_s_per_gpu",
                        "tflops_per_gpu": "tflops_per_gpu"}[metric]
        if metric == "train_tokens_per_s" and gpus == 1: c["notes"] += "single GPU: tokens/s = tokens/s/GPU. "
    else:
        scen["weights"] = weights
        if weights == "fp8" and "KV" in r["precision"]: scen["kv_cache"] = "fp8"
        if group in ("trtllm-bench", "trtllm-bench-moe") and weights == "fp8":
            # ModelOpt FP8 checkpoints (nvidia/*-FP8) declare kv_cache_quant_algo FP8 in
            # hf_quant_config.json and TensorRT-LLM's KV dtype 'auto' follows the checkpoint. The
            # rows confirm it: 8B on H100 at 128/2048 gives 22714 tok/s, above what a bf16 cache
            # allows (3.35 TB/s / (1152 mean context x 128 KiB per token) = 22.2k tok/s).
            scen["kv_cache"] = "fp8"
            c["notes"] += "ModelOpt FP8 checkpoint: FP8 KV cache. "
        inp, out = num(r["input_len"]), num(r["output_len"])
        b = int(r["batch"]) if r["batch"].strip().isdigit() else None
        if metric == "decode_tok_s_single_stream":
            c["compare"] = "decode_tokens_per_s"
            if "llama-bench" in r["notes"] and inp == 0:
                inp = 1
                c["notes"] += "llama-bench tgN: prompt_len 1 stands for the empty context; decode averaged over the growing context. "
            if out is None: out = 200
        elif metric == "prefill_tok_s":
            c["compare"] = "prefill_tokens_per_s"
            out = 1
        elif metric == "ttft_ms":
            c["compare"] = "ttft_ms"
        elif metric == "tpot_ms":
            c["compare"] = "tpot_ms"
        elif metric in ("aggregate_output_tok_s", "request_throughput"):
            fixed = b is not None and group in ("vllm-oci", "vllm-rocm-docker") and "benchmark_latency" in engine_text
            c["compare"] = "e2e_output_tokens_per_s" if fixed else "max_output_tokens_per_s"
            # vLLM benchmark_latency.py times one whole generate() of the batch: the prefill of
            # batch x prompt tokens plus output_len decode steps (at batch 256 the prefill holds as
            # many tokens as the decode), so the figure is batch x output / (TTFT + output x TPOT).
            if fixed: c["notes"] += "fixed batch, benchmark_latency end-to-end: batch x output / (TTFT + output x TPOT). "
            if "ShareGPT" in (r["input_len"] or ""):
                inp, out = 215, 198
                c["notes"] += "ShareGPT averages 215 in / 198 out. "
            if metric == "request_throughput":
                value = value * 128
                c["notes"] += "req/s x 128 output tokens. "
            if r["unit"] == "tok/s/GPU": value = value * gpus; c["notes"] += "tok/s/GPU x GPUs. "
            if "trtllm-static" == group and gpus > 1 and r["unit"] != "tok/s/GPU":
                reason = "A100/L40S columns ambiguous for TP>1 (per GPU or total)"
        scen.update({"batch": b or 1, "prompt_len": inp, "output_len": out, "seq_len": (inp or 0) + (out or 0)})
        # The v0.17 page gives the same $num_requests table as 00f37686's.
        if group in ("trtllm-bench", "trtllm-bench-moe", "trtllm-bench-0.17") and c["compare"] == "max_output_tokens_per_s":
            scen["offline_requests"] = PERF_OVERVIEW_REQUESTS[(inp, out)]
            c["compare"] = "offline_output_tokens_per_s"
            c["notes"] += "trtllm-bench dataset of %d requests queued at once: the finite job's rate. " % scen["offline_requests"]
        if model == "mistral-7b-v0.1" and eng == "trtllm" and (inp or 0) + (out or 0) > 4096:
            scen["model"] = {"hf_config": MISTRAL_V01_FULL_ATTENTION}
            c["notes"] += ("Mistral-7B-v0.1 without its 4096 window: the TensorRT engine caches and "
                           "attends to the whole context (max_attention_window not set). ")
        if b is None: del scen["batch"]
        if parallel: scen["parallel"] = parallel
        if "layer split" in par or (eng == "llama.cpp" and gpus > 1 and not parallel):
            # llama-bench splits layers over every GPU it sees (--split-mode layer): one
            # instance, not replicas, so the split is pinned rather than left to the layout rule.
            scen.setdefault("parallel", {})["pp"] = gpus
            c["notes"] += "llama.cpp layer split over gpu_count GPUs. "
        if group in ("llama-bench", "llama.cpp-pr6017", "llama-bench-no-tensor-cores") and "FA on" not in r["notes"]:
            # llama-bench ran with -fa 0 unless told (cmd_params_defaults.flash_attn = false in
            # tools/llama-bench/llama-bench.cpp of 2024): the scores are materialised.
            scen["training"] = {"flash_attention": False}
            c["notes"] += "llama-bench default -fa 0 (no flash attention). "
        if "330W" in r["gpu"]: c["notes"] += "A100 power-capped at 330 W. "
    if train and parallel: scen.setdefault("parallel", {}).update(parallel)
    if model is None and not isinstance(scen["model"], dict): reason = reason or "model not in the catalog: " + r["model"]
    if gpu is None: reason = reason or "GPU SKU not in data/gpus.csv: " + r["gpu"]
    if eng is None: reason = reason or "engine not modelled: " + engine_text
    if weights is None and not train: reason = reason or "number format not in data/formats.csv: " + r["precision"]
    if "anomal" in r["notes"].lower() or (r["id"] in ("121",)) or ("L40S" in r["gpu"] and r["precision"] == "F16" and metric == "prefill_tok_s"):
        reason = reason or "flagged anomalous in the source notes (docs/validation-throughput-sources.md)"
    if "speculative" in r["notes"]: reason = "speculative decoding is not a plain roofline case"
    if "truncated" in r["notes"] or "CAVEAT" in r["notes"]: reason = "outputs truncated (source caveat)"
    if "ShareGPT" in (r["input_len"] or "") and "1000 prompts" in r["batch"] and metric == "aggregate_output_tok_s":
        # The same rule as their load rows (serving_load_runs.jsonl LOAD-339, LOAD-342): a burst
        # of 1000 prompts ends with the batch draining through ShareGPT's long outputs, so its
        # mean rate is below the steady-state rate the estimate gives.
        reason = reason or ("a 1000-prompt ShareGPT burst measures a transient, not the steady-state "
                            "capacity: the batch drains through the long-output tail at the end, and "
                            "the length spread is not published")
    if metric in ("ttft_ms", "tpot_ms") and "queueing" in r["notes"] + r["batch"] or (metric == "tpot_ms" and "concurrency" in r["notes"]):
        reason = "latency under overload includes queueing"
    c["scenario"] = scen
    c["measured"] = value
    c["include"] = reason is None
    if reason: c["exclude_reason"] = reason
    c["notes"] = (c["notes"] + "source row %s: %s" % (r["id"], r["notes"]))[:400]
    return c


def main():
    rows = list(csv.DictReader(open("data/validation/throughput.csv")))
    cases = [case(r) for r in rows]
    turn = {}
    for c in cases:
        if c["include"] and c["_late"]:
            c["use"] = "validate"  # made scoreable after the split was fixed (LATE_GPUS above)
        elif c["include"] and c["group"] == "vllm-oci":
            c["use"] = "validate"  # end-to-end latency incl. prefill vs decode: held out
        elif c["include"] and c["group"] == "vllm-rocm-docker":
            # split by source: AMD's own latency tables of the rocm/vllm-dev image of Jan 2025
            # (vLLM 0.6.6) calibrate the ROCm build's figures; the same tables for the July 2025
            # image (vLLM 0.9.1, V1 engine) and the OCI blog's (Oct 2024) check them
            c["use"] = "calibrate" if "commit 7a292f9" in c["_src"] else "validate"
        elif c["include"] and c["group"] == "trtllm-bench-moe":
            c["use"] = "validate"  # the mixture-of-experts tables, held out: no MoE row calibrates
        elif c["include"] and c["group"] == "trtllm-bench-0.17":
            # split by source: the v0.17 tables calibrate release 0.8, the 0.16 logs check it
            c["use"] = "calibrate"
        elif c["include"] and c["group"] == "llama.cpp-pr6017":
            c["use"] = "validate"  # a whole source held out: prompt-length and GPU-count series
        elif c["include"] and c["group"] == "llama-bench-no-tensor-cores":
            c["use"] = "validate"  # GPUs without FP16 tensor cores (Tesla P40), held out
        elif c["include"] and c["group"] == "bnb-hf":
            # split by source: the quanto table calibrates, the two issue reports check
            c["use"] = "calibrate" if "optimum-quanto" in c["_src"] else "validate"
        elif c["include"] and c["group"] == "llama3-pretrain":
            # Held out: the paper does not give the pipeline schedule's interleaving, which sets
            # the bubble (15/32 of the step at v = 1).
            c["use"] = "validate"
        elif c["include"] and c["group"] == "torchtune":
            # Held out as a whole source: its single-device figures imply 64-90% of the dense
            # rate with recomputation on, so they check the HF/torchtune path rather than fit it.
            c["use"] = "validate"
        elif c["include"]:
            key = (c["group"], c["compare"])
            c["use"] = "calibrate" if turn.get(key, 0) % 2 == 0 else "validate"
            turn[key] = turn.get(key, 0) + 1
        else:
            c["use"] = "validate"
    # Published training runs with their full layouts (data/validation/training_runs.jsonl, one
    # source per group); their calibrate / validate side is set per source in that file.
    for line in open("data/validation/training_runs.jsonl"):
        if not line.strip():
            continue
        r = json.loads(line)
        cases.append({"id": r["id"], "group": r["group"], "scenario": r["scenario"], "compare": r["compare"],
                      "measured": r["measured"], "include": r.get("include", True), "use": r["use"],
                      "notes": ("%s. %s. %s (%s)" % (r["measured_what"], r["notes"], r["source"], r["url"]))[:900]})
        if "exclude_reason" in r:
            cases[-1]["exclude_reason"] = r["exclude_reason"]
    # Serving under traffic (data/validation/serving_load_runs.jsonl: the load model's figures),
    # serving sweeps at a fixed concurrency (serving_sweep_runs.jsonl) and trtllm-bench runs with
    # their logs (trtllm_bench_runs.jsonl: offline jobs) against published runs, all held out.
    for name in ("serving_load_runs.jsonl", "serving_sweep_runs.jsonl", "trtllm_bench_runs.jsonl"):
        for line in open("data/validation/" + name):
            if not line.strip():
                continue
            r = json.loads(line)
            cases.append({"id": r["id"], "group": r["group"], "scenario": r["scenario"], "compare": r["compare"],
                          "measured": r["measured"], "include": r.get("include", True), "use": r["use"],
                          "notes": ("%s. %s. %s (%s)" % (r["measured_what"], r["notes"], r["source"], r["url"]))[:900]})
            if "exclude_reason" in r:
                cases[-1]["exclude_reason"] = r["exclude_reason"]
    with open("data/validation/throughput_cases.jsonl", "w") as f:
        for c in cases:
            f.write(json.dumps({k: c[k] for k in ("id", "group", "scenario", "compare", "measured", "include",
                                                   "exclude_reason", "use", "notes") if k in c}) + "\n")
    inc = [c for c in cases if c["include"]]
    print(len(cases), "cases,", len(inc), "included,", sum(c["use"] == "calibrate" for c in inc), "calibrate")


if __name__ == "__main__":
    main()
