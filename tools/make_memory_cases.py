#!/usr/bin/env python3
"""Generate data/validation/memory_cases.jsonl from data/validation/memory.csv.

One JSON object per CSV row, in CSV order. The mapping rules (scenario, compare
key, unit conversion, include/exclude) are documented in docs/validation-cases.md;
this script is the single place where they are encoded. Re-run after editing
memory.csv:

    python3 tools/make_memory_cases.py            # writes the JSONL
    python3 tools/make_memory_cases.py --check    # writes, then self-checks
"""
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_PATH = os.path.join(ROOT, "data", "validation", "memory.csv")
OUT_PATH = os.path.join(ROOT, "data", "validation", "memory_cases.jsonl")

GiB, GB, MiB, MB = 2**30, 10**9, 2**20, 10**6
ALL7 = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
QV = ["q_proj", "v_proj"]
QKV = ["q_proj", "k_proj", "v_proj"]

# ---------------------------------------------------------------------------
# Inline Hugging Face configs for models that are not in data/models.jsonl.
# Sources are listed in docs/validation-cases.md ("Inline hf_config sources").
# ---------------------------------------------------------------------------
def qwen1(hidden, inter, heads, layers, vocab, seq_length, max_pos, rope_base=10000, quant=None):
    c = {"architectures": ["QWenLMHeadModel"], "model_type": "qwen",
         "hidden_size": hidden, "intermediate_size": inter,  # Qwen v1: w1/w2 are intermediate_size/2 wide each
         "num_attention_heads": heads, "num_hidden_layers": layers, "kv_channels": 128,
         "vocab_size": vocab, "seq_length": seq_length, "max_position_embeddings": max_pos,
         "rotary_emb_base": rope_base, "rotary_pct": 1.0, "layer_norm_epsilon": 1e-06,
         "no_bias": True, "tie_word_embeddings": False}
    if quant:
        c["quantization_config"] = {"quant_method": "gptq", "bits": quant, "group_size": 128,
                                    "desc_act": False, "sym": True}
    return c

QWEN1 = {
    "1.8B": dict(hidden=2048, inter=11008, heads=16, layers=24, vocab=151936, seq_length=8192, max_pos=8192),
    "7B": dict(hidden=4096, inter=22016, heads=32, layers=32, vocab=151936, seq_length=8192, max_pos=32768),
    "14B": dict(hidden=5120, inter=27392, heads=40, layers=40, vocab=152064, seq_length=2048, max_pos=8192),
    "72B": dict(hidden=8192, inter=49152, heads=64, layers=80, vocab=152064, seq_length=32768, max_pos=32768,
                rope_base=1000000),
}

def qwen1_model(name):
    # name like "Qwen/Qwen-7B-Chat-Int4"
    size = name.split("Qwen-")[1].split("-")[0]
    quant = 4 if name.endswith("Int4") else 8 if name.endswith("Int8") else None
    return {"hf_config": qwen1(**QWEN1[size], quant=quant)}

HF = {
    "octocoder": {"architectures": ["GPTBigCodeForCausalLM"], "model_type": "gpt_bigcode",
                  "n_embd": 6144, "n_inner": 24576, "n_head": 48, "n_layer": 40, "n_positions": 8192,
                  "multi_query": True, "vocab_size": 49152, "activation_function": "gelu_pytorch_tanh",
                  "layer_norm_epsilon": 1e-05, "tie_word_embeddings": True},
    "mistral-7b-v0.1": {"architectures": ["MistralForCausalLM"], "model_type": "mistral",
                        "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
                        "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
                        "max_position_embeddings": 32768, "sliding_window": 4096, "rope_theta": 10000.0,
                        "rms_norm_eps": 1e-05, "hidden_act": "silu", "tie_word_embeddings": False},
    "codellama-34b": {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                      "hidden_size": 8192, "intermediate_size": 22016, "num_attention_heads": 64,
                      "num_hidden_layers": 48, "num_key_value_heads": 8, "vocab_size": 32000,
                      "max_position_embeddings": 16384, "rope_theta": 1000000, "rms_norm_eps": 1e-05,
                      "hidden_act": "silu", "tie_word_embeddings": False},
    "llama-7b-galore": {"architectures": ["LLaMAForCausalLM"], "model_type": "llama",
                        "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32,
                        "num_hidden_layers": 32, "vocab_size": 32000, "max_sequence_length": 2048,
                        "rms_norm_eps": 1e-06, "hidden_act": "silu"},
    "gpt-neox-20b": {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox",
                     "hidden_size": 6144, "intermediate_size": 24576, "num_attention_heads": 64,
                     "num_hidden_layers": 44, "vocab_size": 50432, "rotary_pct": 0.25,
                     "rotary_emb_base": 10000, "max_position_embeddings": 2048,
                     "use_parallel_residual": True, "layer_norm_eps": 1e-05, "tie_word_embeddings": False},
    "baichuan2-7b": {"architectures": ["BaichuanForCausalLM"], "model_type": "baichuan",
                     "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32,
                     "num_hidden_layers": 32, "vocab_size": 125696, "model_max_length": 4096,
                     "rms_norm_eps": 1e-06, "hidden_act": "silu", "tie_word_embeddings": False},
    "chatglm-6b": {"architectures": ["ChatGLMModel"], "model_type": "chatglm",
                   "hidden_size": 4096, "inner_hidden_size": 16384, "num_attention_heads": 32,
                   "num_layers": 28, "vocab_size": 130528, "max_sequence_length": 2048,
                   "position_encoding_2d": True, "layernorm_epsilon": 1e-05},
    "t0_3b": {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5",
              "d_model": 2048, "d_ff": 5120, "d_kv": 64, "num_heads": 32, "num_layers": 24,
              "num_decoder_layers": 24, "vocab_size": 32128, "feed_forward_proj": "gated-gelu",
              "tie_word_embeddings": False},
    "t0pp": {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5",
             "d_model": 4096, "d_ff": 10240, "d_kv": 64, "num_heads": 64, "num_layers": 24,
             "num_decoder_layers": 24, "vocab_size": 32128, "feed_forward_proj": "gated-gelu",
             "tie_word_embeddings": False},
    "mt0-xxl": {"architectures": ["MT5ForConditionalGeneration"], "model_type": "mt5",
                "d_model": 4096, "d_ff": 10240, "d_kv": 64, "num_heads": 64, "num_layers": 24,
                "num_decoder_layers": 24, "vocab_size": 250112, "feed_forward_proj": "gated-gelu",
                "tie_word_embeddings": False},
    "bert-large-uncased": {"architectures": ["BertForMaskedLM"], "model_type": "bert",
                           "hidden_size": 1024, "intermediate_size": 4096, "num_attention_heads": 16,
                           "num_hidden_layers": 24, "vocab_size": 30522, "max_position_embeddings": 512,
                           "type_vocab_size": 2},
    "bert-base-cased": {"architectures": ["BertForMaskedLM"], "model_type": "bert",
                        "hidden_size": 768, "intermediate_size": 3072, "num_attention_heads": 12,
                        "num_hidden_layers": 12, "vocab_size": 28996, "max_position_embeddings": 512,
                        "type_vocab_size": 2},
    "gpt2-xl": {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 1600,
                "n_head": 25, "n_layer": 48, "n_positions": 1024, "vocab_size": 50257,
                "tie_word_embeddings": True},
    "llama-3.2-11b-vision": {"architectures": ["MllamaForConditionalGeneration"], "model_type": "mllama",
                             "text_config": {"model_type": "mllama_text_model", "hidden_size": 4096,
                                             "intermediate_size": 14336, "num_attention_heads": 32,
                                             "num_hidden_layers": 40, "num_key_value_heads": 8,
                                             "vocab_size": 128256, "rope_theta": 500000.0,
                                             "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38],
                                             "tie_word_embeddings": False},
                             "vision_config": {"model_type": "mllama_vision_model", "hidden_size": 1280,
                                               "intermediate_size": 5120, "num_attention_heads": 16,
                                               "num_hidden_layers": 32, "num_global_layers": 8,
                                               "image_size": 560, "patch_size": 14, "max_num_tiles": 4}},
    # Partial: the text-model dimensions as vendored in THUDM/slime scripts/models/qwen3.5-27B.sh.
    # The hybrid layer schedule (Gated DeltaNet vs full attention) was not located.
    "qwen3.5-27b": {"model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408,
                    "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
                    "num_hidden_layers": 64, "vocab_size": 248320, "partial_rotary_factor": 0.25,
                    "rope_theta": 10000000, "attn_output_gate": True, "tie_word_embeddings": False},
}

def hf(key):
    return {"hf_config": HF[key]}

GROUP_TIER = {"PEFTMM": "A", "QWEN25": "A", "QWENFT": "A", "VLLM": "A",
              "TT": "B", "PEFTRM": "B", "PEFTDOC": "B", "UNSLOTH": "B", "UNSLOTHCTX": "B",
              "LFWIKI": "B", "HFBLOG": "B", "HFDOC": "B", "ACCEL": "B", "QWENINF": "B",
              "BAICHUAN": "B", "CHATGLM": "B", "GALORE": "B",
              "MOECLAIM": "C", "AXOLOTL": "C", "EST": "EST", "TITAN": "A", "LLMD": "A", "SGLANG": "B",
              "VLLMLOGS": "B", "SGLANGLOGS": "B"}

# Sources whose rows set figures in data/engines.json (allocator slack: Qwen2.5 and PEFT rows;
# vLLM non-torch and driver reservation: VLLM rows; HFDOC context; PEFTDOC/PEFTRM references):
# the calibration half. Every other source is the check half (docs/validation-cases.md).
CALIBRATION_SOURCES = {"QWEN25", "PEFTMM", "VLLM", "HFDOC", "PEFTDOC", "PEFTRM"}

def num(s):
    return int(s) if s.strip().isdigit() else None


