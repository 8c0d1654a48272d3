#pragma once
// Published training jobs shared by the layout-search tests and the bench (one definition each):
// the request JSON as a user would send it; callers add their own keys (objective, top, ...).
#include <cstdint>
#include <nlohmann/json.hpp>

namespace gpusizer::testing {

/// A GPT-2/3-style dense model as an inline hf_config (tied embeddings, ffn 4h unless given).
inline nlohmann::json gpt_config(int64_t hidden, int64_t layers, int64_t heads, int64_t ffn,
                                 int64_t vocab, int64_t positions) {
  return {{"hf_config",
           {{"architectures", {"GPT2LMHeadModel"}},
            {"model_type", "gpt2"},
            {"n_embd", hidden},
            {"n_layer", layers},
            {"n_head", heads},
            {"n_inner", ffn},
            {"vocab_size", vocab},
            {"n_positions", positions},
            {"tie_word_embeddings", true}}}};
}

/// Megatron-Turing NLG 530B (Smith et al. 2022, table 1 and sec. 3: h 20480, ffn 81920, 128
/// heads, 105 layers, vocab 51200, seq 2048, global batch 2520) on A100 80GB with Megatron.
inline nlohmann::json mt_nlg_530b_job(int64_t gpus) {
  return {{"model", gpt_config(20480, 105, 128, 81920, 51200, 2048)},
          {"engine", "megatron"},
          {"gpu", "a100-sxm4-80gb"},
          {"gpu_count", gpus},
          {"task", "pretrain"},
          {"weights", "bf16"},
          {"seq_len", 2048},
          {"training", {{"global_batch", 2520}}}};
}

/// The 1T GPT of Narayanan et al. 2021 table 1 (h 25600, 128 layers, 160 heads, seq 2048,
/// vocab 51200, global batch 3072) on H100 SXM with Megatron.
inline nlohmann::json gpt_1t_job(int64_t gpus) {
  return {{"model", gpt_config(25600, 128, 160, 4 * 25600, 51200, 2048)},
          {"engine", "megatron"},
          {"gpu", "h100-sxm5-80gb"},
          {"gpu_count", gpus},
          {"task", "pretrain"},
          {"weights", "bf16"},
          {"seq_len", 2048},
          {"training", {{"global_batch", 3072}}}};
}

/// DeepSeek-V3 pre-training (DeepSeek-AI 2024, arXiv:2412.19437, sec. 3.2 and 4.2: 2048 H800,
/// seq 4096, batch ramped to 15360 sequences) with Megatron.
inline nlohmann::json deepseek_v3_job(int64_t gpus) {
  return {{"model", "deepseek-v3"},  {"engine", "megatron"},
          {"gpu", "h800-sxm5-80gb"}, {"gpu_count", gpus},
          {"task", "pretrain"},      {"weights", "bf16"},
          {"seq_len", 4096},         {"training", {{"global_batch", 15360}}}};
}

}  // namespace gpusizer::testing
