#pragma once
// The memory parts a search's candidates share (issue 18). A candidate of "what to change"
// (advisor/changes.cc) is the base scenario with one to four levers pulled, and a lever sets a
// few fields: a weights or KV format, checkpointing, the optimizer, a ZeRO layout, the context,
// the batch, the task. The per-GPU memory is a sum of parts, and each part reads a known set of
// the fields an edit can change (ScenarioEditor::restore lists those): a part whose fields are
// those of an earlier candidate has that candidate's bytes, so a search computes it once per
// distinct set of its fields instead of once per candidate.
//
// The parts fall in two groups by what they read:
// - the model states and the overhead (weights with the k-bit upcast and the rotary caches,
//   gradients, master weights, memory outside the allocator): the task, the weights format, the
//   precision, ZeRO stage and offload, the split, the engine and its release, the GPU and the
//   task's model counts; never the optimizer, the lengths, the batch, checkpointing,
//   FlashAttention, accumulation or the KV format (the optimizer states, which read the
//   optimizer too, are kept in the group's slot by optimizer);
// - the parts that grow with the batch (KV cache, activations): the task, the weights and KV
//   formats, the lengths, the batch, checkpointing, FlashAttention, the precision, the ZeRO
//   stage (a sharded QLoRA run keeps its 16-bit norms), accumulation (pipeline micro-batches in
//   flight), the split but the data-parallel count, the engine, its release and the GPU; never
//   the optimizer, offload, dp or the global batch.
// Every other field they read (the model, the LoRA targets and rank, modules to save, the
// weights file) no edit changes, so it is the base's for the whole search. parts_memo_test.cc
// changes each field an edit can change and checks that a group's bytes move only when the
// group's key reads that field, and that a search's memory with the memo equals it without.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "memory/memory_parts.h"
#include "memory/model_counts.h"
#include "memory/state_totals.h"

namespace gpusizer::memory {

/// The model states but the optimizer's, and the overhead: bytes per GPU. The optimizer states
/// are kept beside them by optimizer (PartsMemo::HeldStates), so that the optimizer lever shares
/// the rest.
struct StateParts {
  double weights = 0, gradients = 0, master = 0, overhead = 0;
};
/// The parts that grow with the batch, bytes per GPU.
struct BatchParts {
  double kv = 0, kv_sequence = 0, activations = 0;
  int64_t bench_slots = 0;  ///< the max_batch trtllm-bench builds, where it builds
};

/// The two groups computed in full, bytes only (memory_estimate.cc).
StateParts state_parts(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                       const EngineRules& rules);
/// `modules`: linear_modules(s.model), where the caller has them (ModelCounts::modules).
BatchParts batch_parts(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                       const LinearModules* modules = nullptr);
/// The model states from the totals of a scenario that differs from `s` at most in its
/// data-parallel count, ZeRO stage and offload (state_totals.h): the sharding step alone.
StateParts state_parts(StateTotals& totals, const Scenario& s, const Catalog& catalog,
                       const ModelCounts& counts, const EngineRules& rules);

/// The fields StateTotals read that an edit can change: all that StateParts read but the
/// data-parallel count, the ZeRO stage and the offload, which only the sharding step reads
/// (state_totals.h). The weights format is keyed by the address of the row the scenario holds (a
/// catalog row, or the base's own: an edit sets one or the other), so that no format is compared
/// text by text; the engine, release, GPU and counts by address too: catalog rows, the base's GPU
/// and the search's counts, which outlive the search.
struct TotalsKey {
  const ModelCounts* counts = nullptr;
  const EngineProfile* engine = nullptr;
  const EngineRelease* release = nullptr;
  const Gpu* gpu = nullptr;
  Task task = Task::kInference;
  MixedPrecision mixed_precision = MixedPrecision::kBf16;
  const NumberFormat* weights = nullptr;
  Parallelism parallel;  ///< dp is not read

  TotalsKey() = default;
  TotalsKey(const Scenario& s, const ModelCounts& counts, const EngineRules& rules);
  bool matches(const Scenario& s, const ModelCounts& counts, const EngineRules& rules) const;
};

/// The fields StateParts read that an edit can change (see above): the totals' and the three
/// that only the sharding step reads.
struct StateKey {
  TotalsKey totals;  ///< all a state reads but what only the sharding step reads (below)
  Offload offload = Offload::kNone;
  int zero_stage = 0;
  int64_t dp = 1;  ///< the data-parallel count, which TotalsKey does not read

  StateKey() = default;
  StateKey(const Scenario& s, const ModelCounts& counts, const EngineRules& rules);
  bool matches(const Scenario& s, const ModelCounts& counts, const EngineRules& rules) const;
};

/// The fields BatchParts read that an edit can change (see above).
struct BatchKey {
  const EngineProfile* engine = nullptr;
  const EngineRelease* release = nullptr;
  const Gpu* gpu = nullptr;
  Task task = Task::kInference;
  MixedPrecision mixed_precision = MixedPrecision::kBf16;
  Recompute recompute = Recompute::kNone;
  uint8_t recompute_modules = 0;
  bool flash_attention = false;
  int zero_stage = 0;
  const NumberFormat* weights = nullptr;
  int64_t grad_accum = 1, seq_len = 0, prompt_len = 0, output_len = 0, batch = 0;
  Parallelism parallel;  ///< dp is not read
  double kv_bits = 0;    ///< all the KV cache reads of its format

