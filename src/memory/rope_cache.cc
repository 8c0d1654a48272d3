// Rotary cos/sin caches of transformers 4.34-4.37 (late 2023).
//
// LlamaRotaryEmbedding of those releases, and the copies Mistral (4.34), Mixtral (4.36) and
// Qwen2 (4.37) were made from ("Copied from transformers.models.llama.modeling_llama.
// LlamaRotaryEmbedding"), calls _set_cos_sin_cache(seq_len=max_position_embeddings,
// dtype=torch.get_default_dtype()) in __init__ and registers cos_cached and sin_cached, each
// max_position_embeddings x head_dim, as non-persistent buffers; every LlamaAttention /
// MistralAttention builds its own (self.rotary_emb in __init__). from_pretrained sets the
// default dtype to torch_dtype while the model is built (_set_default_torch_dtype), 16 bits for
// 16-bit and bitsandbytes loads, and device_map dispatch moves the buffers to the GPU with the
// layers. Current releases compute cos and sin from inv_freq in the forward and keep no cache.
// Mistral-7B-v0.1 (32,768 positions, head_dim 128, 32 layers) carries 32 x 2 x 32,768 x 128 x
// 2 B = 0.54 GB of them: axolotl logged 7.494 GiB allocated right after loading it in LLM.int8
// (issue #814; transformers acc394c of October 2023), its int8 weights and bf16 embedding and
// head make 7.51e9 B, the caches the rest.
#include "memory/rope_cache.h"

#include <algorithm>

namespace gpusizer::memory {

double rope_cache_bytes(const Scenario& s, const EngineRelease& release) {
  const auto& fam = release.rope_cache_families;
  if (std::find(fam.begin(), fam.end(), s.model->family) == fam.end()) return 0;
  const double dtype = s.weights->id == "fp32" ? 4.0 : 2.0;
  // device_map pipelines (hf, pp > 1): the busiest GPU holds ceil(layers / pp) layers.
  const int64_t pp = std::max<int64_t>(1, s.parallel.pp);
  const double layers = static_cast<double>((s.model->num_layers + pp - 1) / pp);
  return layers * 2.0 * static_cast<double>(s.model->max_position_embeddings) *
         static_cast<double>(s.model->head_dim) * dtype;
}

}  // namespace gpusizer::memory
