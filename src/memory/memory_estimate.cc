#include "memory/memory_estimate.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>

#include "core/text_append.h"
#include "core/text_format.h"
#include "gpusizer/units.h"
#include "memory/kbit_training.h"
#include "memory/memory_parts.h"
#include "memory/parts_memo.h"
#include "memory/pool_fraction.h"
#include "memory/rope_cache.h"
#include "memory/state_totals.h"
#include "memory/trt_runtime.h"
#include "scenario/lookups.h"

namespace gpusizer {
namespace {

using memory::add_basis;
using memory::append_pieces;
using memory::explain_if;
using memory::explained;
using memory::Part;

// Bytes per GPU of each part; their formulas went to the sink as the parts were computed.
struct Parts {
  double weights = 0, kv = 0, activations = 0, gradients = 0, optimizer = 0, master = 0,
         overhead = 0;
  double kv_sequence = 0;       ///< serving: the KV cache of one sequence of seq_len tokens
  int64_t bench_slots = 0;      ///< serving: the max_batch trtllm-bench builds (bench_build)
  double step_temporaries = 0;  ///< training: what the optimizer step allocates beside the states
  double allocated() const { return weights + kv + activations + gradients + optimizer + master; }
};

// A TensorRT engine built by trtllm-bench for the scenario (trt_runtime.h): its max_batch_size
// sizes the runtime's buffers, its max_num_tokens the engine's activation workspace; zeros where
// the release has no such build or no GPU is given.
memory::TrtBenchBuild bench_build(const Scenario& s, const Catalog& catalog,
                                  const EngineRelease& rel, double weights,
                                  double kv_one_sequence) {
  if (!s.gpu || s.task != Task::kInference || rel.runtime_max_batch <= 0) return {};
  const double capacity = memory::usable_capacity(*s.gpu, catalog);
  return memory::trt_bench_build(rel, memory::pool_fraction(s, catalog, rel), capacity - weights,
                                 kv_one_sequence, s.parallel.pp, s.prompt_len, s.output_len);
}

// The parts that grow with the batch: KV cache and activations (`engine` is the scenario's).
// `modules`: the model's linear modules where the caller counted them (ModelCounts::modules).
void fill_batch_parts(const Scenario& s, const Catalog& catalog, const memory::EngineRules& rules,
                      Parts& p, Explanations* why, const LinearModules* modules) {
  const EngineProfile& engine = rules.engine;
  if (s.task == Task::kInference) {
    // One sequence's cache, computed once: the batch's is that times the batch (kv_cache is
    // per sequence x sequences), and the pool and the per-token figure read the one sequence.
    // Its basis is the batch's: the formula names seq and batch, not their values.
    p.kv_sequence = memory::kv_cache(s, catalog, 1, s.seq_len, why);
    p.kv = s.batch > 0 ? p.kv_sequence * static_cast<double>(s.batch)
                       : memory::kv_cache(s, catalog, s.batch, s.seq_len, why);
    // Hugging Face's DynamicCache grows by torch.cat: one layer's old and new cache coexist.
    if (engine.kv_grows_by_concat) p.kv *= 1.0 + 1.0 / static_cast<double>(s.model->num_layers);
  }
  // One build serves the activation workspace (its max_num_tokens) and the runtime's buffers
  // (its max_batch, add_runtime_buffers).
  const memory::TrtBenchBuild build =
      bench_build(s, catalog, *rules.release, p.weights, p.kv_sequence);
  p.bench_slots = build.max_batch;
  p.activations = memory::activations(s, rules, why, build.max_num_tokens, modules);
}

// What the optimizer step allocates beside the states, per GPU: torch.optim's foreach AdamW
// (torch/optim/adamw.py _multi_tensor_adamw) builds exp_avg_sq_sqrt = torch._foreach_sqrt(
// exp_avg_sqs), one tensor per second moment, and divides and adds eps in place; the engine
// states how many such lists exist at once (engines.json optimizer_step_temporaries). The states
// are two equal moments, so one list is half of `states` (already per GPU, in the states' dtype).
// The lists of consecutive (device, dtype) groups coexist (the previous one is still bound when
// the next is built), so PEFT's fp32 adapters and 16-bit saved copies add up. A fused or in-place
// optimizer, 8-bit and paged bitsandbytes states (updated per tensor), an optimizer stepped in
// the backward, and ZeRO through DeepSpeed (its own optimizer on fp32 partitions) build none;
// FSDP (own_zero3) runs torch.optim on its shards. Foreach is the default on CUDA and XPU only
// (torch/utils/_foreach_utils.py _get_foreach_kernels_supported_devices): on Apple's MPS AdamW
// loops over tensors, one tensor's temporary at a time.
double step_temporaries(const Scenario& s, const EngineProfile& engine, double states) {
  if (engine.optimizer_step_temporaries == 0 || !is_training(s.task) ||
      s.training.optimizer != Optimizer::kAdamw || s.training.optimizer_in_backward ||
      (s.training.zero_stage > 0 && !engine.own_zero3) || (s.gpu && s.gpu->segment == "apple-soc"))
    return 0;
  return static_cast<double>(engine.optimizer_step_temporaries) * 0.5 * states;
}

// The weights with what the load adds to them (the k-bit upcast, the rotary caches). Inlined
// into compute_parts, where it was written before the search shared it (a call cost the
// numbers-only estimate ~15 instructions).
[[gnu::always_inline]] inline double weights_part(const Scenario& s, const Catalog& catalog,
                                                  const ModelCounts& counts,
                                                  const memory::EngineRules& rules,
                                                  Explanations* why) {
  double bytes = memory::weights(s, catalog, rules, counts, why);
  if (const double up = memory::kbit_upcast_extra_bytes(s, rules.engine, counts.params); up > 0) {
    // PEFT prepare_model_for_kbit_training: embedding, head and norms cast to fp32.
    bytes += up;
    if (why)
      why->basis.append("weights_bytes",
                        "; + embedding, head and norms cast to fp32 (PEFT "
                        "prepare_model_for_kbit_training)");
  }
  if (const double rope = memory::rope_cache_bytes(s, *rules.release); rope > 0) {
    // transformers 4.34-4.37: every attention layer's rotary cos/sin cache, held from load on.
    bytes += rope;
    append_pieces(why, "weights_bytes", "; + rotary cos/sin caches ", Fixed{rope / kGiB, 2},
                  " GiB (layers x 2 x max_position_embeddings x head_dim, transformers ",
                  s.engine_version, ')');
  }
  return bytes;
}

// The parts in full, in the order their basis is written; with a memo (bytes only), the groups
// an earlier candidate of the search had with the same fields (memory/parts_memo.h).
Parts compute_parts(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                    const memory::EngineRules& rules, Explanations* why, memory::PartsMemo* memo) {
  Parts p;
  if (memo && !why) {
    const memory::PartsMemo::Parts held = memo->parts(s, catalog, counts, rules);
    const memory::StateParts& st = held.states;
    const memory::BatchParts& bt = held.batch;
    p.weights = st.weights;
    p.gradients = st.gradients;
    p.optimizer = held.optimizer;
    p.master = st.master;
    p.overhead = st.overhead;
    p.kv = bt.kv;
    p.kv_sequence = bt.kv_sequence;
    p.activations = bt.activations;
    p.bench_slots = bt.bench_slots;
  } else {
    p.weights = weights_part(s, catalog, counts, rules, why);
    fill_batch_parts(s, catalog, rules, p, why, &counts.modules);
    p.gradients = memory::gradients(s, catalog, rules, counts, why);
    p.optimizer = memory::optimizer_states(s, rules, counts, why);
    p.master = memory::master_weights(s, counts, why);
    p.overhead = memory::overhead(s, catalog, rules, why);
  }
  if (is_paged(s.training.optimizer) && is_training(s.task)) {
    // bitsandbytes pages these states in CUDA unified memory: the device holds them while there
    // is room, PyTorch's allocator never sees them, and they move to host memory under pressure.
    p.overhead += p.optimizer;
    append_pieces(why, "overhead_bytes", " + paged optimizer states ", Fixed{p.optimizer / kGiB, 2},
                  " GiB (unified memory, outside PyTorch's allocator)");
    if (why)
      why->basis.append("optimizer_bytes",
                        "; held in unified memory outside the allocator: counted in overhead");
    p.optimizer = 0;
  }
  p.step_temporaries = step_temporaries(s, rules.engine, p.optimizer);
  return p;
}

// The optimizer step as the peak: activations are freed, gradients and states are held and the
// step's temporaries join them (counted with the optimizer states).
void place_step_peak(Parts& p, MemoryEstimate& m, Explanations* why) {
  m.peak_phase = kOptimizerStepPeak;
  append_pieces(why, "activations_bytes",
                "; freed at the peak, which comes at the optimizer step (",
                Fixed{p.activations / kGiB, 2}, " GiB at the loss)");
  append_pieces(why, "optimizer_bytes", "; + the step's temporaries ",
                Fixed{p.step_temporaries / kGiB, 2},
                " GiB at the peak (torch.optim foreach AdamW: torch._foreach_sqrt of the second "
                "moments)");
  p.activations = 0;
  p.optimizer += p.step_temporaries;
}

// Training: the components alive at the peak. PyTorch frees gradients before each forward
// (Optimizer.zero_grad(set_to_none=True), the default since PyTorch 2.0), so without
// accumulation and without persistent gradient buffers the peak is at the loss (all
// activations, no gradients yet), at the end of backward (all gradients, activations freed) or,
// where the step builds temporaries, at the step (gradients, states and the temporaries).
// DeepSpeed and Megatron keep contiguous gradient buffers and DDP keeps gradient buckets, so
// there gradients and activations coexist, and the step peaks over them when its temporaries
// outgrow the activations.
void place_training_peak(const Scenario& s, const EngineProfile& engine, Parts& p,
                         MemoryEstimate& m, Explanations* why) {
  m.gradients_full = p.gradients;
  const bool persistent_buffers =
      engine.persistent_grad_buffers || (engine.ddp_grad_buckets && s.dense_data_ranks() > 1);
  if (s.training.grad_accum > 1 || persistent_buffers || s.training.optimizer_in_backward) {
    if (p.step_temporaries > p.activations) return place_step_peak(p, m, why);
    m.peak_phase = s.training.grad_accum > 1 ? "backward of a later micro-batch (gradients "
                                               "accumulate)"
                                             : "backward (gradient buffers persist)";
    return;
  }
  if (p.activations >= p.gradients + p.step_temporaries) {
    m.peak_phase = "loss (before any gradient exists)";
    append_pieces(why, "gradients_bytes", "; none alive at the peak: freed by zero_grad, all ",
                  Fixed{p.gradients / kGiB, 2}, " GiB exist only at the end of backward");
    p.gradients = 0;
  } else if (p.step_temporaries > 0) {
    place_step_peak(p, m, why);
  } else {
    m.peak_phase = "end of backward (activations freed)";
    append_pieces(why, "activations_bytes",
                  "; freed at the peak, which comes at the end of backward (",
                  Fixed{p.activations / kGiB, 2}, " GiB at the loss)");
    p.activations = 0;
  }
}

double allocator_fraction(const Scenario& s, const Catalog& catalog) {
  return engine_profile(s, catalog).allocator_overhead_fraction;
}

// Device total for a non-preallocating engine.
double device_total(const Parts& p, const EngineProfile& engine) {
  return p.allocated() * (1.0 + engine.allocator_overhead_fraction) + p.overhead;
}

}  // namespace

namespace memory {

namespace {
// The CUDA context and one NCCL communicator per parallel group this GPU belongs to
// (data/engines.json device; an engine may state its own context size). Its formula, appended to
// `out` by baseline_text, is the overhead's basis, or part of what a release holds beyond its
// budget (issue 18: written where it goes, not into a string of its own and copied).
struct Baseline {
  double context = 0;
  int communicators = 0;
  double per_communicator = 0;
  double bytes() const { return context + communicators * per_communicator; }
};

Baseline process_baseline(const Scenario& s, const EngineProfile& engine,
                          const DeviceProfile& device) {
  Baseline b;
  b.context = engine.cuda_context_bytes > 0 ? engine.cuda_context_bytes : device.cuda_context_bytes;
  b.communicators += s.parallel.tp > 1;
  b.communicators += s.parallel.pp > 1 && engine.pp_uses_nccl;
  // The data-parallel group of the dense parameters (Scenario::dense_data_ranks).
  b.communicators += is_training(s.task) && s.dense_data_ranks() > 1;
  b.communicators += s.parallel.ep > 1;
  b.per_communicator = device.nccl_bytes_per_communicator;
  return b;
}

// The baseline's formula, its pieces appended one by one (core/text_append.h, issue 18).
void baseline_text(std::string& out, const Baseline& b) {
  append_text(out, "CUDA context ", Fixed{b.context / kMiB, 0}, " MiB");
  if (b.communicators)
    append_text(out, " + ", b.communicators, " NCCL communicator(s) x ",
                Fixed{b.per_communicator / kMiB, 0}, " MiB");
}
}  // namespace

EngineRules engine_rules(const Scenario& s, const Catalog& catalog) {
  const EngineProfile& engine = engine_profile(s, catalog);
  return {engine, &engine_release(s, engine)};
}

double overhead(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                Explanations* why) {
  const EngineProfile& engine = rules.engine;
  if (engine.preallocates) {
    // What the release's start-up profile counts as non-torch memory against its budget.
    const EngineRelease& rel = *rules.release;
    double bytes = rel.non_torch_bytes;
    if (s.parallel.tp > 1) bytes += rel.non_torch_tp_extra_bytes;
    // Appended piece by piece (core/text_append.h, issue 18).
    if (wants_basis(why))
      why->basis.set_with("overhead_bytes", [&](std::string& out) {
        append_text(out, "non-torch memory ", engine.name, ' ', rel.version,
                    " counts at start-up: ", Fixed{bytes / kGiB, 2}, " GiB",
                    std::string_view(s.parallel.tp > 1 ? " (with TP)" : ""));
      });
    return bytes;
  }
  const Baseline baseline = process_baseline(s, engine, catalog.device());
  if (wants_basis(why))
    why->basis.set_with("overhead_bytes",
                        [&baseline](std::string& out) { baseline_text(out, baseline); });
  return baseline.bytes();
}

StateParts state_parts(StateTotals& totals, const Scenario& s, const Catalog& catalog,
                       const ModelCounts& counts, const EngineRules& rules) {
  const ShardedStates st = shard_states(totals, s, catalog, rules, counts);
  return {st.weights, st.gradients, st.master, overhead(s, catalog, rules, nullptr)};
}

StateParts state_parts(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                       const EngineRules& rules) {
  StateTotals totals = state_totals(s, rules, counts);
  return state_parts(totals, s, catalog, counts, rules);
}

BatchParts batch_parts(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                       const LinearModules* modules) {
  Parts p;
  fill_batch_parts(s, catalog, rules, p, nullptr, modules);
  return {p.kv, p.kv_sequence, p.activations, p.bench_slots};
}

}  // namespace memory

namespace {

// A preallocating engine with a GPU: the KV pool its release leaves (data/engines.json
// releases), the sequences it holds, and the device total with what it holds beyond its budget.
struct PoolSize {
  double budget = 0;      ///< what the engine counts against its memory fraction
  double pool = 0;        ///< the KV pool (negative: no room)
  double beyond = 0;      ///< held outside the budget
  const char* rule = "";  ///< the release's rule, written after f
};

// The pool each engine's release leaves for the KV cache at memory fraction f
// (data/engines.json releases).
PoolSize pool_size(const EngineRelease& rel, double f, double capacity, const Parts& p) {
  const double fixed = p.weights + p.overhead;
  double budget = f * capacity, pool = 0;
  // CUDA graphs: captured after the pool, outside the budget, unless the release reserves them.
  double beyond = rel.cuda_graphs_in_budget ? 0.0 : rel.cuda_graph_bytes;
  const char* rule = "";
  switch (rel.pool_rule) {
    case PoolRule::kShareOfTotal:
      // vLLM: f x capacity less weights, the profiled activation peak and non-torch memory
      // (V0 worker.determine_num_available_blocks, V1 gpu_worker.determine_available_memory).
      pool = budget - fixed - p.activations;
      rule = " x capacity - weights - activation peak - non-torch";
      // From 0.21 the profile also subtracts its CUDA-graph estimate (gpu_worker.py
      // determine_available_memory: requested - non-KV memory - cudagraph_memory_estimate, on
      // by default, VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS), and the graphs live inside.
      if (rel.cuda_graphs_in_budget) {
        pool -= rel.cuda_graph_bytes;
        rule = " x capacity - weights - activation peak - non-torch - CUDA graphs";
      }
      break;
    case PoolRule::kStaticShareOfTotal:
      // SGLang: memory free after the weights less (1 - f) x capacity; the activations run in
      // that reserve (model_runner.profile_max_num_token).
      pool = budget - fixed;
      beyond += p.activations;
      rule = " x capacity - weights - non-torch (activations in the 1 - f reserve)";
      break;
    case PoolRule::kShareOfFree:
      // TensorRT-LLM: f x the memory free after the weights and activation workspace.
      pool = f * (capacity - fixed - p.activations);
      budget = fixed + p.activations + std::max(0.0, pool);
      rule = " x (capacity - weights - activation workspace - non-torch)";
      break;
  }
  return {budget, pool, beyond, rule};
}

// TensorRT-LLM's C++ runtime: its buffers and decoder for the engine's max_batch_size slots,
// allocated before the pool is sized, count with the non-torch memory (trt_runtime.cc).
void add_runtime_buffers(const Scenario& s, const EngineRelease& rel, Parts& p, Explanations* why) {
  if (rel.runtime_max_batch <= 0) return;
  // An engine built with its own max_batch_size (max_num_seqs) has that many slots; else
  // trtllm-bench's tuning picks them (fill_batch_parts built it).
  const int64_t slots = s.max_num_seqs > 0 ? s.max_num_seqs : p.bench_slots;
  const double runtime = memory::trt_runtime_bytes(s, rel, slots);
  p.overhead += runtime;
  add_basis(why, "overhead_bytes",
            FMT_COMPILE("; + the runtime's buffers and decoder {:.2f} GiB: {} slots x (vocab x "
                        "{:g} B + max_seq_len {} x {:g} B + {:g} B)"),
            runtime / kGiB, slots, rel.runtime_bytes_per_seq_logit, s.engine_max_model_len(),
            rel.runtime_bytes_per_seq_token, rel.runtime_bytes_per_seq);
}

// SGLang from 0.5.3 without a given fraction: what its default was derived from (server_args.py
// _handle_gpu_memory_settings: the GPU's nvidia-smi total, TP x PP, the chunked prefill size and
// CUDA-graph batch limit of the GPU's class; engine_profile.h ReservedMemoryRule).
void default_fraction_text(std::string& out, const Scenario& s, const Catalog& catalog,
                           const EngineRelease& rel) {
  const auto d = derived_defaults(rel.reserved_memory, memory::fraction_inputs(s, catalog));
  if (!d) return;
  append_text(out, "; f: the release's default for ", Fixed{d->gpu_mib, 0},
              " MiB of GPU memory at TP ", s.parallel.tp, " x PP ", s.parallel.pp,
              " (chunked prefill ", d->chunk_tokens, ", CUDA graphs up to batch ", d->graph_bs);
  // From 0.5.10 the piecewise prefill CUDA graphs' captured sizes (PrefillGraphRule).
  if (d->prefill_graphs)
    append_text(out, ", piecewise prefill graphs at ", d->prefill_graph_sizes, " token counts");
  out += ')';
}

// The KV pool's basis: the pool's rule, then the batch's KV formula (kv_cache wrote it), which
// is the formula of one sequence: it names seq and batch, not their values. That formula is
// copied out of the basis, which the new value may grow: on the stack when short (issue 18: a
// string allocated for it every estimate).
void kv_pool_basis(Basis& basis, double f, std::string_view rule, const EngineProfile& engine,
                   const EngineRelease& rel, const Scenario& s, const Catalog& catalog) {
  const auto old = basis.find_key("kv_cache_bytes");
  const std::string_view value = old == basis.end() ? std::string_view() : (*old).value;
  char local[256];
  std::string heap;
  std::string_view sequence;
  if (value.size() <= sizeof local) {
    if (!value.empty()) std::memcpy(local, value.data(), value.size());
    sequence = std::string_view(local, value.size());
  } else {
    heap.assign(value);
    sequence = heap;
  }
  // SGLang from 0.5.3 derived its default from the GPU (default_fraction_text).
  const bool derived =
      !rel.reserved_memory.classes.empty() && !s.gpu_memory_utilization_given && s.gpu;
  basis.set_with("kv_cache_bytes", [&](std::string& out) {
    // The pieces appended one by one (core/text_append.h), the rule's words as they are
    // (issue 18: the rule was a format string parsed at run time for each estimate).
    if (!derived) {
      append_text(out, "KV pool = ", General{f}, rule, " (", engine.name, ' ', rel.version,
                  "); per sequence: ", sequence);
      return;
    }
    append_text(out, "KV pool = ", General{f}, rule, " (", engine.name, ' ', rel.version, ')');
    default_fraction_text(out, s, catalog, rel);
    append_text(out, "; per sequence: ", sequence);
  });
}

void size_kv_pool(const Scenario& s, const Catalog& catalog, const memory::EngineRules& rules,
                  double capacity, double kv_one_sequence, Parts& p, MemoryEstimate& m,
                  Explanations* why) {
  const EngineProfile& engine = rules.engine;
  const EngineRelease& rel = *rules.release;
  const double f = memory::pool_fraction(s, catalog, rel);
  add_runtime_buffers(s, rel, p, why);
  auto [budget, pool, beyond, rule] = pool_size(rel, f, capacity, p);
  const memory::Baseline baseline = memory::process_baseline(s, engine, catalog.device());
  if (rel.baseline_outside_budget) beyond += baseline.bytes();
  // With attention data-parallel groups inside the replica (ep > tp) each group caches only
  // its own sequences, so a GPU holds 1/groups of the batch and the replica groups x the pool.
  const auto groups = s.attention_groups();
  const double requested = p.kv / static_cast<double>(groups);
  p.kv = std::max(0.0, pool);
  if (wants_basis(why)) kv_pool_basis(why->basis, f, rule, engine, rel, s, catalog);
  m.kv_cache_capacity_tokens =
      m.kv_bytes_per_token > 0
          ? groups * static_cast<int64_t>(std::max(0.0, pool) / m.kv_bytes_per_token)
          : 0;
  m.max_batch =
      kv_one_sequence > 0
          ? groups * static_cast<int64_t>(std::floor(std::max(0.0, pool) / kv_one_sequence))
          : 0;
  m.allocated = p.allocated();
  m.reserved = m.allocated;
  m.total = std::max(budget, m.reserved + p.overhead) + beyond;
  // vLLM V1 refuses to start when f x total exceeds the memory free at start-up; the others
  // run out of memory when the reserve cannot hold what lives beyond the budget.
  const bool room = m.total <= capacity * 1.0000001;
  m.fits = pool > 0 && requested <= pool && room;
  m.low = m.total * 0.99;
  m.high = m.total * 1.01;
  if (!why) return;
  if (beyond > 0)
    why->basis.set_with("outside_budget_bytes", [&, beyond = beyond](std::string& out) {
      if (rel.cuda_graphs_in_budget)
        append_text(out, Fixed{beyond / kGiB, 2},
                    " GiB held beyond the budget: the CUDA graphs are inside it");
      else
        append_text(out, Fixed{beyond / kGiB, 2}, " GiB held beyond the budget: CUDA graphs ",
                    Fixed{rel.cuda_graph_bytes / kGiB, 2}, " GiB");
      if (rel.baseline_outside_budget) {
        out.append("; ");
        memory::baseline_text(out, baseline);
        out.append(" (snapshot before the profile)");
      }
      if (rel.pool_rule == PoolRule::kStaticShareOfTotal)
        out.append("; activations in the reserve");
    });
  if (pool <= 0)
    why->warnings.push_back(fmt::format(
        "{}: weights, activations and non-torch memory exceed {:g} x {:.1f} GiB; no room for "
        "any KV cache",
        s.engine, f, capacity / kGiB));
  else if (!room)
    why->warnings.push_back(fmt::format(
        "{} {}: {:.1f} GiB needed with what it holds beyond {:g} x capacity, more than the "
        "{:.1f} GiB usable: lower gpu_memory_utilization",
        s.engine, rel.version, m.total / kGiB, f, capacity / kGiB));
  else if (requested > pool)
    why->warnings.push_back(
        fmt::format("the KV pool holds {} sequences of {} tokens, fewer than the batch of {}",
                    *m.max_batch, s.seq_len, s.batch));
}

// Largest batch of seq_len sequences that fits `capacity` under the caching allocator. Every
// part is affine in the batch (weights fixed; KV cache, prefill activations and logits per
// sequence), so two evaluations give the line; checks on either side absorb rounding.
int64_t largest_batch(const Scenario& s, const Catalog& catalog, const memory::EngineRules& rules,
                      const Parts& p, double capacity) {
  const EngineProfile& engine = rules.engine;
  Scenario t = s;
  Parts q = p;
  auto total_at = [&](int64_t b) {
    t.batch = b;
    fill_batch_parts(t, catalog, rules, q, nullptr, nullptr);
    return device_total(q, engine);
  };
  constexpr int64_t kMost = int64_t{1} << 24;
  const double one = total_at(1), slope = total_at(2) - one;
  int64_t b = 0;
  if (one <= capacity)
    b = slope > 0 ? static_cast<int64_t>(std::floor((capacity - one) / slope)) + 1 : kMost;
  b = std::min<int64_t>(b, kMost);
  while (b > 0 && total_at(b) > capacity) --b;
  while (b < kMost && total_at(b + 1) <= capacity) ++b;
  return b;
}

// An engine that allocates as it goes (PyTorch's caching allocator): reserved and device totals,
// the uncertainty band, fit and the largest batch.
void size_allocated(const Scenario& s, const Catalog& catalog, const memory::EngineRules& rules,
                    const std::optional<double>& capacity, const Parts& p, MemoryEstimate& m) {
  const EngineProfile& engine = rules.engine;
  m.allocated = p.allocated();
  m.reserved = m.allocated * (1.0 + engine.allocator_overhead_fraction);
  m.total = m.reserved + p.overhead;
  // Band: weights and states are near exact; activations and overhead are not.
  const double spread = 0.02 * (p.weights + p.kv + p.gradients + p.optimizer + p.master) +
                        0.25 * p.activations + 0.5 * p.overhead;
  m.low = m.allocated + p.overhead - spread;
  m.high = m.total + spread + 0.1 * m.allocated;
  if (!capacity) return;
  m.fits = m.total <= *capacity;
  if (s.task == Task::kInference && engine.kind != EngineKind::kLlamaCpp)
    m.max_batch = largest_batch(s, catalog, rules, p, *capacity);
  else if (s.task == Task::kInference)
    m.max_batch = s.batch;  // llama.cpp serves the slots it was started with
}

// The basis of the totals (the parts wrote their own as they were computed).
void explain_memory(const Scenario& s, const Catalog& catalog, bool preallocates, bool capacity,
                    Explanations& why) {
  why.basis.add_empty("kv_cache_bytes");  // training caches nothing: the key stays, empty
  if (preallocates)
    why.basis.set("reserved_bytes", "the engine's own allocator: reserved = allocated");
  else
    why.basis.set_with("reserved_bytes", [&](std::string& out) {
      append_text(out, "allocated x (1 + ", General{allocator_fraction(s, catalog)},
                  ") caching-allocator slack (", s.engine, ')');
    });
  why.basis.set("total_bytes", preallocates && capacity
                                   ? "the engine's budget (its memory fraction of usable "
                                     "capacity) + what it holds beyond it (outside_budget_bytes)"
                                   : "reserved + memory outside the allocator (overhead)");
  if (capacity)
    why.basis.set("gpu_capacity_bytes",
                  "marketed GiB less in-band ECC (datacenter GDDR) and the driver's reservation");
}

// The estimate from its parts into `m`, as made (MemoryEstimate's initializers), or with the
// fields written only on some paths made empty (estimate_memory into `out`): with `why` (and no
// memo) every basis, with a memo (and no `why`) the parts an earlier candidate had.
void estimate_from_parts(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                         const memory::EngineRules& rules, Explanations* why,
                         memory::PartsMemo* memo, MemoryEstimate& m) {
  const EngineProfile& engine = rules.engine;
  Parts p = compute_parts(s, catalog, counts, rules, why, memo);
  const bool preallocates = engine.preallocates && s.task == Task::kInference;
  std::optional<double> capacity;
  if (s.gpu)
    capacity =
        memo && !why ? memo->capacity(*s.gpu, catalog) : memory::usable_capacity(*s.gpu, catalog);

  const double kv_one_sequence = p.kv_sequence;
  m.kv_bytes_per_token = s.task == Task::kInference && s.seq_len > 0
                             ? kv_one_sequence / static_cast<double>(s.seq_len)
                             : 0;
  if (is_training(s.task)) place_training_peak(s, engine, p, m, why);

  if (preallocates && capacity) {
    size_kv_pool(s, catalog, rules, *capacity, kv_one_sequence, p, m, why);
  } else {
    if (preallocates && why)
      why->warnings.push_back(s.engine +
                              " preallocates a share of the GPU: give a gpu to size its "
                              "KV pool; showing the memory the batch needs");
    size_allocated(s, catalog, rules, capacity, p, m);
  }

  m.weights = p.weights;
  m.kv_cache = p.kv;
  m.activations = p.activations;
  m.gradients = p.gradients;
  m.optimizer = p.optimizer;
  m.master_weights = p.master;
  m.overhead = p.overhead;
  m.capacity = capacity;
  if (wants_basis(why)) explain_memory(s, catalog, preallocates, capacity.has_value(), *why);
}

}  // namespace

MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, Explanations* why) {
  return estimate_memory(s, catalog, count_model(s), why);
}

MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                               Explanations* why) {
  // The engine and its release, looked up once for every part that reads them.
  return estimate_memory(s, catalog, counts, memory::engine_rules(s, catalog), why);
}

MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                               const memory::EngineRules& rules, Explanations* why) {
  MemoryEstimate m;
  estimate_from_parts(s, catalog, counts, rules, why, nullptr, m);
  return m;
}

void estimate_memory(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                     const memory::EngineRules& rules, memory::PartsMemo& memo,
                     MemoryEstimate& out) {
  // Only the fields estimate_from_parts writes on some paths are made empty: it writes the
  // others on every path (the parts, allocated, reserved, total, the band, the capacity,
  // kv_bytes_per_token). Issue 18: the whole estimate assigned from a made one cost ~26
  // instructions of each search candidate.
  out.fits.reset();                      // with a capacity
  out.max_batch.reset();                 // serving
  out.kv_cache_capacity_tokens.reset();  // a preallocated pool
  out.gradients_full = 0;                // training
  out.peak_phase = {};                   // training
  estimate_from_parts(s, catalog, counts, rules, nullptr, &memo, out);
}

double total_without_optimizer(const Scenario& s, const MemoryEstimate& m,
                               const EngineProfile& engine) {
  if (!is_training(s.task) || is_paged(s.training.optimizer)) return 0;
  // size_allocated's total with the optimizer's bytes at the peak (states and temporaries) taken
  // out of what is allocated: place_training_peak's phases each hold the optimizer states (the
  // step adds its temporaries), so the other scenario's peak, at least its value in s's peak
  // phase, holds the rest. Less a part in 10^9: the other total is summed in another order (its
  // rounding, a few parts in 10^16, must not make the bound pass it).
  const double rest = m.allocated - m.optimizer;
  return (rest * (1.0 + engine.allocator_overhead_fraction) + m.overhead) * (1.0 - 1e-9);
}

}  // namespace gpusizer