  BatchKey() = default;
  BatchKey(const Scenario& s, const EngineRules& rules);
  bool matches(const Scenario& s, const EngineRules& rules) const;
};

/// A search's parts, by key: the last kSlots distinct keys of each group with their bytes. One
/// memo serves the candidates of one search (one model, catalog and base scenario); `counts`,
/// the base's GPU, its weights field and the catalog must outlive it.
class PartsMemo {
 public:
  static constexpr size_t kSlots = 16;

  // Provided, so that a memo value-initialized (`parts()` in a constructor's list) is not zeroed
  // whole first (~5k bytes of slots).
  PartsMemo() {}  // NOLINT(modernize-use-equals-default)

  /// Both groups of `s`'s parts, valid until the next call, and its optimizer states' bytes
  /// (memory::optimizer_states without a basis).
  struct Parts {
    const StateParts& states;
    const BatchParts& batch;
    double optimizer;
  };
  Parts parts(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
              const EngineRules& rules);

  /// The model states `s` has, from an estimate of `s` made without the memo (a search's base,
  /// which the answer estimated before the search), as the group's next slot: the candidates
  /// that keep the base's states do not compute them again (issue 18: ~1k instructions a
  /// search). With `optimizer`, the optimizer states' bytes of `s`'s optimizer too
  /// (optimizer_states' figure, which the estimate holds where the step is not its peak: issue
  /// 18, ~120 instructions a search).
  void seed_states(const Scenario& s, const ModelCounts& counts, const EngineRules& rules,
                   const StateParts& parts, const double* optimizer = nullptr);
  /// The same for the parts that grow with the batch (~0.7k instructions a search).
  void seed_batch(const Scenario& s, const EngineRules& rules, const BatchParts& parts);

  /// usable_capacity(gpu, catalog), kept for the last GPU row asked for (by address, as the
  /// keys hold it: a search's candidates keep the base's GPU; issue 18: ~50 instructions of
  /// string tests each candidate).
  double capacity(const Gpu& gpu, const Catalog& catalog) {
    if (capacity_gpu_ != &gpu) {
      capacity_ = usable_capacity(gpu, catalog);
      capacity_gpu_ = &gpu;
    }
    return capacity_;
  }

 private:
  // The keys and their parts, filled in turn: the first kSlots misses take the next slot, the
  // later ones overwrite the oldest. Held in place and not zeroed (issue 18: a vector reserved at
  // a search's first miss was an allocation and a free a group, ~320 instructions each; zeroing
  // the 2 x 16 slots when the search is made would cost more than the reserve): a slot's pair is
  // made when it is first taken, and only the first `size` are read.
  template <typename Key, typename Value>
  struct Slots {
    using Slot = std::pair<Key, Value>;
    static_assert(std::is_trivially_destructible_v<Slot>);
    union {
      std::array<Slot, kSlots> slot;  // the first `size` made
    };
    size_t size = 0;
    size_t next = 0;  // the slot the next miss overwrites, once all are held

    Slots() {}  // NOLINT(modernize-use-equals-default): `= default` would make every slot
    std::span<const Slot> held() const { return {slot.data(), size}; }
    std::span<Slot> held() {
      return {slot.data(), size};
    }  // the totals' gathered set is made in place
    // The next slot, holding `key` and `value`: made from them (a slot made empty first was
    // value-initialized, zeroed, then assigned), or the oldest overwritten.
    Slot& take(const Key& key, const Value& value) {
      if (size < kSlots) return *std::construct_at(&slot[size++], key, value);
      Slot& s = slot[next];
      next = (next + 1) % kSlots;
      s = {key, value};
      return s;
    }
  };
  // A state slot's parts with the optimizer states' bytes of the last two optimizers asked for:
  // optimizer_states reads the optimizer besides the fields of the slot's key (the task, the
  // precision, the engine, the counts, the split, the ZeRO stage and the offload), and a search's
  // levers set one optimizer at most (8-bit AdamW) beside the base's (issue 18: the states made
  // again for each candidate, ~120 instructions, where most keep an earlier one's slot and
  // optimizer).
  struct HeldStates {
    StateParts parts;
    std::array<Optimizer, 2> optimizer;  // the first `optimizers` are held
    std::array<double, 2> optimizer_bytes;
    uint8_t optimizers = 0;
    uint8_t next = 0;  // the entry the next optimizer overwrites, once both are held

    HeldStates(const StateParts& p) : parts(p) {}  // NOLINT: a slot's parts, no optimizer yet
    double optimizer_states(const Scenario& s, const EngineRules& rules, const ModelCounts& counts);
    double add_optimizer(const Scenario& s, const EngineRules& rules, const ModelCounts& counts);
    void hold(Optimizer o, double bytes);  // `o`'s bytes in the next entry
  };
  // The states' totals a state miss shards (issue 18: a ZeRO lever's miss computed the weights'
  // format and ZeRO-3's gathered set anew, ~1.1k instructions; the levers over other counts
  // share them).
  StateTotals& totals(const Scenario& s, const ModelCounts& counts, const EngineRules& rules);

  Slots<StateKey, HeldStates> states_;
  Slots<TotalsKey, StateTotals> totals_;
  Slots<BatchKey, BatchParts> batch_;
  const Gpu* capacity_gpu_ = nullptr;  // the GPU capacity_ is of
  double capacity_ = 0;
};

}  // namespace gpusizer::memory
