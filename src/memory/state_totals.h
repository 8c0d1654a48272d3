#pragma once
// The model states but the optimizer's, in two steps (issue 18): their totals on one GPU of the
// scenario's split, which read neither the data-parallel count, the ZeRO stage nor the offload,
// and the step that shards them over the data-parallel ranks, cheap arithmetic on the totals.
// A change search's ZeRO levers differ from each other in those three fields alone, so their
// model states share one set of totals (memory/parts_memo.h). model_states.cc's weights(),
// gradients() and master_weights() apply the same two steps, so the totals and the step are
// the estimate's own formulas, not a copy of them.
#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "memory/memory_parts.h"
#include "memory/model_counts.h"
#include "memory/sharding.h"

namespace gpusizer::memory {

/// The weights held on one GPU of the split before ZeRO shards them, and what the ZeRO-3 and
/// offload rules read of them.
struct WeightTotals {
  SplitBytes held;   ///< per_gpu_split(held weights, s): the experts' share apart for ZeRO
  double layer = 0;  ///< one layer's weights, whole: (layers + experts) / num_layers
  // DeepSpeed ZeRO-3's gathered set: made by the first step that shards over ZeRO-3 (it reads
  // the split, never the count or the stage; most totals never need it: ~0.5k instructions).
  bool gathered_made = false;
  double gathered = 0;       ///< bytes of the gathered set at the peak
  ModelBytes gathered_held;  ///< the gathered parameters at the bytes the weights hold them in
};

/// The model states but the optimizer's on one GPU of the scenario's split, before ZeRO.
struct StateTotals {
  WeightTotals weights;
  double kbit_upcast = 0;  ///< PEFT's fp32 upcast as an unsharded run makes it
  double rope = 0;         ///< the rotary caches transformers keeps (rope_cache.h)
  SplitBytes gradients;    ///< all the trainable parameters' gradients, per_gpu unsharded
  SplitBytes master;       ///< the fp32 master copy, per_gpu unsharded (0: none kept)
};

/// The totals of `s`: everything state_parts reads but the data-parallel count, the ZeRO stage
/// and the offload.
StateTotals state_totals(const Scenario& s, const EngineRules& rules, const ModelCounts& counts);

/// Weights (with the k-bit upcast and the rotary caches), gradients and master weights per GPU
/// under `s`'s data-parallel count, ZeRO stage and offload; `t` is state_totals of a scenario
/// that differs from `s` in those three fields at most (its gathered set is made at need).
struct ShardedStates {
  double weights = 0, gradients = 0, master = 0;
};
ShardedStates shard_states(StateTotals& t, const Scenario& s, const Catalog& catalog,
                           const EngineRules& rules, const ModelCounts& counts);

}  // namespace gpusizer::memory