# ---------------------------------------------------------------------------
# Per-group mappers. Each returns a dict with scenario, compare, unit (bytes per
# unit), per_gpu, include, exclude_reason, notes. num_gpus/measured are filled in
# by the caller.
# ---------------------------------------------------------------------------
def m_peftmm(r, i):
    fname = r["source"].split("::")[-1].strip()
    tr = {"optimizer": "adamw", "mixed_precision": "pure-bf16", "gradient_checkpointing": False,
          "flash_attention": True, "grad_accum": 1}
    sc = {"model": "llama-3.2-3b", "weights": "bf16", "engine": "hf", "batch": 4, "seq_len": 768,
          "gpu": "l40s-48gb", "gpu_count": 1, "training": tr}
    include, reason = True, ""
    notes = ("PEFT method_comparison run %s; batch 4, seq_len 768 = the truncation maximum of the "
             "dynamically padded MetaMathQA batches (actual batches are shorter; peak includes eval/generation "
             "phases); pure bf16 model so AdamW states are bf16 (pure-bf16); default attn_implementation = SDPA "
             "-> flash_attention true; GiB as stated by the source." % fname)
    lora = {"003": (32, QV), "004": (32, QV), "005": (64, QV), "007": (10, ["gate_proj", "up_proj", "down_proj"])}
    n = r["id"].split("-")[1]
    compare = "reserved_bytes"
    if n in ("001", "002"):
        sc["task"] = "full"
    elif n in lora:
        sc["task"] = "lora"
        tr["lora_rank"], tr["lora_targets"] = lora[n]
    else:
        # Non-LoRA PEFT methods: nearest LoRA-shaped approximation, excluded.
        sc["task"] = "lora"
        approx = {"006": (32, QV, "DoRA"), "008": (1, ["k_proj", "v_proj", "down_proj"], "IA3"),
                  "009": (1, QV, "prompt tuning"), "010": (8, QV, "prefix tuning"),
                  "011": (1, QV, "LayerNorm tuning"), "012": (1, QV, "VeRA"), "013": (32, QV, "OFT"),
                  "014": (64, QV, "LoHa"), "015": (2, QV, "BOFT"), "016": (128, "all-linear", "OSF"),
                  "017": (1, QV, "trainable tokens"), "018": (32, QV, "LoRA-FA")}[n]
        tr["lora_rank"], tr["lora_targets"] = approx[0], approx[1]
        include, reason = False, ("PEFT method '%s' has no gpusizer equivalent (gpusizer models LoRA/full/freeze); "
                                  "scenario is only the nearest LoRA-shaped approximation" % approx[2])
        notes += " Scenario approximates %s as LoRA r=%s on %s (trainable params per the CSV: %s)." % (
            approx[2], approx[0], approx[1], r["trainable"])
    if "steady-state" in r["metric"]:
        compare = "allocated_bytes"
        include, reason = False, "metric is an average (max over eval windows of 250-step mean memory_allocated), not a peak"
    else:
        notes += " Metric = peak max_memory_reserved minus the initial reservation -> reserved_bytes."
    return dict(scenario=sc, compare=compare, unit=GiB, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes)


def m_qwen25(r, i):
    name = r["model"]
    base = name.split("-Instruct")[0].lower()  # qwen2.5-7b
    prec = r["weight_precision"]
    w = {"bf16": "bf16", "GPTQ int8": "gptq-int8", "GPTQ int4": "gptq-int4", "AWQ int4": "awq-int4"}[prec]
    seq = int(r["seq_len"])
    P = seq - 2048
    n = int(r["num_gpus"])
    sc = {"model": base, "task": "inference", "weights": w, "engine": "hf", "batch": 1,
          "seq_len": seq, "prompt_len": P, "output_len": 2048, "gpu": "a100-sxm4-80gb", "gpu_count": n}
    if n > 1:
        sc["parallel"] = {"pp": n}
    notes = ("%s = %s base architecture; prompt %d + 2048 generated tokens, batch 1, HF transformers 4.46 + FA2 "
             "on A100 80GB; metric torch.cuda.max_memory_allocated -> allocated_bytes; value in GiB (script "
             "divides by 1024^3)." % (name, base, P))
    if n > 1:
        notes += " Summed over %d GPUs (per_gpu false); HF device_map splits layers -> parallel.pp=%d." % (n, n)
    return dict(scenario=sc, compare="allocated_bytes", unit=GiB, per_gpu=(n == 1), include=True,
                exclude_reason="", notes=notes)


def m_qwenft(r, i):
    name = r["model"]
    n = int(r["num_gpus"])
    seq = int(r["seq_len"])
    scen = r["scenario"]
    emb = "modules_to_save" in r["trainable"]
    tr = {"optimizer": "adamw", "mixed_precision": "bf16", "gradient_checkpointing": True,
          "flash_attention": True, "grad_accum": 8, "global_batch": 8 * n}
    sc = {"model": qwen1_model(name), "weights": "bf16", "engine": "hf", "batch": 1, "seq_len": seq,
          "gpu": "a100-sxm4-80gb", "gpu_count": n, "training": tr}
    z = r["zero_stage"]
    notes = ("Qwen v1 %s (MHA, inline hf_config); batch 1, grad-accum 8, GC on, FA2, A100-80G. "
             % name.split("/")[1])
    if scen == "LoRA":
        sc["task"] = "lora"
        tr["lora_rank"], tr["lora_targets"] = 64, ALL7
        notes += ("LoRA r=64 on c_attn,c_proj,w1,w2 -> c_attn=q,k,v; 'c_proj' matches both attn.c_proj (o_proj) "
                  "and mlp.c_proj (down_proj); w1,w2=gate/up -> all 7 canonical projections. ")
        if emb:
            tr["modules_to_save"] = ["embed_tokens", "lm_head"]
            notes += "LoRA (emb): base model, wte and lm_head fully trained -> modules_to_save. "
        if "ZeRO-2" in z:
            sc["engine"], tr["zero_stage"] = "deepspeed", 2
            sc["parallel"] = {"dp": n}
            notes += "DeepSpeed ZeRO-2 over %d GPUs (dp=%d). " % (n, n)
        elif "ZeRO-3" in z:
            sc["engine"], tr["zero_stage"] = "deepspeed", 3
            sc["parallel"] = {"dp": n}
            notes += "DeepSpeed ZeRO-3 over %d GPUs (dp=%d). " % (n, n)
        else:
            tr["zero_stage"] = 0
            notes += "Single GPU, no DeepSpeed (finetune_lora_single_gpu.sh). "
        notes += "bf16 model with --bf16 -> mixed_precision bf16. "
    elif scen == "QLoRA":
        sc["task"], sc["weights"], sc["engine"] = "qlora", "gptq-int4", "deepspeed"
        tr.update(mixed_precision="fp16", lora_rank=64, lora_targets=ALL7, zero_stage=2)
        notes += ("Q-LoRA on the GPTQ-Int4 chat model (weights gptq-int4), fp16 AMP, DeepSpeed ZeRO-2 on a single "
                  "GPU; LoRA targets translated as for LoRA (all 7 projections). ")
    elif scen == "full":
        sc["task"], sc["engine"] = "full", "deepspeed"
        tr["zero_stage"] = 3
        sc["parallel"] = {"dp": n}
        notes += ("Full FT; ZeRO-3 assumed (finetune_ds.sh is the only full-FT script), bf16 mixed precision "
                  "(DeepSpeed keeps fp32 master weights and Adam states); dp=%d. " % n)
    notes += ("Measuring tool not stated -> compare total_bytes (device level). Unit: 'G' taken as GB=1e9 per "
              "the unit column (could be GiB; ~7% ambiguity).")
    if n > 1:
        notes += " Value is the total over %d GPUs (per_gpu false); %s." % (n, r["notes"].split(";")[-1].strip())
    return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=(n == 1), include=True,
                exclude_reason="", notes=notes)


def m_vllm(r, i):
    n = int(r["num_gpus"])
    metric = r["metric"]
    if "weights" in metric:
        compare = "weights_bytes"
    elif "non_torch" in metric:
        compare = "overhead_bytes"
    elif "activation" in metric:
        compare = "activations_bytes"
    else:
        compare = "kv_cache_bytes"
    vision = "Vision" in r["model"]
    if not vision:
        sc = {"model": "llama-3.1-8b", "task": "inference", "weights": "bf16", "engine": "vllm",
              "engine_version": "0.6.5", "gpu_memory_utilization": 0.9, "seq_len": 8192, "max_num_batched_tokens": 8192,
              "gpu": "h100-sxm5-80gb", "gpu_count": n, "parallel": {"tp": n}}
        notes = ("Meta-Llama-3-8B = llama-3.1-8b architecture; vLLM ~0.6.5 V0 startup log (PR #10511), "
                 "gpu_memory_utilization 0.90, max_model_len 8192 (default) -> seq_len; max_num_batched_tokens "
                 "8192 = V0 default max(max_model_len, 2048) without chunked prefill (not printed in the log); "
                 "TP=%d, per-GPU figure; vLLM 'GB' is GiB. Log line '%s' -> %s." % (n, metric, compare))
        return dict(scenario=sc, compare=compare, unit=GiB, per_gpu=True, include=True,
                    exclude_reason="", notes=notes)
    sc = {"model": hf("llama-3.2-11b-vision"), "task": "inference", "weights": "bf16", "engine": "vllm",
          "engine_version": "0.7", "gpu_memory_utilization": 0.9, "seq_len": 65536, "batch": 128, "gpu": "h100-sxm5-80gb",
          "gpu_count": 1, "parallel": {"tp": 1}}
    notes = ("Llama-3.2-11B-Vision (mllama) with --load-format dummy, enforce-eager, max_model_len 65536, "
             "max_num_seqs 128 (-> batch), util 0.90; vLLM ~0.6.6 V0 (PR #12126); GiB. Log line '%s' -> %s."
             % (metric, compare))
    return dict(scenario=sc, compare=compare, unit=GiB, per_gpu=True, include=False,
                exclude_reason=("multimodal mllama (vision encoder + cross-attention layers) is not representable as "
                                "a decoder-only config; the activation peak comes from the multimodal profile run"),
                notes=notes)


