#pragma once
// Rotary cos/sin caches that older Hugging Face transformers releases build in every attention
// layer (rope_cache.cc).
#include "gpusizer/engine_profile.h"
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

/// Bytes per GPU of the per-layer rotary caches the scenario's transformers `release` builds at
/// load (engines.json hf releases[].rope_cache_families): cos and sin, max_position_embeddings x
/// head_dim each, in the load dtype (2 B; 4 B for fp32 weights), in every layer on the GPU.
/// Zero for releases and model families without them.
double rope_cache_bytes(const Scenario& s, const EngineRelease& release);

}  // namespace gpusizer::memory
