// A search's memory parts by the fields they read (memory/parts_memo.h).
#include "memory/parts_memo.h"

namespace gpusizer::memory {
namespace {

// The split but its data-parallel count, which a key that reads it tests first. Inlined into
// the keys' tests (issue 18: a call each, ~2,500 a search's 12 candidates).
[[gnu::always_inline]] inline bool same_split(const Parallelism& a, const Parallelism& b) {
  return a.tp == b.tp && a.pp == b.pp && a.ep == b.ep && a.cp == b.cp &&
         a.pp_interleave == b.pp_interleave && a.sequence_parallel == b.sequence_parallel;
}

}  // namespace

TotalsKey::TotalsKey(const Scenario& s, const ModelCounts& c, const EngineRules& rules)
    : counts(&c),
      engine(&rules.engine),
      release(rules.release),
      gpu(s.gpu.get()),
      task(s.task),
      mixed_precision(s.training.mixed_precision),
      weights(s.weights.get()),
      parallel(s.parallel) {}

namespace {

// TotalsKey::matches, inlined into the memo's scan. The task and the weights format first: the
// levers that change the totals (LoRA, QLoRA) change those.
[[gnu::always_inline]] inline bool totals_match(const TotalsKey& k, const Scenario& s,
                                                const ModelCounts& c, const EngineRules& rules) {
  return k.task == s.task && k.weights == s.weights.get() &&
         k.mixed_precision == s.training.mixed_precision && k.counts == &c &&
         k.engine == &rules.engine && k.release == rules.release && k.gpu == s.gpu.get() &&
         same_split(k.parallel, s.parallel);
}

// StateKey::matches, inlined into the memo's scan (issue 18: a call each slot tested, ~2.4 a
// candidate, ~10 instructions each). The data-parallel count first: the ZeRO levers differ from
// each other in it alone, and a search's state slots are mostly theirs (issue 18: a slot of
// another count was told apart after ten fields).
[[gnu::always_inline]] inline bool state_matches(const StateKey& k, const Scenario& s,
                                                 const ModelCounts& c, const EngineRules& rules) {
  return k.dp == s.parallel.dp && k.zero_stage == s.training.zero_stage &&
         k.offload == s.training.offload && totals_match(k.totals, s, c, rules);
}

}  // namespace

bool TotalsKey::matches(const Scenario& s, const ModelCounts& c, const EngineRules& rules) const {
  return totals_match(*this, s, c, rules);
}

StateKey::StateKey(const Scenario& s, const ModelCounts& c, const EngineRules& rules)
    : totals(s, c, rules),
      offload(s.training.offload),
      zero_stage(s.training.zero_stage),
      dp(s.parallel.dp) {}

bool StateKey::matches(const Scenario& s, const ModelCounts& c, const EngineRules& rules) const {
  return state_matches(*this, s, c, rules);
}

BatchKey::BatchKey(const Scenario& s, const EngineRules& rules)
    : engine(&rules.engine),
      release(rules.release),
      gpu(s.gpu.get()),
      task(s.task),
      mixed_precision(s.training.mixed_precision),
      recompute(s.training.recompute),
      recompute_modules(s.training.recompute_modules),
      flash_attention(s.training.flash_attention),
      zero_stage(s.training.zero_stage),
      weights(s.weights.get()),
      grad_accum(s.training.grad_accum),
      seq_len(s.seq_len),
      prompt_len(s.prompt_len),
      output_len(s.output_len),
      batch(s.batch),
      parallel(s.parallel),
      kv_bits(s.kv_cache->bits_per_value) {}

namespace {

// BatchKey::matches, inlined into the memo's scan (a call each slot tested, ~2.4 a candidate).
[[gnu::always_inline]] inline bool batch_matches(const BatchKey& k, const Scenario& s,
                                                 const EngineRules& rules) {
  const TrainingOptions& t = s.training;
  // The fields the levers change first (the context, checkpointing, the ZeRO stage, the task):
  // a slot of another candidate is told apart by one of them.
  return k.seq_len == s.seq_len && k.recompute == t.recompute &&
         k.recompute_modules == t.recompute_modules && k.zero_stage == t.zero_stage &&
         k.task == s.task && k.batch == s.batch && k.flash_attention == t.flash_attention &&
         k.weights == s.weights.get() && k.grad_accum == t.grad_accum &&
         k.prompt_len == s.prompt_len && k.output_len == s.output_len &&
         k.mixed_precision == t.mixed_precision && k.engine == &rules.engine &&
         k.release == rules.release && k.gpu == s.gpu.get() && same_split(k.parallel, s.parallel) &&
         k.kv_bits == s.kv_cache->bits_per_value;
}

}  // namespace

bool BatchKey::matches(const Scenario& s, const EngineRules& rules) const {
  return batch_matches(*this, s, rules);
}

// Inlined into parts(): a held optimizer is found in two compares (a call cost ~20 instructions
// a candidate, issue 18); a new one is made by add_optimizer.
[[gnu::always_inline]] inline double PartsMemo::HeldStates::optimizer_states(
    const Scenario& s, const EngineRules& rules, const ModelCounts& counts) {
  const Optimizer asked = s.training.optimizer;
  for (size_t i = 0; i < optimizers; ++i)
    if (optimizer[i] == asked) return optimizer_bytes[i];
  return add_optimizer(s, rules, counts);
}

double PartsMemo::HeldStates::add_optimizer(const Scenario& s, const EngineRules& rules,
                                            const ModelCounts& counts) {
  const double bytes = memory::optimizer_states(s, rules, counts, nullptr);
  hold(s.training.optimizer, bytes);
  return bytes;
}

void PartsMemo::HeldStates::hold(Optimizer o, double bytes) {
  size_t i = optimizers;  // the next free entry, else the older of the two
  if (optimizers < optimizer.size()) {
    ++optimizers;
  } else {
    i = next;
    next = next == 0 ? 1 : 0;
  }
  optimizer[i] = o;
  optimizer_bytes[i] = bytes;
}

PartsMemo::Parts PartsMemo::parts(const Scenario& s, const Catalog& catalog,
                                  const ModelCounts& counts, const EngineRules& rules) {
  HeldStates* states = nullptr;
  for (auto& [key, held] : states_.held())
    if (state_matches(key, s, counts, rules)) {
      states = &held;
      break;
    }
  if (!states)  // the parts first: a slot is taken only with them
    states = &states_
                  .take(StateKey(s, counts, rules),
                        state_parts(totals(s, counts, rules), s, catalog, counts, rules))
                  .second;
  const double optimizer = states->optimizer_states(s, rules, counts);
  for (const auto& [key, held] : batch_.held())
    if (batch_matches(key, s, rules)) return {states->parts, held, optimizer};
  return {states->parts,
          batch_.take(BatchKey(s, rules), batch_parts(s, catalog, rules, &counts.modules)).second,
          optimizer};
}

StateTotals& PartsMemo::totals(const Scenario& s, const ModelCounts& counts,
                               const EngineRules& rules) {
  for (auto& [key, held] : totals_.held())
    if (totals_match(key, s, counts, rules)) return held;
  return totals_.take(TotalsKey(s, counts, rules), state_totals(s, rules, counts)).second;
}

void PartsMemo::seed_states(const Scenario& s, const ModelCounts& counts, const EngineRules& rules,
                            const StateParts& parts, const double* optimizer) {
  HeldStates& held = states_.take(StateKey(s, counts, rules), parts).second;
  if (optimizer) held.hold(s.training.optimizer, *optimizer);
}

void PartsMemo::seed_batch(const Scenario& s, const EngineRules& rules, const BatchParts& parts) {
  batch_.take(BatchKey(s, rules), parts);
}

}  // namespace gpusizer::memory