def tt_train(task, model, batch, seq, optimizer="adamw", mp="pure-bf16", gc=True, gpu=None, n=1,
             rank=None, targets=None, engine="torchtune", **extra):
    tr = {"optimizer": optimizer, "mixed_precision": mp, "gradient_checkpointing": gc, "flash_attention": True,
          "grad_accum": 1}
    if rank:
        tr["lora_rank"], tr["lora_targets"] = rank, targets
    tr.update(extra)
    w = "nf4" if task == "qlora" else "bf16"
    sc = {"model": model, "task": task, "weights": w, "engine": engine, "batch": batch, "seq_len": seq,
          "training": tr}
    if gpu:
        sc["gpu"] = gpu
    sc["gpu_count"] = n
    if n > 1:
        sc["parallel"] = {"dp": n}
        tr["zero_stage"] = 3
    return sc


def m_tt(r, i):
    n = int(r["id"].split("-")[1])
    G4090, A6000, A100 = "rtx-4090-24gb", "rtx-a6000-48gb", "a100-sxm4-80gb"
    include, reason = True, ""
    TTNOTE = ("torchtune (single device -> engine torchtune; distributed -> engine fsdp, FSDP full shard = zero_stage 3); "
              "pure bf16 weights and optimizer states; SDPA -> flash_attention true. ")
    UNKNOWN = ("'peak memory' from torchtune's memory stats (training.get_memory_stats: torch.cuda peak "
               "active/allocated/reserved, never nvidia-smi) -> reserved_bytes, which excludes the CUDA context. ")
    unit = GiB
    compare = "reserved_bytes"
    if n == 1:
        sc = tt_train("full", "llama-3.1-8b", 2, 2048, optimizer="paged-adamw-8bit", gpu=G4090,
                      optimizer_in_backward=True, chunked_loss=True, compile=True)
        notes = TTNOTE + "8B_full_single_device defaults: PagedAdamW8bit + optimizer_in_bwd, AC on; packed 2048. " + UNKNOWN
    elif n == 2:
        sc = tt_train("full", "llama-3.1-8b", 2, 2048, optimizer="paged-adamw-8bit", gpu=A6000, gc=False,
                      optimizer_in_backward=True)
        notes = TTNOTE + "A6000 row; AC assumed off (not documented). " + UNKNOWN
        include, reason = False, "run settings undocumented (A6000 row uses 2x the memory of the 4090 row for the same recipe; AC state unknown)"
    elif n == 3:
        sc = tt_train("lora", "llama-3.1-8b", 2, 2048, gpu=G4090, rank=8, targets=QV, chunked_loss=True,
                      compile=True)
        notes = TTNOTE + "8B_lora_single_device at the time: r=8 on q,v; AC on; packed 2048. " + UNKNOWN
    elif n == 4:
        sc = tt_train("lora", "llama-3.1-8b", 2, 2048, gpu=A6000, rank=8, targets=QV, gc=False)
        notes = TTNOTE + "A6000 row; AC assumed off (not documented). " + UNKNOWN
        include, reason = False, "run settings undocumented (A6000 row uses ~2x the memory of the 4090 row; AC state unknown)"
    elif n == 5:
        sc = tt_train("qlora", "llama-3.1-8b", 2, 2048, gpu=G4090, rank=8, targets=ALL7, chunked_loss=True,
                      compile=True)
        notes = TTNOTE + "QLoRA: torchao NF4 base, r=8 on q,k,v,output_proj + MLP (= all 7 projections). " + UNKNOWN
    elif n == 6:
        sc = tt_train("full", "llama-3.1-70b", 2, 2048, gpu=A100, n=8, engine="fsdp",
                      optimizer_in_backward=True, offload="optimizer+params", chunked_loss=True, compile=True)
        notes = TTNOTE + "70B full on 8xA100 with fsdp_cpu_offload=True (params, grads and optimizer step on CPU -> offload optimizer+params) and fused optimizer-in-backward. " + UNKNOWN
    elif n == 7:
        sc = tt_train("lora", "llama-3.1-70b", 2, 2048, gpu=A100, n=8, engine="fsdp", rank=16, targets=QKV,
                      chunked_loss=True, compile=True)
        notes = TTNOTE + "70B LoRA r=16 on q,k,v, FSDP over 8 GPUs. " + UNKNOWN
    elif n == 8:
        sc = tt_train("qlora", "llama-3.1-405b", 2, 2048, gpu=A100, n=8, engine="fsdp", rank=16, targets=ALL7,
                      chunked_loss=True, compile=True)
        notes = (TTNOTE + "405B QLoRA r=16 on q,k,v,output_proj + MLP, FSDP over 8 GPUs; batch 2 as the table "
                 "says (config default was 1). Unit printed 'GB' but the table dates from after torchtune switched "
                 "to GiB (Aug 2024) and the other rows are GiB -> treated as GiB (uncertain). " + UNKNOWN)
    elif 9 <= n <= 18:
        compare = "allocated_bytes"
        base = ("Optimization-flags table: Llama-3.2-3B on A100 (80GB assumed), batch 2, packed 4096, "
                "flags applied cumulatively; metric 'peak memory active' (~torch allocated) -> allocated_bytes; GiB. ")
        if n == 9:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=False)
            notes = TTNOTE + base + "Baseline is NOT packed: alpaca examples padded per batch, far shorter than the 4096 maximum."
            include, reason = False, "unpacked alpaca batches: actual sequence lengths unknown and far below the 4096 maximum; cannot reasonably be reproduced"
        elif n == 10:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=False)
            notes = TTNOTE + base + "+ packed dataset (no compile yet)."
        elif n == 11:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=False)
            notes = TTNOTE + base + "+ torch.compile: only its compiled chunked loss is modelled, and the loss is not chunked yet (same scenario as TT-010; compile fusion saves ~15%)."
        elif n == 12:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=False, chunked_loss=True, compile=True)
            notes = TTNOTE + base + "+ chunked cross-entropy (chunked_loss), compiled with its upcast (compile)."
        elif n == 13:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=True, chunked_loss=True, compile=True)
            notes = TTNOTE + base + "+ activation checkpointing."
        elif n == 14:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=True, chunked_loss=True, compile=True,
                          optimizer_in_backward=True)
            notes = TTNOTE + base + "+ optimizer step fused into backward."
        elif n == 15:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=True, chunked_loss=True, compile=True,
                          optimizer_in_backward=True, activation_offload=True)
            notes = TTNOTE + base + "+ activation offloading."
        elif n == 16:
            sc = tt_train("full", "llama-3.2-3b", 2, 4096, gpu=A100, gc=True, chunked_loss=True, compile=True,
                          optimizer="adamw-8bit", optimizer_in_backward=True, activation_offload=True)
            notes = TTNOTE + base + "+ bnb 8-bit AdamW."
        else:
            task = "lora" if n == 17 else "qlora"
            sc = tt_train(task, "llama-3.2-3b", 2, 4096, gpu=A100, gc=True, chunked_loss=True, compile=True,
                          activation_offload=True, rank=64, targets=["q_proj", "v_proj", "o_proj"] + ["gate_proj", "up_proj", "down_proj"])
            # The README gives the QLoRA row's command (torchtune 1814feb, 2024-11-18): the 3B_qlora
            # config with dataset.packed=True, tokenizer.max_seq_len=4096, batch_size=2, compile=True,
            # CEWithChunkedOutputLoss, AC and activation offloading on, optimizer_in_bwd=False,
            # torch.optim.AdamW; the LoRA row differs only by its config ("except for LoRA and QLoRA,
            # which do not use optimizer_in_bwd or AdamW8bit"). Both configs: r=64, alpha=128,
            # q, v, output_proj + MLP.
            notes = (TTNOTE + base + "%s: the README's command (3B_%s_single_device, r=64 on q,v,output_proj + MLP; "
                     "packed 4096, batch 2, compile, chunked CE, AC + activation offload, AdamW, no in-bwd)."
                     % ("LoRA" if n == 17 else "QLoRA (NF4 base)", task))
    elif 19 <= n <= 25:
        unit = GB
        base = ("Mid-2024 README table (torchtune then divided by 1e9 -> GB), torch.compile; sequence length 2048/4096 "
                "as tabulated. ")
        if n == 19:
            sc = tt_train("qlora", "llama-2-7b", 4, 2048, gpu=G4090, rank=8, targets=ALL7)
            notes = TTNOTE + base + "7B_qlora_single_device: NF4, r=8 on q,k,v,o + MLP. " + UNKNOWN
        elif n == 20:
            sc = tt_train("lora", "llama-2-7b", 4, 2048, gpu=G4090, rank=8, targets=QV)
            notes = TTNOTE + base + "7B_lora_single_device: r=8 on q,v. " + UNKNOWN
        elif n == 21:
            sc = tt_train("lora", "llama-2-7b", 4, 2048, gpu=G4090, n=2, engine="fsdp", rank=8, targets=QV)
            notes = TTNOTE + base + "7B_lora distributed over 2 GPUs (FSDP). " + UNKNOWN
        elif n == 22:
            sc = tt_train("full", "llama-2-7b", 4, 2048, gpu=G4090, optimizer="paged-adamw",
                          optimizer_in_backward=True)
            notes = (TTNOTE + base + "7B_full_low_memory: bnb PagedAdamW (32-bit paged states, outside torch's "
                     "allocator) + optimizer_in_bwd. " + UNKNOWN)
        elif n == 23:
            sc = tt_train("full", "llama-2-7b", 4, 2048, gpu=G4090, n=4, engine="fsdp")
            notes = TTNOTE + base + "7B_full distributed over 4 GPUs (FSDP), AdamW. " + UNKNOWN
        elif n == 24:
            sc = tt_train("lora", "llama-2-70b", 4, 4096, gpu=A100, n=8, engine="fsdp", rank=16, targets=QKV)
            notes = TTNOTE + base + "70B_lora: r=16 on q,k,v, 8 GPUs FSDP. " + UNKNOWN
            include, reason = False, ("the tabulated 4 x 4096 tokens cannot be what ran: their checkpointed layer "
                                      "inputs alone (80 layers x 16,384 x 8,192 x 2 B = 20 GiB per GPU, FSDP does not "
                                      "shard activations) plus the 8-way shard of the bf16 weights (16 GiB) exceed "
                                      "the measured 24.6 GiB; the unpacked alpaca batches were shorter (as TT-009)")
        else:
            sc = tt_train("full", "llama-2-70b", 4, 4096, gpu=A100, n=8, engine="fsdp")
            notes = TTNOTE + base + "70B full, 8 GPUs FSDP; the table's PagedAdamW is taken as plain AdamW (FSDP shards the states). " + UNKNOWN
            include, reason = False, ("same unpacked table as TT-024, whose 4 x 4096 tokens are ruled out by its own "
                                      "measurement: the sequence length that ran is unknown and the activations "
                                      "(20 GiB per GPU at 4 x 4096) are the largest term")
    elif 26 <= n <= 34:
        unit = GB
        seqnote = ("alpaca_cleaned unpacked with variable lengths: seq_len 512 = the alpaca builder's default "
                   "max_seq_len in torchtune v0.1 (configured maximum; recalled, uncertain). ")
        if n in (26, 27):
            sc = tt_train("lora", "llama-2-7b", 2, 512, rank=8, targets=QV)
        elif n in (28, 29):
            sc = tt_train("qlora", "llama-2-7b", 2, 512, rank=8, targets=ALL7)
        elif n == 30:
            sc = tt_train("lora", "llama-2-7b", 2, 512, rank=8, targets=QV)
        elif n == 31:
            sc = tt_train("lora", "llama-2-7b", 2, 512, rank=8, targets="all-linear")
        elif n == 32:
            sc = tt_train("lora", "llama-2-7b", 2, 512, rank=64, targets=QV)
        elif n == 33:
            sc = tt_train("lora", "llama-2-7b", 2, 512, rank=64, targets="all-linear")
        else:
            sc = tt_train("lora", "llama-3.1-8b", 2, 512, rank=8, targets=QV)
        notes = TTNOTE + "Tutorial figure, GPU not named (gpu omitted); GB = 1e9 (torchtune before Aug 2024). " + seqnote
        if n in (26, 28):
            compare = "weights_bytes"
            notes += "'peak memory reserved (model init)' = weights (+ adapters) before training -> weights_bytes. "
            if n == 28:
                include, reason = False, "QLoRA init peak includes the transient bf16 load before NF4 quantization; not a weights-only figure"
        elif n in (27, 29, 30, 31, 32, 33):
            compare = "reserved_bytes"
            notes += "Peak memory reserved during training -> reserved_bytes (TT-030 equals TT-027, so the LoRA-layers table is the same reserved stat). "
            if n in (31, 33):
                notes += "'all layers' also adapts the output projection; mapped to all-linear (lm_head LoRA adds <0.3M params at r=8). "
            if n in (28, 29):
                pass
        else:
            notes += "Meta-Llama-3-8B-Instruct = llama-3.1-8b architecture; 'peak memory usage of 18.5 GB' (stat not named) -> total_bytes. "
        if n in (28, 29):
            notes += "QLoRA: NF4 base, r=8 on q,k,v,o + MLP (7B_qlora_single_device). "
    elif n == 35:
        unit = GB
        compare = "allocated_bytes"
        sc = {"model": "llama-3.1-8b", "task": "inference", "weights": "bf16", "engine": "hf", "batch": 1,
              "seq_len": 8192, "prompt_len": 8192 - 200, "output_len": 200}
        notes = ("torchtune generate recipe (torchtune, HF-like single device -> engine hf), Meta-Llama-3-8B merged "
                 "model = llama-3.1-8b; 'Memory used: 18.31 GB' = torch.cuda.max_memory_allocated/1e9. The recipe "
                 "pre-allocated a KV cache for the model's max_seq_len (8192 for Llama-3) at the time, so seq_len "
                 "8192 (assumption; prompt short, ~200 new tokens, prompt_len/output_len nominal).")
    else:
        compare = "weights_bytes"
        sc = tt_train("lora", "llama-3.2-3b", 4, 2048, rank=64,
                      targets=["q_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
        notes = (TTNOTE + "e2e tutorial: peak allocated after model init (before training) = weights + LoRA adapters "
                 "-> weights_bytes; GiB; seq_len irrelevant (2048 nominal); LoRA config = 3B_lora_single_device "
                 "defaults (recalled).")
    return dict(scenario=sc, compare=compare, unit=unit, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes)


def m_peftrm(r, i):
    n = int(r["id"].split("-")[1])
    model = r["model"]
    offload = "offload" in r["zero_stage"].lower()
    full = r["scenario"] == "full"
    tr = {"optimizer": "adamw", "mixed_precision": "fp32", "gradient_checkpointing": False,
          "flash_attention": False, "grad_accum": 1}
    if "T0_3B" in model:
        m, targets, seq = hf("t0_3b"), QV, 64
    elif "mt0" in model:
        m, targets, seq = hf("mt0-xxl"), QV, 64
    else:
        m, targets, seq = "bloom-7b1", QKV, 64
    sc = {"model": m, "task": "full" if full else "lora", "weights": "fp32",
          "engine": "deepspeed" if offload else "hf", "batch": 8, "seq_len": seq,
          "gpu": "a100-sxm4-80gb", "gpu_count": 1, "training": tr}
    if not full:
        tr["lora_rank"], tr["lora_targets"] = 8, targets
    if offload:
        tr["zero_stage"], tr["offload"] = 3, "optimizer+params"
    notes = ("PEFT README table (twitter_complaints): fp32 weights (no torch_dtype), batch 8, short sequences; "
             "TorchTracemalloc = torch.cuda.max_memory_allocated -> allocated_bytes; 'GB' taken as 1e9 (unit not "
             "stated by the source). ")
    if "bloomz" in model:
        notes += "bloomz-7b1 = bloom-7b1 architecture; max_length 64; LoRA on query_key_value (fused) -> q,k,v. "
    else:
        notes += "seq_len 64 assumed (short twitter_complaints examples). "
    if offload:
        notes += "DeepSpeed ZeRO-3 with CPU offload of params and optimizer -> offload optimizer+params. "
    include, reason = True, ""
    if "T0_3B" in model or "mt0" in model:
        include, reason = False, "encoder-decoder (T5/mT5) model cannot be represented as a decoder-only config"
    if "OOM" in r["metric"]:
        include, reason = False, "OOM: value is the GPU capacity, only a lower bound on the requirement"
    return dict(scenario=sc, compare="allocated_bytes", unit=GB, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes)


def m_peftdoc(r, i):
    n = int(r["id"].split("-")[1])
    qlora = r["scenario"] == "QLoRA"
    tr = {"optimizer": "adamw", "mixed_precision": "bf16", "gradient_checkpointing": True,
          "flash_attention": True, "lora_rank": 8, "lora_targets": "all-linear", "zero_stage": 3}
    batch = 2 if qlora else 8
    engine = "deepspeed" if n <= 2 else "fsdp"
    gpu = {1: "h100-sxm5-80gb", 2: "a100-sxm4-40gb", 3: "h100-sxm5-80gb", 4: None, 5: None}[n]
    sc = {"model": "llama-2-70b", "task": "qlora" if qlora else "lora", "weights": "nf4" if qlora else "bf16",
          "engine": engine, "batch": batch, "seq_len": 2048, "gpu_count": 2 if qlora else 8,
          "parallel": {"dp": 2 if qlora else 8}, "training": tr}
    if gpu:
        sc["gpu"] = gpu
    if n == 1:
        tr["grad_accum"] = 4
    notes = ("PEFT docs Llama-2-70B: TRL SFTTrainer, LoRA r=8 all-linear, packed 2048, GC on, FA2, bf16; "
             "%s ZeRO-3/FULL_SHARD (zero_stage 3). " % engine)
    if qlora:
        notes += "QLoRA: NF4 double-quant, bf16 quant storage. "
    notes += "Per-GPU memory from nvidia-smi screenshot or text, tool not always named -> total_bytes; GB = 1e9. "
    include, reason = True, ""
    measured_override = None
    if n == 3:
        measured_override = 76
        include, reason = False, ("range '72-80 GB' from a screenshot; the allocator fills the GPU and the peak is at "
                                  "the FULL_STATE_DICT save; measured set to the 76 GB midpoint")
    if n == 4:
        tr["offload"] = "optimizer+params"
        notes += "FSDP CPU offload (params, grads, optimizer) -> offload optimizer+params; '24GB GPUs' unnamed -> gpu omitted. "
    if n == 5:
        notes += "Same run without CPU offload; GPU unnamed (>=40GB) -> gpu omitted. "
    return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes, measured_override=measured_override)


def m_unsloth(r, i):
    fw = r["framework"]
    model = r["model"]
    if "CodeLlama" in model:
        m = hf("codellama-34b")
    elif "Mistral" in model:
        m = hf("mistral-7b-v0.1")
    else:
        m = "llama-2-7b"
    t4 = "T4" in r["gpu"]
    n = int(r["num_gpus"])
    gpu = "t4-16gb" if t4 else "a100-sxm4-40gb"
    eager = fw.strip() == "HF transformers"
    tr = {"optimizer": "adamw-8bit", "mixed_precision": "fp16" if t4 else "bf16", "gradient_checkpointing": True,
          "flash_attention": not eager, "lora_rank": 16, "lora_targets": ALL7, "grad_accum": 4}
    sc = {"model": m, "task": "qlora", "weights": "nf4", "engine": "hf", "batch": 2, "seq_len": 2048,
          "gpu": gpu, "gpu_count": n, "training": tr}
    if n > 1:
        sc["parallel"] = {"dp": n}
    notes = ("Unsloth benchmark table (%s, %s): QLoRA NF4, r=16 on all 7 projections, GC on, batch 2 / GA 4, "
             "adamw_8bit; seq_len = max_seq_length 2048 (actual lengths dataset-dependent: configured maximum "
             "used); %s. 'MB' taken as MiB (2^20): Unsloth scripts divide torch byte counts by 1024^2. Tool not "
             "stated (Unsloth notebooks print max_memory_reserved) -> total_bytes per the mapping rule."
             % (fw, r["gpu"], "eager attention -> flash_attention false" if eager else
                "FA2/SDPA (memory-efficient, no s^2 scores) -> flash_attention true"))
    if "Mistral" in model:
        notes += " Mistral-7B-v0.1 inline hf_config (vocab 32000, sliding window 4096)."
    if n > 1:
        notes += " 2xT4 DDP: figure presumed the per-GPU peak (dp=2)."
    # The sequence lengths are not known: Alpaca and SlimOrca examples are padded per batch, not
    # packed, and the same recipe measures 2.5x more on the A100 than on the T4 (UNSLOTH-001 vs -010),
    # which no single configured length reproduces.
    include, reason = False, ("actual sequence lengths unknown (unpacked Alpaca/SlimOrca, dynamic padding); "
                              "the A100 and T4 rows of the same recipe differ 2.5x")
    if "Unsloth" in fw:
        include, reason = False, "Unsloth custom kernels and offloaded gradient checkpointing are not representable"
    if "OOM" in r["flash_attn"] or "OOM" in r["notes"]:
        include, reason = False, "OOM: value is the GPU capacity (40 GB), only a lower bound"
    return dict(scenario=sc, compare="total_bytes", unit=MiB, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes)


def m_unslothctx(r, i):
    model = r["model"]
    m = "llama-3.3-70b-instruct" if "3.3-70B" in model else "llama-3.1-8b"
    budget = int(r["gpu"].split("(")[-1].split()[0]) if "(" in r["gpu"] else int(r["gpu"].split()[0])
    value = int(r["value"])
    tr = {"optimizer": "adamw-8bit", "mixed_precision": "bf16", "gradient_checkpointing": True,
          "flash_attention": True, "lora_rank": 32, "lora_targets": ALL7}
    sc = {"model": m, "task": "qlora", "weights": "nf4", "engine": "hf", "batch": 1,
          "seq_len": value if value > 0 else 1024, "gpu_count": 1, "training": tr}
    if budget == 80:
        sc["gpu"] = "a100-sxm4-80gb"
    notes = ("Unsloth context-length table: the longest sequence that fits a %d GB VRAM budget; mapped as "
             "'peak at seq_len=%d equals the budget' -> compare total_bytes with measured = budget, taken as %d GiB "
             "(card sizes such as 24/48/80 GB are binary). QLoRA NF4 r=32 all linear, batch 1, adamw_8bit, GC on, "
             "FA2. %s" % (budget, value, budget,
                          "Llama-3.1-8B-Instruct = llama-3.1-8b. " if "8B" in model else
                          "Llama-3.3-70B-Instruct is a catalog id. "))
    if "fit" in r["measured_or_estimated"]:
        notes += "Values are exactly linear in VRAM (a fitted line). "
    if budget != 80:
        notes += "GPU with that budget unnamed -> gpu omitted. "
    include, reason = True, ""
    if r["framework"].startswith("Unsloth"):
        include, reason = False, "Unsloth gradient offload + cut cross-entropy are not representable"
    elif value == 0:
        include, reason = False, "OOM at any length (value 0): no sequence length to compare; seq_len 1024 nominal"
    return dict(scenario=sc, compare="total_bytes", unit=None, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes, measured_override=budget * GiB)


def m_lfwiki(r, i):
    fw = r["framework"]
    qlora = r["scenario"] == "QLoRA"
    eager = "(HF)" in fw
    tr = {"optimizer": "adamw", "mixed_precision": "bf16", "gradient_checkpointing": True,
          "flash_attention": not eager, "lora_rank": 8, "lora_targets": QV, "grad_accum": 2}
    sc = {"model": "llama-2-7b", "task": "qlora" if qlora else "lora", "weights": "nf4" if qlora else "bf16",
          "engine": "hf", "batch": 4, "seq_len": 1024, "gpu_count": 1, "training": tr}
    notes = ("LLaMA-Factory wiki (quoted in the Unsloth README): Llama-2-7B, batch 4 / GA 2, max length 1024, "
             "LoRA r=8 on q_proj,v_proj (default then), GC on, %s; A100 40/80GB unspecified -> gpu omitted; "
             "'GRAM' tool not stated -> total_bytes; whole GB (1e9), rounded to 1 GB."
             % ("eager attention" if eager else "FA2"))
    include, reason = True, ""
    if "Unsloth" in fw:
        include, reason = False, "Unsloth custom kernels are not representable"
    return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes)


