// The advisor's candidates are typed edits of the parsed scenario: each is what the scenario JSON
// with the edit's patch merged in parses and resolves to, and a GPU without BF16 (V100: Volta's
// tensor cores run FP16, not BF16, NVIDIA V100 datasheet) takes the 16-bit fallbacks.
#include "advisor/candidates.h"

#include <gtest/gtest.h>

#include "gpusizer/estimate.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// bf16 weights, their bf16 KV cache and bf16 mixed precision become fp16 on a V100; an H100
// keeps them, and a KV format the edit names other than bf16 stays.
TEST(Candidates, Fp16FallbacksWithoutBf16) {
  const Scenario lora = parse_scenario({{"model", "llama-2-7b"}, {"task", "lora"}}, cat());
  ScenarioEdit v100;
  fp16_fallbacks(lora, cat().gpu("v100-sxm2-32gb"), v100);
  EXPECT_EQ(v100.weights, "fp16");
  EXPECT_EQ(v100.kv_cache, "fp16");
  EXPECT_EQ(v100.mixed_precision, MixedPrecision::kFp16);
  ScenarioEdit h100;
  fp16_fallbacks(lora, cat().gpu("h100-sxm5-80gb"), h100);
  EXPECT_FALSE(h100.weights || h100.kv_cache || h100.mixed_precision);
  const Scenario serve = parse_scenario({{"model", "llama-2-7b"}}, cat());
  ScenarioEdit fp8_kv{.kv_cache = "fp8"};
  fp16_fallbacks(serve, cat().gpu("v100-sxm2-32gb"), fp8_kv);
  EXPECT_EQ(fp8_kv.weights, "fp16");
  EXPECT_EQ(fp8_kv.kv_cache, "fp8");
  EXPECT_FALSE(fp8_kv.mixed_precision);  // serving has no mixed precision to change
}

// The JSON a recommend option stands for: the request's scenario with the option's system,
// formats and split.
nlohmann::json option_json(nlohmann::json scenario, const Scenario& o) {
  scenario["gpu"] = o.gpu->id;
  scenario["gpu_count"] = o.gpu_count;
  scenario["weights"] = o.weights->id;
  scenario["kv_cache"] = o.kv_cache->id;
  scenario["parallel"] = {{"tp", o.parallel.tp}, {"pp", o.parallel.pp}, {"dp", o.parallel.dp}};
  return scenario;
}

// Serving Llama-2-7B (13.5 GB in fp16) on V100s: the option is fp16 weights and KV cache under
// vLLM, and it is exactly what `estimate` gives for its JSON: the same engine and reason (which
// names the fp16 weights and the NVIDIA GPU, as the parser writes it), the same memory.
TEST(Candidates, RecommendOptionIsTheJsonPath) {
  const nlohmann::json scenario = {{"model", "llama-2-7b"}};
  nlohmann::json request = scenario;
  request["gpus"] = {"v100-sxm2-32gb"};
  const Recommendation r = recommend(request, cat());
  ASSERT_FALSE(r.options.empty());
  const Scenario& o = r.options.front().scenario;
  EXPECT_EQ(o.weights->id, "fp16");
  EXPECT_EQ(o.kv_cache->id, "fp16");
  const Scenario j = resolve_scenario(option_json(scenario, o), cat());
  EXPECT_EQ(o.engine, j.engine);
  EXPECT_EQ(o.engine_basis, j.engine_basis);
  EXPECT_NE(o.engine_basis.find("fp16 weights on NVIDIA GPUs"), std::string::npos);
  EXPECT_EQ(o.gpu_memory_utilization, j.gpu_memory_utilization);
  EXPECT_EQ(r.options.front().estimate.memory.total, estimate(j, cat()).memory.total);
}

// LoRA of Llama-2-7B on V100s: the layout search's option trains in fp16 mixed precision (no
// BF16) and is what the JSON with its layout parses to: same memory per GPU.
TEST(Candidates, TrainingLayoutOptionIsTheJsonPath) {
  const nlohmann::json scenario = {{"model", "llama-2-7b"}, {"task", "lora"}};
  nlohmann::json request = scenario;
  request["gpus"] = {"v100-sxm2-32gb"};
  const Recommendation r = recommend(request, cat());
  ASSERT_FALSE(r.options.empty());
  const Scenario& o = r.options.front().scenario;
  EXPECT_EQ(o.training.mixed_precision, MixedPrecision::kFp16);
  nlohmann::json in = option_json(scenario, o);
  in["batch"] = o.batch;
  in["parallel"]["cp"] = o.parallel.cp;
  in["parallel"]["ep"] = o.parallel.ep;
  in["parallel"]["pp_interleave"] = o.parallel.pp_interleave;
  in["parallel"]["sequence_parallel"] = o.parallel.sequence_parallel;
  in["training"] = {{"mixed_precision", to_string(o.training.mixed_precision)},
                    {"zero_stage", o.training.zero_stage},
                    {"gradient_checkpointing", o.training.recompute == Recompute::kFull},
                    {"offload", to_string(o.training.offload)},
                    {"grad_accum", o.training.grad_accum},
                    {"global_batch", o.training.global_batch}};
  if (o.training.recompute == Recompute::kSelective)
    in["training"]["gradient_checkpointing"] = "selective";
  const Scenario j = resolve_scenario(in, cat());
  EXPECT_EQ(r.options.front().estimate.memory.total, estimate(j, cat()).memory.total);
}

}  // namespace
}  // namespace gpusizer
