#!/usr/bin/env python3
"""Writes scenario lines that are wrong in the ways a reader can go wrong (a value of every JSON
type in every field, nulls, unknown and misspelt keys at every level, two bad fields at once,
lines that are not objects, text that is not plain JSON), for comparing two builds' error answers
line by line (tools/compare_builds.sh). Deterministic per seed.
Usage: tools/bad_scenarios.py [N_PAIRS] [SEED]"""
import json
import random
import sys

n_pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 400
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 5)

bases = [
    {"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4},
    {"model": "llama-3.1-8b", "task": "lora", "gpu": "a100-80g",
     "training": {"lora_rank": 16, "gradient_checkpointing": True}},
    {"model": "mixtral-8x7b-v0.1", "engine": "vllm", "gpu": "h100", "gpu_count": 2,
     "parallel": {"tp": 2}},
    {"model": "llama-3.1-8b", "gpu": "h100", "traffic": {"requests_per_s": 2},
     "slo": {"ttft_ms": 500}},
    {"model": "yolov8m", "task": "cv-train", "gpu": "l40s", "image_size": 640},
]
values = [None, True, False, 0, 1, -1, 3, 1.5, 1e30, -0.0, "", "x", "Full", "bf16", "vllm",
          "h100", [], [1], ["q_proj"], {}, {"a": 1}]
top = ["model", "task", "weights", "kv_cache", "batch", "seq_len", "prompt_len", "output_len",
       "engine", "engine_version", "gpu_memory_utilization", "max_num_batched_tokens", "max_num_seqs", "max_model_len",
       "training", "parallel", "gpu", "gpu_count", "gpus_per_node", "image_size",
       "dataset_items", "epochs", "method", "changes", "basis", "costs", "facility", "traffic",
       "slo", "offline_requests"]
training = ["optimizer", "mixed_precision", "gradient_checkpointing", "flash_attention",
            "lora_rank", "lora_targets", "modules_to_save", "zero_stage", "offload",
            "grad_accum", "global_batch", "tokens", "chunked_loss", "optimizer_in_backward",
            "activation_offload", "compile", "trainable_layers"]
parallel = ["tp", "pp", "dp", "ep", "sequence_parallel", "pp_interleave", "cp"]
traffic = ["requests_per_s", "prompt_len", "output_len", "prompt_len_p90", "output_len_p90"]
slo = ["ttft_ms", "tpot_ms", "percentile"]
unknown = ["seq_length", "batchsize", "gpus", "modle", "Model", "task ", "x", "", "trainin",
           "lora_rnk", "tpp", "zero", "ttft", "requests"]
nested = {"training": training, "parallel": parallel, "traffic": traffic, "slo": slo}


def emit(s):
    print(json.dumps(s))


def mutate(s, rng):
    """One bad or odd field: a top-level value, a nested value, or an unknown key."""
    kind = rng.random()
    if kind < 0.5:
        s[rng.choice(top)] = rng.choice(values)
    elif kind < 0.85:
        obj = rng.choice(list(nested))
        inner = s.get(obj)
        inner = dict(inner) if isinstance(inner, dict) else {}
        inner[rng.choice(nested[obj])] = rng.choice(values)
        s[obj] = inner
    else:
        obj = rng.choice([None, "training", "parallel", "traffic", "slo", "model"])
        if obj is None:
            s[rng.choice(unknown)] = rng.choice(values)
        elif obj == "model":
            s["model"] = {rng.choice(["hf_config", "params", "foo"]): rng.choice(values)}
        else:
            inner = s.get(obj)
            inner = dict(inner) if isinstance(inner, dict) else {}
            inner[rng.choice(unknown)] = rng.choice(values)
            s[obj] = inner


# Every value in every field of every base, one at a time.
for base in bases:
    for key in top:
        for v in values:
            emit({**base, key: v})
    for obj, keys in nested.items():
        for key in keys:
            for v in values:
                inner = dict(base.get(obj)) if isinstance(base.get(obj), dict) else {}
                inner[key] = v
                emit({**base, obj: inner})
    for key in unknown:
        emit({**base, key: 1})
        for obj in nested:
            inner = dict(base.get(obj)) if isinstance(base.get(obj), dict) else {}
            inner[key] = 1
            emit({**base, obj: inner})
# Models given otherwise.
for model in ["", "24B", "0.5M", "1.5b", "200T", "lama-2-7b", "llama-2-7", "LLAMA-2-7B",
              "meta-llama/Meta-Llama-3-70B", {"params": 7e9}, {"params": "7B"}, {"params": 1},
              {"hf_config": 1}, {"hf_config": {}}, {"foo": 1}, {}, 7, None, [], True]:
    emit({"model": model, "gpu": "h100"})
# Two and three bad fields at once: which one is named.
for _ in range(n_pairs):
    s = dict(rng.choice(bases))
    for _ in range(rng.choice([2, 2, 3])):
        mutate(s, rng)
    emit(s)
# Site overrides, well-formed and not.
for costs in [{"electricity_usd_per_kwh": 0.3, "pue": 1.5}, {"server_usd_per_node": 250000},
              {"server_usd_per_node": {"h100-sxm5-80gb": 30000}}, {"utilization": 2},
              {"hours_per_month": "x"}, {"server_usd_per_node": -1}]:
    for base in bases:
        emit({**base, "costs": costs})
for facility in [{"host_base_watts": 500, "host_watts_per_gpu": 50}, {"power_margin": 0.2},
                 {"rack_budget_watts": 12000}, {"power_factor": 0.1}, {"pue": 1.2}]:
    for base in bases:
        emit({**base, "facility": facility})
# Lines that are not scenario objects.
for v in [[], [1], 1, "x", None, True]:
    emit(v)
# Text outside the plain subset the fast reader takes (escapes, a repeated key, big numbers).
print('{"model": "llama-2-7b", "model": "llama-2-13b"}')
print('{"model": "llama\\u002d2-7b", "batch": 2}')
print('{"model": "llama-2-7b", "batch": 123456789012345678901234}')
print('{"model": "llama-2-7b", "training": {"zero_stage": 1, "zero_stage": 2}}')
print('{"model": "llama-2-7b", "seq_len": 1e400}')
print('{"model": "llama-2-7b",, "batch": 2}')