def m_hfblog(r, i):
    n = int(r["id"].split("-")[1])
    w = {1: "bf16", 2: "int8", 3: "nf4", 4: "bf16", 5: "bf16"}[n]
    if n <= 3:
        seq, P = 80, 20
    else:
        seq, P = 4060, 4000
    sc = {"model": hf("octocoder"), "task": "inference", "weights": w, "engine": "hf", "batch": 1,
          "seq_len": seq, "prompt_len": P, "output_len": 60, "gpu": "a100-sxm4-40gb", "gpu_count": 1}
    notes = ("HF 'optimize LLM' blog: OctoCoder 15.5B (gpt_bigcode, MQA, inline hf_config), pipeline with "
             "device_map=auto; torch.cuda.max_memory_allocated -> allocated_bytes; GiB (bytes/1024^3). ")
    if n <= 3:
        notes += "Short prompt ~20 tokens + 60 new -> seq_len 80. "
    if n == 2:
        notes += "bnb LLM.int8 -> int8. "
    if n == 3:
        notes += "bnb load_in_4bit default quant type is fp4 (same storage as nf4) -> nf4. "
    include, reason = True, ""
    if n >= 4:
        include, reason = False, "long-prompt token count not given (seq_len 4060 is a guess)"
        notes += ("Long prompt (10x system prompt); token count not given; %s attention." %
                  ("eager" if n == 4 else "SDPA flash"))
    return dict(scenario=sc, compare="allocated_bytes", unit=GiB, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes)


