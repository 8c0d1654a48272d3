#!/usr/bin/env python3
"""Writes N random scenarios (contract JSON, one per line) drawn from the shipped catalogs, for
comparing two builds' outputs line by line (tools/compare_builds.sh). Deterministic per seed."""
import csv
import json
import random
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 11)
gpus = [r["id"] for r in csv.DictReader(open(root / "data/gpus.csv"))]
models = [json.loads(l) for l in open(root / "data/models.jsonl") if l.strip()]
llms = [m["name"].lower() for m in models if not str(m.get("family", "")).lower().startswith(("yolo", "resnet", "vit"))]
tasks = ["inference"] * 4 + ["lora", "qlora", "full", "freeze", "pretrain"]
serving_engines = ["hf", "vllm", "sglang", "trtllm", "llama.cpp"]
training_engines = ["hf", "deepspeed", "fsdp", "megatron"]
weights = ["bf16", "fp16", "fp8", "int8", "int4", "awq-int4", "q4_k_m", "q8_0"]
for _ in range(n):
    task = rng.choice(tasks)
    s = {"model": rng.choice(llms), "task": task, "gpu": rng.choice(gpus)}
    s["batch"] = rng.choice([1, 1, 2, 4, 8, 32, 128])
    s["seq_len"] = rng.choice([512, 2048, 4096, 8192, 32768])
    count = rng.choice([1, 1, 1, 2, 4, 8, 16])
    if task == "inference":
        s["engine"] = rng.choice(serving_engines)
        if rng.random() < 0.4:
            s["weights"] = rng.choice(weights)
        if rng.random() < 0.3:
            s["kv_cache"] = rng.choice(["fp8", "bf16"])
        if count > 1:
            s["gpu_count"] = count
            if rng.random() < 0.5:
                s["parallel"] = {"tp": rng.choice([1, 2, 4, 8])}
                s.pop("gpu_count")
    else:
        s["engine"] = rng.choice(training_engines)
        if task == "qlora":
            s["weights"] = "nf4"
        t = {}
        if rng.random() < 0.5:
            t["gradient_checkpointing"] = rng.choice([True, False, "selective"])
        if rng.random() < 0.3:
            t["zero_stage"] = rng.choice([0, 1, 2, 3])
        if rng.random() < 0.2:
            t["optimizer"] = rng.choice(["adamw", "adamw-8bit", "sgd", "lion"])
        if rng.random() < 0.2:
            t["tokens"] = 1e9
        if t:
            s["training"] = t
        if count > 1:
            s["gpu_count"] = count
    print(json.dumps(s))
