// Properties over thousands of random valid scenarios: finite, non-negative components;
// total >= reserved >= allocated >= the sum of the components; memory never decreases with
// batch or sequence length; TP never increases the per-GPU weights.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gpusizer/api.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

const char* kComponents[] = {"weights_bytes",   "kv_cache_bytes", "activations_bytes",
                             "gradients_bytes", "optimizer_bytes", "master_weights_bytes"};

nlohmann::json random_scenario(std::mt19937& rng) {
  const Catalog& c = Catalog::builtin();
  auto pick = [&](const auto& v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  std::vector<std::string> llms;
  for (const auto& m : c.models())
    if (!m.is_cv()) llms.push_back(m.id);
  const std::vector<std::string> tasks = {"inference", "inference", "lora", "qlora", "full", "freeze", "pretrain"};
  const std::vector<std::string> engines = {"hf", "vllm", "sglang", "llama.cpp"};
  const std::vector<std::string> train_engines = {"hf", "deepspeed", "fsdp"};
  const std::vector<std::string> weights = {"bf16", "fp16", "fp8", "int8", "int4", "gptq-int4", "awq-int4", "q4_k_m", "q8_0"};
  const std::vector<std::string> optimizers = {"adamw", "adamw-8bit", "sgd", "sgd-momentum", "adafactor", "lion"};
  nlohmann::json s = {{"model", pick(llms)}, {"task", pick(tasks)}};
  s["batch"] = std::uniform_int_distribution<int>(1, 64)(rng);
  s["seq_len"] = std::uniform_int_distribution<int>(16, 32768)(rng);
  s["gpu"] = pick(c.gpus()).id;
  if (s["task"] == "inference") {
    s["engine"] = pick(engines);
    s["weights"] = pick(weights);
    s["kv_cache"] = std::uniform_int_distribution<int>(0, 1)(rng) ? "fp8" : "bf16";
  } else {
    s["engine"] = pick(train_engines);
    if (s["task"] == "qlora") s["weights"] = "nf4";
    s["training"] = {{"optimizer", pick(optimizers)},
                     {"gradient_checkpointing", std::uniform_int_distribution<int>(0, 1)(rng) == 1},
                     {"zero_stage", std::uniform_int_distribution<int>(0, 3)(rng)}};
    s["gpu_count"] = 1 << std::uniform_int_distribution<int>(0, 3)(rng);
  }
  return s;
}

void check_levels(const nlohmann::json& out, const std::string& what) {
  const auto& m = out["memory"];
  double sum = 0;
  for (const char* key : kComponents) {
    const double v = m[key].get<double>();
    ASSERT_TRUE(std::isfinite(v) && v >= 0) << key << " " << what;
    sum += v;
  }
  ASSERT_GE(m["overhead_bytes"].get<double>(), 0) << what;
  ASSERT_GE(m["total_bytes"].get<int64_t>(), m["reserved_bytes"].get<int64_t>()) << what;
  ASSERT_GE(m["reserved_bytes"].get<int64_t>(), m["allocated_bytes"].get<int64_t>()) << what;
  ASSERT_GE(m["allocated_bytes"].get<double>() + 8, sum) << what;
  ASSERT_LE(m["low_bytes"].get<double>(), m["total_bytes"].get<double>() + 1) << what;
  ASSERT_GE(m["high_bytes"].get<double>() + 1, m["total_bytes"].get<double>()) << what;
}

TEST(Invariants, ThousandsOfRandomScenarios) {
  std::mt19937 rng(20261130);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    nlohmann::json s = random_scenario(rng);
    nlohmann::json out;
    try {
      out = estimate_json(s);
    } catch (const InputError&) {
      continue;  // e.g. a tp that does not divide, an engine that cannot run the task
    }
    ++checked;
    check_levels(out, s.dump());
    // Monotone in batch and in sequence length (memory the job needs, not a preallocated pool).
    if (s["engine"] == "hf" || s["engine"] == "deepspeed" || s["engine"] == "fsdp") {
      nlohmann::json bigger = s;
      bigger["batch"] = s["batch"].get<int>() * 2;
      ASSERT_GE(estimate_json(bigger)["memory"]["total_bytes"].get<int64_t>(),
                out["memory"]["total_bytes"].get<int64_t>())
          << s.dump();
      bigger = s;
      bigger["seq_len"] = s["seq_len"].get<int>() * 2;
      ASSERT_GE(estimate_json(bigger)["memory"]["total_bytes"].get<int64_t>(),
                out["memory"]["total_bytes"].get<int64_t>())
          << s.dump();
    }
  }
  EXPECT_GT(checked, 2000);
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