def m_hfdoc(r, i):
    n = int(r["id"].split("-")[1])
    if n == 1:
        sc = {"model": hf("bert-large-uncased"), "task": "inference", "weights": "fp32", "engine": "hf",
              "batch": 1, "seq_len": 1, "gpu": "v100-sxm2-16gb", "gpu_count": 1}
        return dict(scenario=sc, compare="overhead_bytes", unit=MiB, per_gpu=True, include=False,
                    exclude_reason="no model loaded (CUDA context + kernels only); use as a unit check of the overhead constant",
                    notes="model_memory_anatomy: torch.ones((1,1)).to('cuda') then pynvml used -> CUDA context = "
                          "overhead_bytes; value printed as 'MB' is info.used//1024**2 = MiB. Scenario model is a "
                          "placeholder (bert-large).")
    if n == 2:
        sc = {"model": hf("bert-large-uncased"), "task": "inference", "weights": "fp32", "engine": "hf",
              "batch": 1, "seq_len": 512, "gpu": "v100-sxm2-16gb", "gpu_count": 1}
        notes = "bert-large-uncased fp32 loaded; nvidia-smi (pynvml) used incl. CUDA context -> total_bytes; MiB."
    else:
        sc = {"model": hf("bert-large-uncased"), "task": "full", "weights": "fp32", "engine": "hf", "batch": 4,
              "seq_len": 512, "gpu": "v100-sxm2-16gb", "gpu_count": 1,
              "training": {"optimizer": "adamw", "mixed_precision": "fp32", "gradient_checkpointing": False,
                           "flash_attention": False, "grad_accum": 1}}
        notes = ("bert-large-uncased sequence classification, Trainer defaults (fp32, AdamW), batch 4, seq 512, "
                 "eager; nvidia-smi used after training (incl. context and cache) -> total_bytes; MiB.")
    return dict(scenario=sc, compare="total_bytes", unit=MiB, per_gpu=True, include=False,
                exclude_reason="encoder-only BERT cannot be represented as a decoder-only config", notes=notes)


def m_accel(r, i):
    n = int(r["id"].split("-")[1])
    if n <= 4:
        m = {1: "gpt-j-6b", 2: "gpt-j-6b", 3: hf("gpt-neox-20b"), 4: hf("t0pp")}[n]
        w = "fp16" if r["weight_precision"] == "float16" else "fp32"
        g = int(r["num_gpus"])
        sc = {"model": m, "task": "inference", "weights": w, "engine": "hf", "batch": 1, "seq_len": 128,
              "gpu_count": g}
        if g > 1:
            sc["parallel"] = {"pp": g}
        notes = ("accelerate big-model-inference benchmark on 2x Titan RTX (not in the catalog -> gpu omitted), "
                 "device_map=auto; short generation -> seq_len 128 (nominal). Per-GPU peaks are torch allocated "
                 "('exactly the size of the model put on a given GPU') -> allocated_bytes. Unit: the printed 'GB' "
                 "must be GiB: GPT-J fp16 weights are 12.1e9 B = 11.3 GiB, so 11.7 'GB' < weights if read as 1e9. ")
        if g > 1:
            notes += "Sum of GPU0 + GPU1 (%s) -> per_gpu false; naive layer split -> parallel.pp=%d (split is uneven). " % (
                r["notes"].split(";")[0], g)
        include, reason = True, ""
        if n == 4:
            include, reason = False, "encoder-decoder T0pp (T5) cannot be represented as a decoder-only config"
        return dict(scenario=sc, compare="allocated_bytes", unit=GiB, per_gpu=(g == 1), include=include,
                    exclude_reason=reason, notes=notes)
    sc = {"model": hf("bert-base-cased"), "task": "inference", "weights": "fp32", "engine": "hf", "batch": 1,
          "seq_len": 1, "gpu_count": 1}
    notes = ("bert-base-cased weights only -> weights_bytes. 'MB' is MiB: 108.3M params x 4 B = 433.2e6 B = 413.18 MiB, "
             "exactly accelerate's estimate. ")
    if n == 5:
        return dict(scenario=sc, compare="weights_bytes", unit=MiB, per_gpu=True, include=False,
                    exclude_reason="encoder-only BERT cannot be represented as a decoder-only config",
                    notes=notes + "Measured load on CUDA.")
    return dict(scenario=sc, compare="weights_bytes", unit=MiB, per_gpu=True, include=False,
                exclude_reason="estimated (accelerate estimate-memory output), not a measurement",
                notes=notes + "accelerate estimate-memory figure.")


