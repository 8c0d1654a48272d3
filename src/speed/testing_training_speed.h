#pragma once
// The training-speed tests' shared fixtures (one definition each): a speed profile with round
// figures, so that every difference a test checks is one formula, and the small GPT-2-shaped job
// the tests derive their numbers for.
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_profile.h"
#include "speed/training_speed.h"

namespace gpusizer::testing {

/// Round training figures: eff 0.5 of the dense rate at every width, no step overhead, overlap
/// and element-wise traffic as given, links at their line rate with no latency, attention with
/// the GEMMs (no attention_backward table); the shipped inference section (a profile holds
/// both) and speed.json's LoRA costs, stated.
inline nlohmann::json round_profile_doc(double elementwise = 0, double overlap = 0) {
  return {{"achievable_matmul", {{"default", 1.0}}},
          {"links",
           {{"nvlink_eff", 1.0},
            {"nvlink_latency_us", 0.0},
            {"pcie_eff", 1.0},
            {"pcie_latency_us", 0.0},
            {"ll_protocol_bandwidth_share", 1.0},
            {"simple_protocol_extra_latency_us", 0.0},
            {"network_gbps_per_gpu", 400.0},
            {"network_eff", 1.0},
            {"network_latency_us", 0.0},
            {"activation_bytes", 2.0},
            {"host_memory_gbps_per_gpu", 25.0}}},
          {"training",
           {{"defaults",
             {{"eff_max", 0.5},
              {"eff_k_hidden", 0.0},
              {"overlap", overlap},
              {"step_overhead_ms", 0.0},
              {"elementwise_bytes_per_hidden", elementwise},
              {"compiled_elementwise_bytes_per_hidden", 0.0},
              {"eager_score_bytes", 32.0},
              {"optimizer_bw_eff", 1.0},
              {"lora_bytes_per_in_feature", 18.0},
              {"lora_bytes_per_out_feature", 36.0},
              // speed.json's: an amax pass and a cast pass over 16-bit values; MXFP8 one pass.
              {"fp8_cast_read_bytes_per_value", 4.0},
              {"mxfp8_cast_read_bytes_per_value", 2.0}}},
            {"qlora_dequant_bytes_per_param", 2.52},
            {"lora_extra_cost", 0.1}}},
          {"inference", Catalog::builtin().speed().doc().at("inference")},
          // Read by serving and CV only; the file must state them.
          {"attention_kernels", {{"fa2", {{"default", 0.5}}}}},
          {"cv",
           {{"eff", {{"bf16", 0.5}, {"fp16", 0.5}, {"fp32", 0.5}, {"tf32", 0.5}}},
            {"step_overhead_ms", 5.0}}}};
}

inline SpeedProfile round_profile(double elementwise = 0, double overlap = 0) {
  return SpeedProfile::from_json(round_profile_doc(elementwise, overlap));
}

/// GPT-2-shaped pre-training under Megatron: h 1024, 4 layers, 16 heads of 64, ffn 4096, vocab
/// 1000, 1024 positions, tied embeddings; one sequence of 1024 tokens per step on A100 80GB.
inline nlohmann::json small_gpt2_job(int64_t gpus = 1, int64_t cp = 1) {
  return {{"model",
           {{"hf_config",
             {{"architectures", {"GPT2LMHeadModel"}},
              {"model_type", "gpt2"},
              {"n_embd", 1024},
              {"n_layer", 4},
              {"n_head", 16},
              {"n_inner", 4096},
              {"vocab_size", 1000},
              {"n_positions", 1024},
              {"tie_word_embeddings", true}}}}},
          {"engine", "megatron"},
          {"gpu", "a100-sxm4-80gb"},
          {"gpu_count", gpus},
          {"task", "pretrain"},
          {"weights", "bf16"},
          {"seq_len", 1024},
          {"batch", 1},
          {"parallel", {{"cp", cp}}},
          {"training", {{"global_batch", 1}, {"flash_attention", true}}}};
}

/// The step of `s` under `engine` (default: its catalog profile); a failure fails the test.
inline TrainingSpeed step(const Scenario& s, const SpeedProfile& p, const EngineProfile& engine) {
  std::string why;
  const auto r = training_speed(s, engine, p, why);
  EXPECT_TRUE(r) << why;
  return r.value_or(TrainingSpeed{});
}
inline TrainingSpeed step(const Scenario& s, const SpeedProfile& p) {
  return step(s, p, Catalog::builtin().engine(s.engine));
}

}  // namespace gpusizer::testing
