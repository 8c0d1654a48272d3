// One resolved layout: the serving split per replica, replicas, and expert parallelism inside
// the replica, as memory and speed read them.
#include "estimate/layout.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/model.h"
#include "memory/model_counts.h"

namespace gpusizer {
namespace {

Scenario resolved(const nlohmann::json& j) {
  return resolve_scenario(j, Catalog::builtin());
}

// resolve_in_place with the engine's profile given resolves as without: vLLM on eight H100 (the
// layout rule: TP1 x 8 replicas) takes its release's memory fraction, 0.92 (engines.json); SGLang
// on two takes its own by TP size; Hugging Face transformers (no pool) keeps the scenario's.
TEST(ServingLayout, ResolvedWithTheEngineGivenAsWithout) {
  const Catalog& catalog = Catalog::builtin();
  for (const nlohmann::json& j :
       {nlohmann::json{
            {"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"engine", "vllm"}, {"gpu_count", 8}},
        nlohmann::json{
            {"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"engine", "sglang"}, {"gpu_count", 2}},
        nlohmann::json{{"model", "llama-2-7b"}, {"gpu", "rtx-4090-24gb"}, {"batch", 4}}}) {
    const Scenario parsed = parse_scenario(j, catalog);
    Scenario a = parsed, b = parsed;
    resolve_in_place(a, catalog);
    resolve_in_place(b, catalog, catalog.engine(parsed.engine));
    EXPECT_EQ(a.parallel.tp, b.parallel.tp) << j.dump();
    EXPECT_EQ(a.parallel.dp, b.parallel.dp) << j.dump();
    EXPECT_FALSE(b.default_layout) << j.dump();
    EXPECT_EQ(a.gpu_memory_utilization, b.gpu_memory_utilization) << j.dump();
  }
  Scenario vllm = parse_scenario(
      {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"engine", "vllm"}, {"gpu_count", 8}}, catalog);
  resolve_in_place(vllm, catalog, catalog.engine("vllm"));
  EXPECT_EQ(vllm.parallel.tp, 1);
  EXPECT_EQ(vllm.parallel.dp, 8);
  EXPECT_DOUBLE_EQ(vllm.gpu_memory_utilization, 0.92);
}

// resolve_in_place with the model already counted (the answer counts it once for the layout and
// the estimate) resolves as without: Mixtral-8x7B's 46.7e9 parameters in bf16 are 93.4 GB, more
// than one H100's 79.2 GiB (85 GB), and 46.7 GB on each of two: TP2, one replica.
TEST(ServingLayout, ResolvedWithTheModelCountedAsWithout) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario parsed = parse_scenario(
      {{"model", "mixtral-8x7b-v0.1"}, {"engine", "vllm"}, {"gpu", "h100"}, {"gpu_count", 2}},
      catalog);
  Scenario counted = parsed, uncounted = parsed;
  resolve_in_place(counted, catalog, count_model(parsed));
  resolve_in_place(uncounted, catalog);
  EXPECT_EQ(counted.parallel.tp, 2);
  EXPECT_EQ(counted.parallel.pp, 1);
  EXPECT_EQ(counted.parallel.dp, 1);
  EXPECT_FALSE(counted.default_layout);
  EXPECT_EQ(uncounted.parallel.tp, 2);
  EXPECT_EQ(uncounted.parallel.dp, 1);
  EXPECT_DOUBLE_EQ(counted.gpu_memory_utilization, uncounted.gpu_memory_utilization);
}

TEST(ServingLayout, SmallModelOnEightGpusIsEightReplicas) {
  // Llama-3.1-8B in bf16 is 16.1 GB: one H100 holds it with room for KV, so the contract's rule
  // (smallest tp x pp per replica that fits) gives TP1 and 8 replicas, not TP8.
  const Scenario s =
      resolved({{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"engine", "vllm"}, {"gpu_count", 8}});
  EXPECT_EQ(s.parallel.tp, 1);
  EXPECT_EQ(s.parallel.pp, 1);
  EXPECT_EQ(s.parallel.dp, 8);
  EXPECT_EQ(s.replica_gpus(), 1);
}

TEST(ServingLayout, SeventyBillionTakesFourGpusPerReplicaForRoomToBatch) {
  // Llama-3.1-70B in bf16: 70.6e9 x 2 B = 141 GB of weights; one H100 (79.2 GiB visible) cannot
  // hold it. Two can (70.6 GB each), but vLLM 0.21's 0.92 x 79.15 = 72.8 GiB budget less 65.7 GiB
  // of weights, the 0.9 GiB activation peak, 0.2 GiB non-torch and 0.21 GiB of CUDA graphs
  // leaves about 5.8 GiB of KV: at 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 B / 2 GPUs =
  // 163,840 B a token, about 38,000 tokens, 18 sequences of 2,048. Four GPUs leave ~33 GiB
  // each for the cache, 200+ sequences: a TP4 replica outruns a TP2 one more than twice (about
  // 3x), so the fleet of two TP4 replicas outruns four TP2 replicas and "room for its KV cache"
  // takes TP4.
  const nlohmann::json j = {
      {"model", "llama-3.1-70b"}, {"gpu", "h100"}, {"engine", "vllm"}, {"gpu_count", 8}};
  const Scenario s = resolved(j);
  EXPECT_EQ(s.parallel.tp, 4);
  EXPECT_EQ(s.parallel.dp, 2);
  nlohmann::json tp2 = j;
  tp2["parallel"] = {{"tp", 2}};
  const Estimate narrow = estimate(resolved(tp2), Catalog::builtin(), Detail::kFigures);
  ASSERT_TRUE(narrow.memory.fits.value_or(false));  // it fits: the rule is not the fit alone
  EXPECT_LT(*narrow.memory.max_batch, 20);
  const Estimate chosen = estimate(s, Catalog::builtin(), Detail::kFigures);
  EXPECT_GT(*chosen.memory.max_batch, 100);
  EXPECT_GT(*chosen.performance->max_output_tokens_per_s,
            2 * *narrow.performance->max_output_tokens_per_s);
}

TEST(ServingLayout, ASplitWithFullBatchesStaysTheSmallest) {
  // Llama-3.1-8B in bf16 on two H100s: one GPU holds the 16.1 GB of weights and ~50 GiB of
  // cache, about 200 sequences of 2,048 tokens at 131,072 B a token; two such replicas run ~400
  // at once, where one TP2 replica runs at most vLLM's 256 and adds its all-reduces: the smallest
  // split stays.
  const Scenario s =
      resolved({{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"engine", "vllm"}, {"gpu_count", 2}});
  EXPECT_EQ(s.parallel.tp, 1);
  EXPECT_EQ(s.parallel.dp, 2);
}

TEST(ServingLayout, AWidthTooNarrowForTheWeightsFitsOnNoEngine) {
  // The layout rule passes over a width whose GPU share of the weights is past the GPU's usable
  // memory without estimating it: it must fit on no engine. Mixtral-8x7B in bf16, 46.7e9 x 2 B
  // = 93.4 GB, on one H100 (79.2 GiB = 85.0 GB visible).
  for (const char* engine : {"vllm", "sglang", "trtllm", "hf", "llama.cpp"}) {
    const Scenario one =
        resolved({{"model", "mixtral-8x7b-v0.1"},
                  {"gpu", "h100"},
                  {"engine", engine},
                  {"weights", engine == std::string("llama.cpp") ? "fp16" : "bf16"}});
    const Estimate e = estimate(one, Catalog::builtin(), Detail::kFigures);
    EXPECT_GT(e.memory.weights, 93e9) << engine;
    EXPECT_LT(*e.memory.capacity, 86e9) << engine;
    EXPECT_FALSE(e.memory.fits.value_or(true)) << engine;
  }
  // On two, vLLM's rule takes the one split that holds them, TP 2.
  const Scenario two = resolved(
      {{"model", "mixtral-8x7b-v0.1"}, {"gpu", "h100"}, {"engine", "vllm"}, {"gpu_count", 2}});
  EXPECT_EQ(two.parallel.tp, 2);
  EXPECT_EQ(two.parallel.dp, 1);
}

TEST(ServingLayout, LayerSplittingEnginesUsePipelineStages) {
  // HF device_map="auto" splits layers, never tensors: 70B on two A100-80GB is pp 2.
  const Scenario s = resolved(
      {{"model", "llama-3.1-70b"}, {"engine", "hf"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 2}});
  EXPECT_EQ(s.parallel.tp, 1);
  EXPECT_EQ(s.parallel.pp, 2);
  EXPECT_EQ(s.parallel.dp, 1);
}

TEST(ServingLayout, GivenReplicasAreKept) {
  // --gpu-count 8 --dp 8 used to be refused ("must equal tp*pp*dp*ep = 64").
  const Scenario s = resolved({{"model", "llama-2-7b"},
                               {"gpu", "a100-sxm4-40gb"},
                               {"engine", "vllm"},
                               {"gpu_count", 8},
                               {"parallel", {{"dp", 8}}}});
  EXPECT_EQ(s.parallel.dp, 8);
  EXPECT_EQ(s.parallel.tp, 1);
  const Scenario four = resolved({{"model", "llama-2-7b"},
                                  {"gpu", "a100-sxm4-40gb"},
                                  {"engine", "vllm"},
                                  {"gpu_count", 8},
                                  {"parallel", {{"dp", 4}}}});
  EXPECT_EQ(four.parallel.dp, 4);
  EXPECT_EQ(four.parallel.tp, 2);
  EXPECT_THROW(
      resolved(
          {{"model", "llama-2-7b"}, {"gpu", "h100"}, {"gpu_count", 8}, {"parallel", {{"dp", 3}}}}),
      InputError);
}

TEST(ExpertParallel, EpInsideTheReplicaIsOneReplica) {
  // Mixtral-8x7B, ep 8 on 8 H100s under vLLM: one engine over 8 GPUs (attention data-parallel
  // in 8 groups, experts 8-way), not 8 replicas.
  const Scenario s = resolved({{"model", "mixtral-8x7b"},
                               {"gpu", "h100"},
                               {"engine", "vllm"},
                               {"gpu_count", 8},
                               {"parallel", {{"tp", 1}, {"ep", 8}}}});
  EXPECT_EQ(s.replica_gpus(), 8);
  EXPECT_EQ(s.parallel.dp, 1);
  EXPECT_EQ(s.attention_groups(), 8);
}

TEST(ExpertParallel, TensorAndExpertEightSpanEightGpus) {
  // vLLM --tensor-parallel-size 8 --enable-expert-parallel: ep = tp x dp = 8 on 8 GPUs (it was
  // taken as tp x ep = 64 GPUs). Each GPU then holds 1/8 of every weight: bf16 weights per GPU =
  // 2 x 46.70e9 / 8 = 11.7 GB = 10.87 GiB, the same as plain TP8 (experts 8-way either way).
  const Catalog& c = Catalog::builtin();
  const Scenario ep = resolved({{"model", "mixtral-8x7b"},
                                {"gpu", "h100"},
                                {"engine", "vllm"},
                                {"parallel", {{"tp", 8}, {"ep", 8}}}});
  EXPECT_EQ(ep.gpu_count, 8);
  const double total = static_cast<double>(count_params(*ep.model).total);
  EXPECT_NEAR(estimate(ep, c, Detail::kFigures).memory.weights, 2 * total / 8, 0.002 * total);
  EXPECT_THROW(
      resolved(
          {{"model", "mixtral-8x7b"}, {"engine", "vllm"}, {"parallel", {{"tp", 8}, {"ep", 4}}}}),
      InputError);
}

TEST(ExpertParallel, ExpertsAreSplitWholeOverEpRanks) {
  // tp 2 x attention groups 4 = ep 8: attention and embeddings 2-way, experts 8-way, so weights
  // per GPU = dense / 2 + experts / 8, more than the all-8-way split of tp 8.
  const Catalog& c = Catalog::builtin();
  auto weights = [&](int64_t tp) {
    const Scenario s = resolved({{"model", "mixtral-8x7b"},
                                 {"gpu", "h100"},
                                 {"engine", "vllm"},
                                 {"parallel", {{"tp", tp}, {"ep", 8}}}});
    return estimate(s, c, Detail::kFigures).memory.weights;
  };
  EXPECT_GT(weights(2), weights(8));
  EXPECT_LT(weights(2), 2 * weights(8));
}

}  // namespace
}  // namespace gpusizer