def m_qweninf(r, i):
    name = r["model"]
    n = int(r["num_gpus"])
    prec = r["weight_precision"]
    w = {"bf16": "bf16", "GPTQ int8": "gptq-int8", "GPTQ int4": "gptq-int4"}[prec]
    sc = {"model": qwen1_model(name), "task": "inference", "weights": w, "engine": "hf", "batch": 1,
          "seq_len": 2049, "prompt_len": 1, "output_len": 2048, "gpu": "a100-sxm4-80gb", "gpu_count": n}
    if n > 1:
        sc["parallel"] = {"pp": n}
    notes = ("Qwen v1 README 'Inference Performance': %s (MHA, inline hf_config), generating 2048 tokens from a "
             "short context -> prompt 1 + 2048; A100-80G, FA2. Tool not stated -> total_bytes; 'GB' taken as 1e9 "
             "per the unit column (may be GiB)." % name.split("/")[1])
    if n > 1:
        notes += " Total over %d GPUs (per_gpu false), HF device_map layer split -> parallel.pp=%d." % (n, n)
    return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=(n == 1), include=True,
                exclude_reason="", notes=notes)


def m_baichuan(r, i):
    m = "baichuan2-13b" if "13B" in r["model"] else hf("baichuan2-7b")
    p = r["weight_precision"]
    w = "bf16" if p.startswith("bf16") else "int8" if p.startswith("8") else "int4"
    sc = {"model": m, "task": "inference", "weights": w, "engine": "hf", "batch": 1, "seq_len": 1, "gpu_count": 1}
    notes = ("Baichuan2 README 'Quantization Effect' (%s, chat = base architecture%s); memory just after load "
             "(seq_len 1 nominal) -> weights_bytes. Unit column says GB but the 7B bf16 figure 14.0 matches "
             "the weights in GiB (13.99 GiB) -> GiB. %s" % (
                 r["model"].split("/")[1], "; 13B is catalog baichuan2-13b" if "13B" in r["model"] else
                 "; 7B inline hf_config",
                 {"bf16": "bf16/fp16.", "int8": "Online quantize(8) -> int8.",
                  "int4": "Online quantize(4) -> int4 (exact 4-bit scheme not stated)."}[w]))
    return dict(scenario=sc, compare="weights_bytes", unit=GiB, per_gpu=True, include=True,
                exclude_reason="", notes=notes)


def m_chatglm(r, i):
    p = r["weight_precision"]
    w = "fp16" if p == "fp16" else "int8" if "INT8" in p else "int4"
    sc = {"model": hf("chatglm-6b"), "task": "inference", "weights": w, "engine": "hf", "batch": 1,
          "seq_len": 1024, "prompt_len": 768, "output_len": 256, "gpu_count": 1}
    notes = ("ChatGLM-6B README (inline hf_config, chatglm v1): GPU memory after 2-3 dialogue rounds -> seq_len 1024 "
             "(assumed); tool not stated -> total_bytes; rounded whole GB (1e9); INT8/INT4 = model.quantize(n) with "
             "fp16 embeddings.")
    return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=True, include=True,
                exclude_reason="", notes=notes)


def m_galore(r, i):
    sc = {"model": hf("llama-7b-galore"), "task": "pretrain", "weights": "bf16", "engine": "hf", "batch": 16,
          "seq_len": 256, "gpu": "rtx-4090-24gb", "gpu_count": 1,
          "training": {"optimizer": "adamw-8bit", "mixed_precision": "pure-bf16", "gradient_checkpointing": True,
                       "flash_attention": True, "optimizer_in_backward": True, "grad_accum": 1}}
    notes = ("GaLore README: LLaMA-7B (configs/llama_7b.json, inline hf_config) pretraining, batch 16, seq 256, "
             "pure bf16, GaLoreAdamW8bit rank 1024 with per-layer updates in backward hooks (-> optimizer_in_backward), "
             "AC on. '22.8G' tool not stated -> total_bytes; GB = 1e9. Scenario approximates GaLore with full-rank "
             "8-bit AdamW.")
    return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=True, include=False,
                exclude_reason="GaLore low-rank projected optimizer states are not representable (scenario uses full 8-bit AdamW)",
                notes=notes)


def m_moeclaim(r, i):
    n = int(r["id"].split("-")[1])
    tr = {"optimizer": "adamw-8bit", "mixed_precision": "bf16", "gradient_checkpointing": True,
          "flash_attention": True, "lora_rank": 16, "lora_targets": ALL7}
    sc = {"task": "lora", "weights": "bf16", "engine": "hf", "batch": 2, "seq_len": 2048, "gpu_count": 1,
          "training": tr}
    if n == 1:
        sc.update(model="qwen3-30b-a3b", task="qlora", weights="nf4")
        notes = "Unsloth claim: Qwen3-30B-A3B 4-bit LoRA in 17.5 GB; notebook defaults assumed (batch 2, 2048, r=16)."
    elif 2 <= n <= 7:
        size = {2: "35B-A3B", 3: "0.8B", 4: "2B", 5: "4B", 6: "9B", 7: "27B"}[n]
        if n == 7:
            sc["model"] = hf("qwen3.5-27b")
        else:
            p = {2: 35e9, 3: 0.8e9, 4: 2e9, 5: 4e9, 6: 9e9}[n]
            sc["model"] = {"params": p}
        notes = ("Unsloth claim for Qwen3.5-%s bf16 LoRA (hybrid Gated DeltaNet/attention%s); defaults unknown "
                 "(batch 2, 2048, r=16 assumed). %s" % (size, ", MoE" if n == 2 else "",
                 "Real config.json not located -> {'params': N} placeholder." if n != 7 else
                 "Partial hf_config (text dims from THUDM/slime)."))
    elif n == 8:
        sc.update(model="mixtral-8x7b-v0.1", task="qlora", weights="nf4")
        tr.update(optimizer="adamw", lora_rank=8, lora_targets=QV)
        notes = "LLaMA-Factory announcement: Mixtral 8x7B 4-bit LoRA with FA2 needs 28 GB; batch/seq unknown (2, 2048 assumed)."
    else:
        sc.update(model="mixtral-8x7b-v0.1", task="qlora", weights="nf4", engine="deepspeed", gpu="a100-sxm4-80gb",
                  gpu_count=8, parallel={"dp": 8})
        tr.update(optimizer="adamw", lora_rank=8, lora_targets=QV, zero_stage=3)
        notes = "FastChat issue comment: Mixtral QLoRA + ZeRO-3 on 8xA100, ~24 GB per GPU; config unknown."
    notes += " Vendor/anecdotal figure, 'GB' as 1e9 -> total_bytes."
    return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=True, include=False,
                exclude_reason="vendor claim / anecdote with unknown configuration (Tier C)", notes=notes)


def m_axolotl(r, i):
    n = int(r["id"].split("-")[1])
    sc = {"model": hf("mistral-7b-v0.1"), "task": "lora", "weights": "int8", "engine": "hf", "batch": 1,
          "seq_len": 4096, "gpu": "a100-sxm4-80gb", "gpu_count": 1,
          "training": {"optimizer": "adamw", "mixed_precision": "bf16", "lora_rank": 8, "lora_targets": ALL7}}
    unitnote = ("axolotl logs torch.cuda.memory_allocated()/1024**3, so its 'GB' is GiB (assumption from axolotl's "
                "bench utility). ")
    if n == 1:
        # axolotl src/axolotl/utils/models.py at 10388a8 (the code of the date) logs "after model load" at
        # line 404, straight after from_pretrained and before the fp32 casts and load_adapter (lines 407-440): the
        # figure is the loaded model alone, no LoRA adapters, so the scenario loads it for inference. axolotl's
        # requirements.txt pinned transformers acc394c (October 2023), whose Mistral builds per-layer rotary caches.
        sc1 = {"model": hf("mistral-7b-v0.1"), "task": "inference", "weights": "int8", "engine": "hf",
               "engine_version": "4.35", "batch": 1, "seq_len": 1, "gpu": "a100-sxm4-80gb", "gpu_count": 1}
        return dict(scenario=sc1, compare="weights_bytes", unit=GiB, per_gpu=True, include=True, exclude_reason="",
                    notes="axolotl issue #814: torch allocated right after loading Mistral-7B-v0.1 in LLM.int8 -> "
                          "weights_bytes. " + unitnote + "Logged before the adapters are attached (axolotl "
                          "models.py 10388a8: line 404 before load_adapter at 440) -> task inference; transformers "
                          "acc394c (axolotl requirements.txt) -> engine_version 4.35 (per-layer rotary caches).")
    return dict(scenario=sc, compare="allocated_bytes", unit=GiB, per_gpu=True, include=False,
                exclude_reason="snapshot of memory_allocated at a log step (not a peak); run flagged as an allocator anomaly (56 GB cache); LoRA/GC/FA settings unknown",
                notes="axolotl issue #814: allocated while training 13.27, cache +56 GB. " + unitnote)


