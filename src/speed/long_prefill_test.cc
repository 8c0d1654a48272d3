// Prefill FLOPs and the peak invariant (model_costs.cc, inference_speed.cc).
#include <gtest/gtest.h>

#include "gpusizer/speed.h"
#include "speed/model_costs.h"

namespace gpusizer {
namespace {

Scenario make(const std::string& model, const std::string& gpu, const std::string& weights,
              const std::string& engine, int64_t prompt) {
  const Catalog& cat = Catalog::builtin();
  Scenario s;
  s.model = cat.model(model);
  s.gpu = cat.gpu(gpu);
  s.weights = cat.format(weights, "weights", "weights");
  s.kv_cache = cat.format(weights == "fp16" ? "fp16" : "bf16", "kv", "kv_cache");
  s.engine = engine;
  s.batch = 1;
  s.prompt_len = prompt;
  s.output_len = 1;
  s.seq_len = prompt + 1;
  return s;
}

TEST(LongPrefill, CausalAttentionFlopsOf128kPrompt) {
  // Llama-3.1-8B: 32 layers, q_width 4,096. Causal attention forward 2 s^2 h per layer
  // (4 s^2 h unmasked: QK^T and PV, 2 FLOPs per multiply-add; FlashAttention paper sec. 4):
  // per prompt token 4 x 4,096 x 131,072 / 2 x 32 = 34,359,738,368 FLOPs. GEMMs: 2 x 7,504,924,672
  // non-embedding parameters (8,030,261,248 - 128,256 x 4,096) = 15,009,849,344 FLOPs per token.
  const Scenario s = make("llama-3.1-8b", "h100-sxm5-80gb", "bf16", "vllm", 131072);
  const ModelCosts c = model_costs(*s.model, *s.weights, *s.kv_cache);
  EXPECT_DOUBLE_EQ(attention_flops_prefill(c, 131072), 34359738368.0);
  EXPECT_DOUBLE_EQ(c.matmul_flops_per_token, 15009849344.0);
}

TEST(LongPrefill, Llama8b128kOnH100TakesAtLeastItsFlopsAtPeak) {
  // 131,072 x (15,009,849,344 + 34,359,738,368) = 6.471e15 FLOPs: at the 989 TFLOPS dense bf16
  // peak no less than 6.54 s; GEMMs at ~65% and FlashAttention-3 at ~65% of peak give ~10 s.
  const auto p = estimate_speed(make("llama-3.1-8b", "h100-sxm5-80gb", "bf16", "vllm", 131072),
                                Catalog::builtin(), MemoryEstimate{}, nullptr);
  ASSERT_TRUE(p.ttft_ms);
  const double flops = 131072.0 * (15009849344.0 + 34359738368.0);
  EXPECT_GT(*p.ttft_ms / 1e3, flops / 989e12);
  EXPECT_GT(*p.ttft_ms / 1e3, 9.0);
  EXPECT_LT(*p.ttft_ms / 1e3, 14.0);
}

TEST(LongPrefill, ImpliedFlopRateNeverExceedsTheDensePeak) {
  // Invariant: prompt x (2 x active params + causal attention) / TTFT <= the GPU's dense peak
  // for the compute dtype (x2 fp16 accumulation on GeForce for llama.cpp), for every engine,
  // model size and prompt length, on one GPU and under TP.
  const Catalog& cat = Catalog::builtin();
  struct Gpu {
    const char* id;
    double peak;  // dense bf16/fp16 TFLOPS as stored, x the fp16-accumulate factor where used
    double peak_fp16acc;
  };
  int checked = 0;
  for (const Gpu g : {Gpu{"h100-sxm5-80gb", 989e12, 989e12}, Gpu{"a100-sxm4-80gb", 312e12, 312e12},
                      Gpu{"rtx-4090-24gb", 165.2e12, 330.4e12}}) {
    for (const char* engine : {"hf", "vllm", "sglang", "trtllm", "llama.cpp"}) {
      for (const char* model : {"llama-3.2-1b", "llama-3.1-8b", "qwen3-30b-a3b"}) {
        for (int64_t prompt : {128, 2048, 8192, 32768, 131072}) {
          for (int64_t tp : {1, 2}) {
            Scenario s = make(model, g.id, "bf16", engine, prompt);
            s.parallel.tp = tp;
            s.gpu_count = tp;
            const auto p = estimate_speed(s, cat, MemoryEstimate{}, nullptr);
            if (!p.ttft_ms) continue;
            const ModelCosts c = model_costs(*s.model, *s.weights, *s.kv_cache);
            const double flops = static_cast<double>(prompt) *
                                 (c.matmul_flops_per_token +
                                  attention_flops_prefill(c, static_cast<double>(prompt)));
            const double peak = std::string(engine) == "llama.cpp" ? g.peak_fp16acc : g.peak;
            SCOPED_TRACE(std::string(g.id) + " " + engine + " " + model + " " +
                         std::to_string(prompt) + " tp" + std::to_string(tp));
            EXPECT_LE(flops / (*p.ttft_ms / 1e3), peak * static_cast<double>(tp));
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 400);  // 3 GPUs x 5 engines x 3 models x 5 prompts x 2 TP = 450 cases
}

}  // namespace
}  // namespace gpusizer
