// Properties over random valid scenarios: finite, non-negative components; total >= reserved >=
// allocated >= the sum of the components; memory never decreases with batch or sequence length
// (engines that do not preallocate); TP never increases the per-GPU weights; speeds positive and
// under the hardware roofline. Invariants.HundredThousand runs GPUSIZER_INVARIANT_SCENARIOS
// scenarios (default 100,000; scripts/test.sh sets fewer for the sanitizer build) and prints the
// rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/json_text.h"

namespace gpusizer {
namespace {

using nlohmann::json;

const char* kComponents[] = {"weights_bytes",   "kv_cache_bytes",  "activations_bytes",
                             "gradients_bytes", "optimizer_bytes", "master_weights_bytes"};

struct Pools {
  std::vector<std::string> llms, moes, cvs, gpus;
  Pools() {
    const Catalog& c = Catalog::builtin();
    for (const auto& m : c.models()) {
      if (m.is_cv()) {
        cvs.push_back(m.id);
      } else {
        llms.push_back(m.id);
        if (m.is_moe()) moes.push_back(m.id);
      }
    }
    for (const auto& g : c.gpus()) gpus.push_back(g.id);
  }
};

const Pools& pools() {
  static const Pools p;
  return p;
}

// A random scenario over the whole input space: every task and engine, dense, MoE (a quarter of
// the LLMs drawn) and parameter-count models, 16-bit, 8-bit, 4-bit and GGUF weights, parallelism.
// Some draws are invalid combinations (the parser refuses them); the caller skips those.
json random_scenario(std::mt19937& rng) {
  const Pools& p = pools();
  auto pick = [&](const auto& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  auto chance = [&](double x) { return std::uniform_real_distribution<double>(0, 1)(rng) < x; };
  auto log_int = [&](double lo, double hi) {
    return static_cast<int64_t>(
        std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng)));
  };
  const std::vector<std::string> tasks = {"inference", "inference", "inference", "lora",
                                          "qlora",     "full",      "freeze",    "pretrain"};
  const std::vector<std::string> engines = {"hf", "vllm", "sglang", "trtllm", "llama.cpp"};
  const std::vector<std::string> train_engines = {"hf", "deepspeed", "fsdp", "megatron"};
  const std::vector<std::string> weights = {"bf16", "fp16",      "fp32",     "fp8",  "int8",
                                            "int4", "gptq-int4", "awq-int4", "mxfp4"};
  const std::vector<std::string> gguf = {"q8_0", "q6_k",   "q5_k_m", "q4_k_m",
                                         "q4_0", "q3_k_m", "q2_k"};
  const std::vector<std::string> qlora_bases = {"nf4", "int8", "int4", "gptq-int4", "awq-int4"};
  const std::vector<std::string> optimizers = {
      "adamw", "adamw-8bit", "paged-adamw-8bit", "sgd", "sgd-momentum", "adafactor", "lion"};
  const std::vector<std::string> precisions = {"bf16", "fp16", "pure-bf16", "fp32"};