def m_est(r, i):
    n = int(r["id"].split("-")[1])
    reason = "estimated (analytic figure or rule of thumb), not a measurement"
    if n <= 19:
        model = {"params": 7e9} if "7B" in r["model"] and "Mixtral" not in r["model"] else \
            {"params": 70e9} if "70B" in r["model"] else "mixtral-8x7b-v0.1"
        scen = r["scenario"]
        bits = r["weight_precision"]
        task = {"full": "full", "LoRA": "lora", "QLoRA": "qlora", "freeze": "freeze"}[scen]
        w = {"32-bit": "bf16", "16-bit": "bf16", "8-bit": "int8", "4-bit": "nf4", "2-bit": "q2_k"}[bits]
        mp = "bf16" if bits == "32-bit" else "pure-bf16" if (task == "full") else "bf16"
        sc = {"model": model, "task": task, "weights": w, "engine": "hf", "batch": 1, "seq_len": 512,
              "gpu_count": 1, "training": {"optimizer": "adamw", "mixed_precision": mp}}
        notes = ("LLaMA-Factory hardware table (marked estimated): %s, %s %s -> total_bytes, GB=1e9. Batch/seq not "
                 "given (1 x 512 nominal). %s" % (r["model"], bits, scen,
                 "2-bit QLoRA mapped to q2_k (nearest 2-bit format)." if bits == "2-bit" else ""))
        return dict(scenario=sc, compare="total_bytes", unit=GB, per_gpu=True, include=False,
                    exclude_reason=reason, notes=notes)
    if n <= 28:
        m = "llama-3.1-" + r["model"].split("-")[-1].lower()
        seq = int(r["seq_len"])
        sc = {"model": m, "task": "inference", "weights": "bf16", "kv_cache": "fp16", "engine": "hf", "batch": 1,
              "seq_len": seq, "gpu_count": 1}
        return dict(scenario=sc, compare="kv_cache_bytes", unit=GiB, per_gpu=True, include=False,
                    exclude_reason=reason + " (exact analytic KV formula: use as a unit test)",
                    notes="HF Llama 3.1 blog KV-cache table, fp16, batch 1, %d tokens; printed 'GB' is GiB "
                          "(8B at 1k = 128 MiB = 0.125)." % seq)
    sc = {"model": hf("gpt2-xl"), "task": "full", "weights": "fp16", "engine": "hf", "gpu_count": 1,
          "training": {"optimizer": "adamw", "mixed_precision": "fp16", "gradient_checkpointing": False}}
    if n == 29:
        sc.update(batch=1, seq_len=1024)
        return dict(scenario=sc, compare="allocated_bytes", unit=GB, per_gpu=True, include=False,
                    exclude_reason=reason,
                    notes="ZeRO paper: GPT-2 1.5B (gpt2-xl config) model states = 16 B/param (2 w + 2 g + 12 Adam/master) = "
                          "24 GB (1e9); compare against weights+gradients+optimizer+master components, not a full peak "
                          "(allocated_bytes is the nearest key).")
    sc.update(batch=32, seq_len=1024)
    return dict(scenario=sc, compare="activations_bytes", unit=GB, per_gpu=True, include=False,
                exclude_reason=reason + "; value recalled, not verified",
                notes="ZeRO paper: residual activations of GPT-2 1.5B at batch 32 x 1024 tokens without checkpointing ~60 GB (1e9).")


def m_titan(r, i):
    n = int(r["id"].split("-")[1])
    model = {"8.03": "llama-3.1-8b", "70.6": "llama-3.1-70b", "405.9": "llama-3.1-405b"}[r["params_b"]]
    ng = int(r["num_gpus"])
    tr = {"optimizer": "adamw", "mixed_precision": "bf16", "flash_attention": True, "zero_stage": 3,
          "grad_accum": 1}
    par = {"dp": ng}
    batch = int(r["batch"])
    if n <= 3:
        tr["gradient_checkpointing"] = "selective"
    else:
        tr["gradient_checkpointing"] = True
        par = {"dp": 32, "tp": 8, "sequence_parallel": True}
    if n >= 6:
        # torchtitan pipeline default microbatch size 1: 32 micro-batches of one sequence.
        par = {"dp": 8, "tp": 8, "pp": 8, "sequence_parallel": True}
        tr["grad_accum"], batch = 32, 1
    sc = {"model": model, "task": "pretrain", "weights": "bf16", "engine": "fsdp", "batch": batch,
          "seq_len": 8192, "gpu_count": ng, "parallel": par, "training": tr}
    notes = ("torchtitan: FSDP2 (zero_stage 3) with bf16 compute and fp32 master/AdamW (mixed_precision bf16); "
             "TP plan with SequenceParallel norms (sequence_parallel true); memory = the log's max reserved GiB -> "
             "reserved_bytes; H100 96GB not in the catalog -> gpu omitted. ")
    include, reason = True, ""
    if n == 2:
        include, reason = False, "torch.compile is not representable (fuses away part of the saved activations)"
    if n <= 3:
        include, reason = False, ("torchtitan's selective op-level AC (saves the outputs of every other matmul and "
                                  "recomputes the rest) is not gpusizer's selective recomputation (which only drops the "
                                  "attention scores, nothing with FlashAttention)")
    if n >= 4:
        notes += "torch.compile and Float8 linears run on top; with full AC the saved tensors are the bf16 layer inputs. "
    if n == 7:
        include, reason = False, "interleaved 1F1B: virtual stages per rank not stated"
    if n == 6:
        include, reason = False, ("PP with FSDP: torchtitan keeps each stage's parameters and gradients unsharded across "
                                  "micro-batches (reshard_after_forward off under PP), and the micro-batch size is not "
                                  "stated; gpusizer shards them")
    return dict(scenario=sc, compare="reserved_bytes", unit=GiB, per_gpu=True, include=include,
                exclude_reason=reason, notes=notes)


LLMD_MODELS = {"meta-llama/Llama-3.1-8B-Instruct": ("llama-3.1-8b", "bf16"),
               "Qwen/Qwen3-0.6B": ("qwen3-0.6b", "bf16"), "Qwen/Qwen3-32B": ("qwen3-32b", "bf16"),
               "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic": ("llama-3.3-70b-instruct", "fp8"),
               "openai/gpt-oss-20b": ("gpt-oss-20b", "mxfp4"), "openai/gpt-oss-120b": ("gpt-oss-120b", "mxfp4"),
               "mistralai/Mistral-Small-3.2-24B-Instruct-2506": (None, "bf16")}


def m_llmd(r, i):
    """llm-d-benchmark's vLLM 0.11 start-up logs on one H100 (79.18 GiB) and two at TP 2."""
    n = int(r["num_gpus"])
    metric = r["metric"]
    compare = ("kv_cache_capacity_tokens" if metric.startswith("GPU KV cache size")
               else "activations_bytes" if "activation" in metric else "kv_cache_bytes")
    model, weights = LLMD_MODELS[r["model"]]
    seq = int(r["seq_len"].split()[-1])
    util = 0.95 if "0.95" in r["notes"] else 0.9
    sc = {"model": model or r["model"], "task": "inference", "weights": weights, "engine": "vllm",
          "engine_version": "0.11", "gpu_memory_utilization": util, "seq_len": seq,
          "gpu": "h100-sxm5-80gb", "gpu_count": n, "parallel": {"tp": n}}
    notes = ("vLLM 0.11.0 V1 OpenAI server (llm-d-benchmark), --max-model-len %d -> seq_len, "
             "--gpu-memory-utilization %g, TP=%d, per-GPU figure; max_num_batched_tokens and max_num_seqs are the "
             "server's H100 defaults (8192, 1024: not given); block size 128 does not change the pool. "
             "Log line '%s' -> %s." % (seq, util, n, metric, compare))
    include, reason = True, ""
    if model is None:
        include, reason = False, ("multimodal Mistral3ForConditionalGeneration (vision encoder) is not representable "
                                  "as a decoder-only config, and its activation peak (2.12 GiB, 17 B per logit over "
                                  "1024 x 131,072) is not the text models' sampler peak")
    return dict(scenario=sc, compare=compare, unit=(None if compare == "kv_cache_capacity_tokens" else GiB),
                measured_override=(float(r["value"]) if compare == "kv_cache_capacity_tokens" else None),
                per_gpu=True, include=include, exclude_reason=reason, notes=notes)


def m_sglang(r, i):
    """Start-up KV pools of Qwen3-235B-A22B-FP8 on 4 H100 from vLLM issue #21348."""
    vllm = r["id"] == "SGLANG-002"
    sc = {"model": "qwen3-235b-a22b", "task": "inference", "weights": "fp8",
          "engine": "vllm" if vllm else "sglang", "seq_len": 40960, "gpu": "h100-sxm5-80gb",
          "gpu_count": 4, "parallel": {"tp": 4}}
    if not vllm:
        sc["gpu_memory_utilization"] = 0.93
    notes = ("Qwen3-235B-A22B-FP8 (block-wise FP8 -> fp8), TP 4 on H100, context length the model's default "
             "40,960 -> seq_len (not printed), per-GPU token count of the pool; %s. Log line '%s' -> "
             "kv_cache_capacity_tokens." % ("vLLM V1, default util 0.9" if vllm else
                                            "SGLang --mem-fraction-static 0.93 -> gpu_memory_utilization",
                                            r["metric"]))
    include, reason = True, ""
    if vllm:
        include, reason = False, ("vLLM release not stated (July 2025: 0.9.2 or 0.10.0, whose sampler "
                                  "rules differ) and an LMCache connector (kv_both) is configured")
    return dict(scenario=sc, compare="kv_cache_capacity_tokens", unit=None, measured_override=float(r["value"]),
                per_gpu=True, include=include, exclude_reason=reason, notes=notes)


# Published start-up logs of vLLM (VLLMLOGS) and SGLang (SGLANGLOGS), session 21. Each entry is the
# scenario of one row: what its launch line and log state; what they do not state is the engine's
# default (docs/validation-cases.md "VLLMLOGS"). Qwen2-7B-Instruct has Qwen2.5-7B's dimensions
# (hidden 3584, 28 layers, 4 KV heads, vocab 152064) and QwQ-32B Qwen2.5-32B's (hidden 5120,
# 64 layers, 8 KV heads), per their HF config.json files.
A100_80, A100_40, RTX4090, RTX3090 = "a100-sxm4-80gb", "a100-sxm4-40gb", "rtx-4090-24gb", "rtx-3090-24gb"
VLLAMA_LAUNCH = {"max_num_batched_tokens": 16384, "max_num_seqs": 256}
LOG_CASES = {
    "VLLMLOGS-001": ("qwen2.5-7b", "bf16", A100_80, 1, "0.10", 0.25, 16384, {"max_num_batched_tokens": 2048}),
    "VLLMLOGS-002": ("qwen2.5-7b", "bf16", A100_80, 1, "0.10", 0.5, 16384, {"max_num_batched_tokens": 2048}),
    "VLLMLOGS-003": ("qwen2.5-7b", "bf16", A100_40, 2, "0.10", 0.5, 16384, {"max_num_batched_tokens": 2048}),
    "VLLMLOGS-004": ("qwen2.5-7b", "bf16", A100_80, 2, "0.10", 0.25, 16384, {"max_num_batched_tokens": 2048}),
    "VLLMLOGS-005": ("qwen2.5-7b", "bf16", A100_80, 2, "0.10", 0.5, 16384, {"max_num_batched_tokens": 2048}),
    "VLLMLOGS-006": ("gpt-oss-120b", "mxfp4", A100_80, 4, "0.10", 0.8, 16384, {"max_num_batched_tokens": 2048}),
    "VLLMLOGS-007": ("qwen2.5-0.5b", "bf16", RTX4090, 1, "0.11", 0.5, 32768, VLLAMA_LAUNCH),
    "VLLMLOGS-008": ("qwen2.5-1.5b", "bf16", RTX4090, 1, "0.11", 0.5, 32768, VLLAMA_LAUNCH),
    "VLLMLOGS-009": ("qwen2.5-7b", "bf16", RTX4090, 1, "0.11", 0.9, 32768, VLLAMA_LAUNCH),
    "VLLMLOGS-010": ("mistral-7b-v0.3", "bf16", RTX4090, 1, "0.11", 0.9, 32768, VLLAMA_LAUNCH),
    "VLLMLOGS-011": ("llama-3.1-8b", "bf16", RTX3090, 1, "0.6.4", 0.9, 20000, {}),
    "VLLMLOGS-012": ("llama-3.1-8b", "bf16", RTX3090, 1, "0.6.4", 0.9, 29000, {}),
    "VLLMLOGS-013": ("llama-3.1-8b", "bf16", RTX3090, 1, "0.6.4", 0.9, 20000, {}),
    "VLLMLOGS-014": ("llama-3.1-8b", "bf16", RTX3090, 1, "0.6.4", 0.9, 29000, {}),
    "VLLMLOGS-015": ("llama-3.1-8b", "bf16", A100_40, 1, "0.7", 0.9, 8192, {}),
    "VLLMLOGS-016": ("llama-3.1-8b", "bf16", A100_40, 1, "0.7", 0.9, 8192, {}),
    "VLLMLOGS-017": ("gpt-oss-20b", "mxfp4", A100_80, 1, "0.11", 0.65, 131072, {}),
    "VLLMLOGS-018": ("qwen2.5-0.5b", "bf16", "rtx-pro-6000-blackwell-96gb", 1, "0.21", 0.85, 2048, {}),
    "VLLMLOGS-019": ("qwen2.5-0.5b", "bf16", "rtx-pro-6000-blackwell-96gb", 1, "0.21", 0.85, 2048, {}),
    "SGLANGLOGS-001": ("qwen2.5-32b", "bf16", "l4-24gb", 4, "0.4", 0.85, 131072, {"max_num_batched_tokens": 2048}),
    "SGLANGLOGS-002": ("qwen3-32b", "bf16", "h100-sxm5-80gb", 1, "0.5.10", 0.90, 8192, {}),
}
LOG_EXCLUDED = {
    "VLLMLOGS-015": ("launch command not given, and the arguments were not the defaults: the activation peak of "
                     "9.37 GiB is 7x the 1.26 GiB the same model logs at 8192 tokens with default arguments "
                     "(VLLM-003, V0 sampler over 256 rows), so the pool depends on settings the issue omits"),
    "VLLMLOGS-016": ("launch command not given; 9.37 GiB is 7x the default-argument peak of the same model and "
                     "length (VLLM-003: 1.26 GiB), so max_num_seqs or another profile setting was raised"),
}
LOG_VERSION_NOTES = {
    "0.6.4": "vLLM 0.6.4 rules (the log's one-line 'Memory profiling results' form; version not printed)",
    "0.7": "vLLM 0.7 rules (V0 with the memory_profiling of PR #12126; the log is ~0.6.6)",
    "0.10": "vLLM 0.10 rules (log: 0.10.1.1)",
    "0.11": "vLLM 0.11 rules",
    "0.21": "vLLM 0.21 rules (0.21 to 0.27; log: 0.26.0)",
    "0.4": "SGLang 0.4 rules (0.4.3.post4)",
    "0.5.10": "SGLang 0.5.10 rules (0.5.10 to 0.5.x; log: 0.5.19; the fraction given, so the pool rule is checked, not the default fraction)",
}


def m_logs(r, i):
    """Published vLLM / SGLang start-up logs: the KV pool (tokens or bytes) and profile activations."""
    model, weights, gpu, n, version, util, seq, extra = LOG_CASES[r["id"]]
    sglang = r["id"].startswith("SGLANG")
    metric = r["metric"]
    compare = ("activations_bytes" if "activation" in metric
               else "kv_cache_bytes" if r["unit"] == "GiB" else "kv_cache_capacity_tokens")
    sc = {"model": model, "task": "inference", "weights": weights, "engine": "sglang" if sglang else "vllm",
          "engine_version": version, "gpu_memory_utilization": util, "seq_len": seq, "gpu": gpu,
          "gpu_count": n, "parallel": {"tp": n}}
    sc.update(extra)
    vnote = LOG_VERSION_NOTES[version]
    if r["id"] == "VLLMLOGS-017":
        vnote = ("vLLM 0.11 rules, 0.11 to 0.20 (log: 0.19.0, where CUDA graph memory stays outside "
                 "the budget: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is on by default only since 0.21.0)")
    notes = ("%s; %s %s, TP=%d, %s %g, max_model_len %d -> seq_len%s; per-GPU figure. Log line '%s' -> %s."
             % (r["source"].split(" (")[0], r["model"], weights, n,
                "mem_fraction_static" if sglang else "gpu_memory_utilization", util, seq,
                "".join(", %s %d" % kv for kv in sorted(extra.items())), metric, compare))
    notes = vnote + "; " + notes
    include, reason = r["id"] not in LOG_EXCLUDED, LOG_EXCLUDED.get(r["id"], "")
    tokens = compare == "kv_cache_capacity_tokens"
    return dict(scenario=sc, compare=compare, unit=(None if tokens else GiB),
                measured_override=(float(r["value"]) if tokens else None),
                per_gpu=True, include=include, exclude_reason=reason, notes=notes)


MAPPERS = {"PEFTMM": m_peftmm, "QWEN25": m_qwen25, "QWENFT": m_qwenft, "VLLM": m_vllm, "TT": m_tt,
           "PEFTRM": m_peftrm, "PEFTDOC": m_peftdoc, "UNSLOTH": m_unsloth, "UNSLOTHCTX": m_unslothctx,
           "LFWIKI": m_lfwiki, "HFBLOG": m_hfblog, "HFDOC": m_hfdoc, "ACCEL": m_accel, "QWENINF": m_qweninf,
           "BAICHUAN": m_baichuan, "CHATGLM": m_chatglm, "GALORE": m_galore, "MOECLAIM": m_moeclaim,
           "AXOLOTL": m_axolotl, "EST": m_est, "TITAN": m_titan, "LLMD": m_llmd,
           "SGLANG": m_sglang, "VLLMLOGS": m_logs, "SGLANGLOGS": m_logs}


def build():
    rows = list(csv.DictReader(open(CSV_PATH, newline="")))
    out = []
    for i, r in enumerate(rows):
        group = r["id"].rsplit("-", 1)[0]
        m = MAPPERS[group](r, i)
        if m.get("measured_override") is not None and m["unit"] is None:
            measured = m["measured_override"]
        else:
            v = m.get("measured_override")
            v = float(r["value"]) if v is None else v
            measured = v * m["unit"]
        measured = int(round(measured))
        tier = GROUP_TIER[group]
        if r["measured_or_estimated"].startswith("estimated"):
            tier = "EST"
        ng = num(r["num_gpus"]) or 1
        if m["per_gpu"] is False and ng == 1:
            raise SystemExit("per_gpu false with 1 GPU: " + r["id"])
        case = {"id": r["id"], "group": group, "tier": tier, "scenario": m["scenario"], "compare": m["compare"],
                "measured": measured, "per_gpu": m["per_gpu"], "num_gpus": ng, "include": m["include"],
                "use": "calibrate" if group in CALIBRATION_SOURCES else "validate"}
        if not m["include"]:
            case["exclude_reason"] = m["exclude_reason"]
        case["notes"] = m["notes"]
        out.append(case)
    with open(OUT_PATH, "w") as f:
        for c in out:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    return rows, out


def check(rows, out):
    ids = [r["id"] for r in rows]
    lines = open(OUT_PATH).read().splitlines()
    assert len(lines) == len(rows), (len(lines), len(rows))
    seen = set()
    for line, rid in zip(lines, ids):
        c = json.loads(line)
        assert c["id"] == rid, (c["id"], rid)
        assert c["id"] not in seen
        seen.add(c["id"])
        assert "model" in c["scenario"], rid
        assert c["compare"] in {"allocated_bytes", "reserved_bytes", "total_bytes", "weights_bytes",
                                "kv_cache_bytes", "activations_bytes", "overhead_bytes",
                                "kv_cache_capacity_tokens", "max_batch"}, rid
        assert c["tier"] in {"A", "B", "C", "EST"}
        assert isinstance(c["measured"], int) and c["measured"] > 0, rid
        if not c["include"]:
            assert c.get("exclude_reason"), rid
        if c["tier"] == "EST":
            assert not c["include"], rid
    print("ok: %d cases, %d included" % (len(lines), sum(json.loads(l)["include"] for l in lines)))


if __name__ == "__main__":
    rows, out = build()
    if "--check" in sys.argv:
        check(rows, out)