  if (chance(0.03)) {
    return {{"model", pick(p.cvs)},
            {"task", "cv-train"},
            {"gpu", pick(p.gpus)},
            {"batch", log_int(1, 256)},
            {"image_size", 32 * log_int(1, 40)},
            {"dataset_items", log_int(100, 1e7)},
            {"epochs", log_int(1, 300)}};
  }
  json s;
  if (chance(0.08))
    s["model"] = {{"params", std::exp(std::uniform_real_distribution<double>(
                                 std::log(1e8), std::log(1e12))(rng))}};
  else
    s["model"] = chance(0.25) ? pick(p.moes) : pick(p.llms);
  s["task"] = pick(tasks);
  s["batch"] = log_int(1, 256);
  s["seq_len"] = log_int(16, 65536);
  if (chance(0.9)) s["gpu"] = pick(p.gpus);
  json parallel = json::object();
  if (s["task"] == "inference") {
    s["engine"] = pick(engines);
    s["weights"] = s["engine"] == "llama.cpp" && chance(0.7) ? pick(gguf) : pick(weights);
    s["kv_cache"] = chance(0.5) ? "bf16" : chance(0.5) ? "fp8" : "fp16";
    if (chance(0.3)) s["output_len"] = log_int(1, 2048);
    if (chance(0.3))
      s["gpu_memory_utilization"] = std::uniform_real_distribution<double>(0.5, 0.95)(rng);
    if (chance(0.3)) parallel["tp"] = 1 << std::uniform_int_distribution<int>(0, 3)(rng);
    if (chance(0.1)) parallel["pp"] = 2;
  } else {
    s["engine"] = pick(train_engines);
    if (s["task"] == "qlora") s["weights"] = pick(qlora_bases);
    json t = {{"optimizer", pick(optimizers)},
              {"mixed_precision", pick(precisions)},
              {"gradient_checkpointing", chance(0.5)},
              {"flash_attention", chance(0.8)},
              {"zero_stage", std::uniform_int_distribution<int>(0, 3)(rng)},
              {"grad_accum", log_int(1, 16)}};
    if (s["task"] == "lora" || s["task"] == "qlora")
      t["lora_rank"] = 1 << std::uniform_int_distribution<int>(2, 7)(rng);
    if (chance(0.2)) t["tokens"] = 1e9;
    s["training"] = t;
    s["gpu_count"] = 1 << std::uniform_int_distribution<int>(0, 4)(rng);
    if (s["engine"] == "megatron" && chance(0.5)) {
      parallel["tp"] = 1 << std::uniform_int_distribution<int>(0, 2)(rng);
      parallel["sequence_parallel"] = chance(0.5);
    }
  }
  if (!parallel.empty()) s["parallel"] = parallel;
  return s;
}

bool preallocates(const json& scenario) {
  const std::string engine = scenario.value("engine", "hf");
  return engine == "vllm" || engine == "sglang" || engine == "trtllm";
}

double gpu_field(const std::string& id, const char* key) {
  static const json all = gpus_json();
  for (const auto& g : all)
    if (g["id"] == id) return g.contains(key) && g[key].is_number() ? g[key].get<double>() : 0.0;
  return 0.0;
}

// The fastest dense rate the GPU lists in any number format, FLOP/s.
double peak_dense_flops(const std::string& id) {
  double peak = 0;
  for (const char* key :
       {"fp32_tflops", "tf32_tflops_dense", "fp16_tflops_dense", "bf16_tflops_dense",
        "fp8_tflops_dense", "int8_tops_dense", "int4_or_fp4_dense"})
    peak = std::max(peak, gpu_field(id, key));
  return peak * 1e12;
}

void check_levels(const json& out, const std::string& what) {
  const auto& m = out["memory"];
  int64_t sum = 0;  // in integers: a double sum of 1e16-byte parts is not exact
  for (const char* key : kComponents) {
    const double v = m[key].get<double>();
    ASSERT_TRUE(std::isfinite(v) && v >= 0) << key << " " << what;
    ASSERT_TRUE(m[key].is_number_integer()) << key << " " << what;
    sum += m[key].get<int64_t>();
  }
  ASSERT_GE(m["overhead_bytes"].get<double>(), 0) << what;
  ASSERT_GE(m["total_bytes"].get<int64_t>(), m["reserved_bytes"].get<int64_t>()) << what;
  ASSERT_GE(m["reserved_bytes"].get<int64_t>(), m["allocated_bytes"].get<int64_t>()) << what;
  // Exactly, on the integers written (the rounding of each component used to lose a byte).
  ASSERT_GE(m["allocated_bytes"].get<int64_t>(), sum) << what;
  ASSERT_LE(m["low_bytes"].get<double>(), m["total_bytes"].get<double>() + 1) << what;
  ASSERT_GE(m["high_bytes"].get<double>() + 1, m["total_bytes"].get<double>()) << what;
}

// Speeds are positive, finite and under the roofline of the GPUs one replica spans:
// - decode: a step reads at least the active weights a GPU holds, so one sequence's tokens/s is
//   at most bandwidth / bytes read per token. The bound takes half the active weights, because
//   the input embedding is read one row per token (up to a third of a small model).
// - prefill: at least 2 FLOPs per active non-embedding parameter per token (again half the active
//   parameters), so tokens/s x FLOPs per token <= peak dense rate x GPUs.
void check_speed(const json& out, const std::string& what) {
  if (!out.contains("performance")) return;
  const auto& perf = out["performance"];
  for (const auto& [key, value] : perf.items()) {
    if (key == "step_breakdown_s") {
      // Exposed parts of the training step: finite, not negative, adding up to step_time_s.
      double sum = 0;
      for (const auto& [part, seconds] : value.items()) {
        ASSERT_TRUE(seconds.is_number() && std::isfinite(seconds.get<double>())) << part << what;
        ASSERT_GE(seconds.get<double>(), 0) << part << " " << what;
        sum += seconds.get<double>();
      }
      // Each written to six significant digits (report/json_figure.h): 5e-6 of each at most.
      ASSERT_NEAR(sum, perf["step_time_s"].get<double>(), 1e-5 * sum) << what;
      continue;
    }
    if (key == "bands") {
      // Every band is finite, positive and ordered, and belongs to a figure of the answer.
      for (const auto& [figure, band] : value.items()) {
        ASSERT_TRUE(perf.contains(figure)) << figure << " " << what;
        const double low = band["low"].get<double>(), high = band["high"].get<double>();
        ASSERT_TRUE(std::isfinite(low) && std::isfinite(high)) << figure << " " << what;
        ASSERT_GT(low, 0) << figure << " " << what;
        ASSERT_LE(low, high) << figure << " " << what;
      }
      continue;
    }
    ASSERT_TRUE(value.is_number()) << key << " " << what;
    ASSERT_TRUE(std::isfinite(value.get<double>())) << key << " " << what;
    if (key != "mfu" && key != "time_to_train_s") {
      ASSERT_GT(value.get<double>(), 0) << key << " " << what;
    }
  }
  const json& sc = out["scenario"];
  const std::string gpu = sc["gpu"];
  const double gpus = sc["parallel"]["tp"].get<double>() * sc["parallel"]["pp"].get<double>();
  const double params = out["model"]["params"].get<double>();
  const double active = out["model"]["active_params"].get<double>();
  if (perf.contains("decode_tokens_per_s")) {
    const double bandwidth = gpu_field(gpu, "memory_bandwidth_gbps") * 1e9;
    const double bytes_per_token =
        0.5 * out["memory"]["weights_bytes"].get<double>() * std::min(1.0, active / params);
    const double per_sequence =
        perf["decode_tokens_per_s"].get<double>() / sc["batch"].get<double>();
    ASSERT_LE(per_sequence, bandwidth / bytes_per_token) << what;
  }
  if (perf.contains("prefill_tokens_per_s")) {
    const double flops_per_token = 2.0 * 0.5 * active;
    ASSERT_LE(perf["prefill_tokens_per_s"].get<double>() * flops_per_token,
              peak_dense_flops(gpu) * gpus)
        << what;
  }
  // Training: a token costs at least its forward pass, 2 FLOPs per active parameter (half the
  // active parameters again), so tokens/s per GPU x that <= the GPU's peak dense rate. MFU counts
  // the work the step needs (causal attention, no weight gradients for frozen weights), which the
  // step model never runs faster than the peak: at most 1.
  if (perf.contains("train_tokens_per_s_per_gpu")) {
    ASSERT_LE(perf["train_tokens_per_s_per_gpu"].get<double>() * 2.0 * 0.5 * active,
              peak_dense_flops(gpu))
        << what;
  }
  if (perf.contains("mfu")) {
    ASSERT_LE(perf["mfu"].get<double>(), 1.0) << what;
  }
}

// The neighbour scenario used for the monotone checks: batch doubled, sequence doubled, or TP
// doubled (parallelism written out, gpu_count dropped).
enum class Neighbour { kBatch, kSeq, kTp };

struct Tally {
  int64_t tried = 0, valid = 0, neighbours = 0;
};

Tally run_invariants(int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  Tally tally;
  for (int64_t i = 0; i < count; ++i) {
    const json s = random_scenario(rng);
    ++tally.tried;
    json out;
    try {
      out = estimate_json(s);
    } catch (const InputError&) {
      continue;  // e.g. a tp that does not divide, a format the GPU lacks
    }
    ++tally.valid;
    const std::string what = s.dump();
    // The JSONL path streams the same answer without the tree: the same bytes.
    std::string streamed;
    append_estimate_json(streamed, s);
    EXPECT_EQ(streamed, json_text(out)) << what;
    check_levels(out, what);
    check_speed(out, what);
    if (::testing::Test::HasFatalFailure()) return tally;

    const auto kind = static_cast<Neighbour>(i % 3);
    json next = s;
    const std::string field = kind == Neighbour::kBatch ? "batch" : "seq_len";
    if (kind != Neighbour::kTp) {
      if (preallocates(s) || s["task"] == "cv-train") continue;
      next[field] = out["scenario"][field].get<int64_t>() * 2;
    } else {
      const json& par = out["scenario"]["parallel"];
      next["parallel"] = par;
      next["parallel"]["tp"] = par["tp"].get<int64_t>() * 2;
      next.erase("gpu_count");
    }
    json bigger;
    try {
      bigger = estimate_json(next);
    } catch (const InputError&) {
      continue;  // past a limit: more heads than the model has, a sequence past the maximum
    }
    ++tally.neighbours;
    const auto& a = out["memory"];
    const auto& b = bigger["memory"];
    if (kind == Neighbour::kTp) {
      EXPECT_LE(b["weights_bytes"].get<int64_t>(), a["weights_bytes"].get<int64_t>())
          << what << " -> tp " << next["parallel"]["tp"];
    } else {
      EXPECT_GE(b["total_bytes"].get<int64_t>(), a["total_bytes"].get<int64_t>())
          << what << " -> " << field << " doubled";
      EXPECT_GE(b["allocated_bytes"].get<int64_t>(), a["allocated_bytes"].get<int64_t>())
          << what << " -> " << field << " doubled";
    }
    if (::testing::Test::HasFailure()) return tally;
  }
  return tally;
}

TEST(Invariants, ThousandsOfRandomScenarios) {
  const Tally t = run_invariants(3000, 20261130);
  EXPECT_GT(t.valid, t.tried / 2) << t.valid << " of " << t.tried;
}

TEST(Invariants, HundredThousand) {
  int64_t count = 100000;
  if (const char* env = std::getenv("GPUSIZER_INVARIANT_SCENARIOS")) count = std::atoll(env);
  const Tally t = run_invariants(count, 7);
  std::printf("invariants: %lld scenarios tried, %lld valid, %lld neighbours\n",
              static_cast<long long>(t.tried), static_cast<long long>(t.valid),
              static_cast<long long>(t.neighbours));
  RecordProperty("scenarios", std::to_string(t.tried));
  EXPECT_GT(t.valid, t.tried / 2) << t.valid << " of " << t.tried;
}

TEST(Invariants, TensorParallelNeverGrowsPerGpuWeights) {
  for (const char* model : {"llama-3.1-70b", "mixtral-8x7b-v0.1", "deepseek-v3", "qwen3-32b"}) {
    int64_t previous = INT64_MAX;
    for (int tp : {1, 2, 4, 8}) {
      const auto out = estimate_json({{"model", model}, {"parallel", {{"tp", tp}}}});
      const int64_t w = out["memory"]["weights_bytes"].get<int64_t>();
      EXPECT_LE(w, previous) << model << " tp " << tp;
      previous = w;
    }
  }
}

}  // namespace
}  // namespace gpusizer
