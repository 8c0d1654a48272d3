// Assembles one Estimate from the estimators: memory, then power and cost (speed joins when a
// GPU is given). Nothing here computes memory or speed itself.
#include "gpusizer/estimate.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <utility>

#include "core/kept_texts.h"
#include "core/text_append.h"
#include "core/text_format.h"
#include "cost/ownership_figures.h"
#include "cost/run_cost.h"
#include "estimate/bands.h"
#include "estimate/power.h"
#include "estimate/priced.h"
#include "gpusizer/error.h"
#include "gpusizer/explanations.h"
#include "gpusizer/json/site.h"
#include "gpusizer/speed.h"
#include "gpusizer/units.h"
#include "memory/memory_estimate.h"
#include "memory/model_counts.h"
#include "scenario/lookups.h"
#include "speed/counted_speed.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

void add_warnings(const Scenario& s, const Catalog& catalog, Explanations& e) {
  for (const auto& n : s.notes) e.warnings.push_back(n);
  if (!s.gpu) return;
  const Gpu& g = *s.gpu;
  // What the matmuls run in: the training precision, or the weights' compute type.
  const MixedPrecision mp = s.training.mixed_precision;
  const std::string dtype = is_training(s.task) ? (mp == MixedPrecision::kFp32   ? "fp32"
                                                   : mp == MixedPrecision::kFp16 ? "fp16"
                                                                                 : "bf16")
                                                : s.weights->compute_dtype;
  if (dtype == "bf16" && !g.supports("bf16"))
    e.warnings.push_back(g.name + " has no BF16: use fp16 (mixed_precision fp16, weights fp16)");
  if (s.weights->needs == "fp8" && !g.supports("fp8"))
    e.warnings.push_back(g.name +
                         " has no FP8 tensor cores: fp8 weights run through a slower "
                         "weight-only path or not at all (FP8 needs Ada, Hopper or newer)");
  if (s.kv_cache->id == "fp8" && !g.supports("fp8") && !engine_profile(s, catalog).fp8_kv_any_gpu)
    e.warnings.emplace_back("fp8 KV cache on " + g.name + " is stored only; attention upcasts it");
  if (is_training(s.task) && s.training.flash_attention &&
      g.architecture.find("Volta") != std::string::npos)
    e.warnings.emplace_back("FlashAttention-2 needs Ampere or newer; " + g.name +
                            " falls back to memory-efficient SDPA");
  // Infinity Fabric, Xe Link and Gaudi's on-chip RoCE join their nodes' GPUs as NVLink does
  // (gpus.csv fast_link_domain): only GPUs with neither talk over PCIe.
  if (s.gpu_count > 1 && !g.nvlink && g.fast_link_domain < 2 && is_training(s.task))
    e.warnings.push_back(
        format_text(FMT_COMPILE("{} GPUs without NVLink: gradients and TP traffic cross PCIe "
                                "({})"),
                    s.gpu_count, g.pcie_gen_lanes));
}

// Memory is reported in bytes as 64-bit integers. A need past 2^62 bytes per GPU (4.6 exabytes,
// millions of times the largest GPU) comes from a mistaken input, not a sizing question: it is
// refused, naming the input that drives it, instead of printing a wrapped-around number.
constexpr double kMaxBytes = 4.6e18;

// The figure past any machine, named: kept out of line so that the common test stays small.
[[gnu::noinline, gnu::cold]] void throw_unrepresentable(const Scenario& s,
                                                        const MemoryEstimate& m) {
  for (double v : {m.total, m.high, m.reserved, m.allocated, m.weights, m.kv_cache, m.activations,
                   m.gradients, m.optimizer, m.master_weights, m.overhead}) {
    if (v <= kMaxBytes) continue;  // NaN fails the test too
    const double states = m.weights + m.gradients + m.optimizer + m.master_weights;
    if (states > kMaxBytes)
      throw InputError("model",
                       format_text(FMT_COMPILE("needs {:.3g} bytes per GPU for its weights and "
                                               "training states, past any machine"),
                                   states),
                       "out_of_range");
    throw InputError(
        s.batch > 1 ? "batch" : "seq_len",
        format_text(FMT_COMPILE("batch {} x seq_len {} needs {:.3g} bytes per GPU, past any "
                                "machine"),
                    s.batch, s.seq_len, v),
        "out_of_range");
  }
}

void check_representable(const Scenario& s, const MemoryEstimate& m) {
  auto in_range = [](double v) { return v <= kMaxBytes; };  // NaN is not
  // Every figure in range, tested without building a list of them: the common case.
  if (in_range(m.total) && in_range(m.high) && in_range(m.reserved) && in_range(m.allocated) &&
      in_range(m.weights) && in_range(m.kv_cache) && in_range(m.activations) &&
      in_range(m.gradients) && in_range(m.optimizer) && in_range(m.master_weights) &&
      in_range(m.overhead))
    return;
  throw_unrepresentable(s, m);
}

}  // namespace

std::optional<double> useful_tokens_per_s(const Scenario& s, const Estimate& e) {
  return useful_tokens_per_s(s, e.performance);
}

namespace {

// Whether the engine sized a KV pool from its share of the GPU (vLLM, SGLang, TensorRT-LLM): its
// device total is that share whatever the batch, so the batch's demand is counted apart.
bool preallocated(const Scenario& s, const MemoryEstimate& m) {
  return m.kv_cache_capacity_tokens && s.task == Task::kInference;
}

}  // namespace

double memory_needed(const Scenario& s, const Estimate& e) {
  const MemoryEstimate& m = e.memory;
  if (preallocated(s, m)) {
    const double requested =
        m.kv_bytes_per_token * static_cast<double>(s.seq_len) * static_cast<double>(s.batch);
    // The device total less the pool, plus the batch's KV: weights, activations, non-torch
    // memory and CUDA graphs as the engine holds them whatever the batch.
    return m.total - m.kv_cache + requested;
  }
  return m.total;
}

namespace {

// What the rented fleet's basis line is written from: the instances and the GPUs asked for.
struct RentProbe {
  const CloudCost& rent;
  int64_t gpu_count;
};

// A rented fleet's line as kept with its text (core/kept_texts.h): the price compared as bytes
// (-0.0 and 0.0 write different texts).
struct KeptRent {
  int64_t count = 0, gpus_per_instance = 0, gpu_count = 0;
  double instance_usd_per_hour = 0;
  std::string instance, provider, price_date;
  bool matches(const RentProbe& p) const {
    const CloudCost& r = p.rent;
    return count == r.count && gpu_count == p.gpu_count &&
           gpus_per_instance == r.gpus_per_instance &&
           std::memcmp(&instance_usd_per_hour, &r.instance_usd_per_hour, sizeof(double)) == 0 &&
           instance == r.instance && provider == r.provider && price_date == r.price_date;
  }
  void keep(const RentProbe& p) {
    const CloudCost& r = p.rent;
    count = r.count;
    gpus_per_instance = r.gpus_per_instance;
    gpu_count = p.gpu_count;
    instance_usd_per_hour = r.instance_usd_per_hour;
    instance = r.instance;
    provider = r.provider;
    price_date = r.price_date;
  }
};

// The basis of the fleet's hourly price, appended piece by piece (core/text_append.h) and kept
// per thread with what it was written from (issue 18: seven pieces and a "%g" price, ~480
// instructions an estimate that rents, for the few GPUs and counts a batch or a search prices
// over and over).
void append_rent_basis(Basis& basis, const CloudCost& rent, int64_t gpu_count) {
  thread_local KeptTexts<KeptRent, 8> kept;
  basis.set_with("usd_per_hour", [&](std::string& out) {
    kept.append(out, RentProbe{rent, gpu_count}, [&](std::string& text) {
      append_text(text, rent.count, " x ", rent.instance, " (", rent.provider, ", ",
                  rent.gpus_per_instance, " GPUs each, $", General{rent.instance_usd_per_hour},
                  "/h, ", rent.price_date, ") for ", gpu_count, " GPUs");
    });
  });
}

// The fleet in whole cloud instances (cost/fleet.h): its $/h is the cost's usd_per_hour; the
// training run's price and energy (cost/run_cost.h).
// `plan`: the nodes power counted (estimate_power); the assumptions end in the ownership.
void estimate_cost(const Scenario& s, const Catalog& catalog, CostAssumptions&& costs,
                   const NodePlan& plan, Estimate& e, Explanations* why, bool extras) {
  // Numbers only: the ownership's figures without its basis lines and verdict; an explained
  // estimate without its ownership's texts is an answer's that writes no cost: the rent alone.
  const OwnershipText text = !why              ? OwnershipText::kNone
                             : !extras         ? OwnershipText::kRentOnly
                             : why->basis.on() ? OwnershipText::kBasis
                                               : OwnershipText::kVerdict;
  estimate_ownership(s, e.performance, e.power, std::move(costs), catalog,
                     e.power.nodes ? &plan : nullptr, text, e.ownership.emplace());
  if (const auto& rent = e.ownership->cloud) {
    e.cost.usd_per_hour = rent->usd_per_hour;
    if (why) append_rent_basis(why->basis, *rent, s.gpu_count);
    if (useful_tokens_per_s(s, e)) {
      e.cost.usd_per_million_tokens = rent->usd_per_million_tokens;
      if (why)
        why->basis.set("usd_per_million_tokens",
                       is_training(s.task)
                           ? "usd_per_hour / (train_tokens_per_s x 3600) x 1e6"
                           : "usd_per_hour / (max_output_tokens_per_s x 3600) x 1e6 (output "
                             "tokens, GPUs kept full)");
    }
  }
  if (e.ownership->cloud) {
    e.cost.usd_per_million_requests = e.ownership->cloud->usd_per_million_requests;
    e.cost.usd_per_run = e.ownership->cloud->usd_per_run;
  }
  const RunCost run = price_training_run(s, e.performance, e.ownership, e.power);
  e.cost.usd_total = run.usd_total;
  e.power.run_kwh = run.kwh;
  if (why && (run.usd_total || run.kwh)) why->basis.set("usd_total", run.basis);
}

// The lines of the memory stage that only a full estimate has: how the parameters were counted,
// the engine's rules, and a warning when the job does not fit.
void explain_counts(const Scenario& s, const ModelCounts& counts, const Estimate& e,
                    Explanations& why) {
  why.basis.set("params", counts.params.computed
                              ? "counted from the architecture (HF module layout)"
                              : "given count (the architecture is not countable field by field)");
  if (!s.engine_basis.empty())
    why.basis.set_with("engine", [&s](std::string& out) {
      append_text(out, s.engine, ' ', s.engine_version, ": ", s.engine_basis);
    });
  if (!e.memory.fits || *e.memory.fits || !e.memory.capacity) return;
  // The demand, not the device total (the changes save from this figure). A preallocating
  // engine's total is its share of the GPU, under the capacity even when its pool holds fewer
  // sequences than asked: the demand is set against that share, which gpu_memory_utilization
  // raises up to the usable memory.
  const double needs = memory_needed(s, e) / kGiB, usable = *e.memory.capacity / kGiB;
  if (preallocated(s, e.memory))
    why.warnings.push_back(format_text(
        FMT_COMPILE("does not fit: needs {:.1f} GiB per GPU, {} takes {:.1f} GiB of {}'s {:.1f} "
                    "GiB usable (gpu_memory_utilization {:.2f})"),
        needs, s.engine, e.memory.total / kGiB, s.gpu->name, usable, s.gpu_memory_utilization));
  else
    why.warnings.push_back(
        format_text(FMT_COMPILE("does not fit: needs {:.1f} GiB per GPU, {} has {:.1f} GiB "
                                "usable"),
                    needs, s.gpu->name, usable));
}

// An explained estimate's stages after the memory: the counts' basis, power, speed (with
// `memo`) and cost, the speed bands and the warnings (what an answer leaves out of a setup that
// does not fit by `unfit_extras`), then the basis and warnings moved into `e`.
void explain(const Scenario& s, const Catalog& catalog, StagedEstimate& staged,
             ModuleSumsMemo* memo, UnfitExtras unfit_extras, Estimate& e, Explanations& why) {
  explain_counts(s, staged.counts(), e, why);
  const bool does_not_fit = e.memory.fits && !*e.memory.fits;
  const bool extras = unfit_extras == UnfitExtras::kMade || !does_not_fit;
  staged.add_priced(memo, extras);
  // The bands of the figures an answer writes (none for a setup that does not fit); they read
  // the MFU ceiling only where the step has an MFU.
  if (e.performance && extras)
    add_speed_bands(s, catalog.speed_bands(), *e.performance, e.cost, &why,
                    is_training(s.task) ? mfu_ceiling(s, catalog.speed()) : 0);
  add_warnings(s, catalog, why);
  e.basis = std::move(why.basis);
  e.warnings = std::move(why.warnings);
}

}  // namespace

StagedEstimate::StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e,
                               Explanations* why)
    : s_(s),
      catalog_(catalog),
      own_counts_(std::in_place, *s.model),  // made in place: a move is ~700 bytes copied
      counts_(*own_counts_),
      rules_(memory::engine_rules(s, catalog)),
      e_(e),
      why_(why) {
  count_training(s, *own_counts_);
  estimate_memory_stage();
}

StagedEstimate::StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e,
                               const ModelCounts& counts, Explanations* why)
    : s_(s),
      catalog_(catalog),
      counts_(counts),
      rules_(memory::engine_rules(s, catalog)),
      e_(e),
      why_(why) {
  estimate_memory_stage();
}

StagedEstimate::StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e,
                               const ModelCounts& counts, memory::PartsMemo& memo)
    : s_(s),
      catalog_(catalog),
      counts_(counts),
      rules_(memory::engine_rules(s, catalog)),
      e_(e),
      why_(nullptr) {
  estimate_memory_stage(&memo);
}

StagedEstimate::StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e,
                               const ModelCounts& counts, memory::PartsMemo& memo,
                               const memory::EngineRules& rules)
    : s_(s), catalog_(catalog), counts_(counts), rules_(rules), e_(e), why_(nullptr) {
  estimate_memory_stage(&memo);
}

void StagedEstimate::estimate_memory_stage(memory::PartsMemo* memo) {
  const Scenario& s = s_;
  Estimate& e = e_;
  // A search's candidates (memo) keep the base's model, and the search reads no id: not copied
  // each candidate (issue 18: a string assigned, ~40 instructions).
  if (!memo) e.model_id = s.model->id;
  e.params = counts_.params.total;
  e.active_params = counts_.params.active;
  if (memo)
    estimate_memory(s, catalog_, counts_, rules_, *memo, e.memory);
  else
    e.memory = estimate_memory(s, catalog_, counts_, rules_, why_);
  check_representable(s, e.memory);
}

void StagedEstimate::add_speed(ModuleSumsMemo* memo) {
  if (s_.gpu)
    estimate_speed(s_, catalog_, rules_.engine, e_.memory, counts_, why_, e_.performance.emplace(),
                   memo);
}

void StagedEstimate::add_priced(ModuleSumsMemo* memo, bool extras) {
  CostAssumptions costs = with_cost_overrides(catalog_.cost_defaults(), s_.costs);
  NodePlan plan;  // counted once, for power and the on-prem price
  estimate_power(s_, with_facility_overrides(catalog_.facility_defaults(), s_.facility), costs,
                 catalog_, why_, plan, e_.power);
  if (!s_.gpu) return;
  if (extras) {
    add_speed(memo);
    estimate_cost(s_, catalog_, std::move(costs), plan, e_, why_, extras);
    return;
  }
  // A setup that does not fit: its answer writes no speed or cost figures (docs/contract.md), so
  // no basis text for them either; the change search still reads the step's speed (its changes'
  // speed factors), without the split by part, and the stages' warnings stay. Of the cost stage
  // the answer writes only the run's energy, in its power (issue 18: the ownership's rent and
  // on-prem prices made for no figure, ~1.4k instructions a line that does not fit).
  Explanations warnings_only;
  warnings_only.basis.turn_off();
  Explanations* quiet = why_ ? &warnings_only : nullptr;
  estimate_speed_without_breakdown(s_, catalog_, rules_.engine, e_.memory, counts_, quiet,
                                   e_.performance.emplace(), memo);
  e_.power.run_kwh = training_run_kwh(s_, e_.performance, e_.power, costs.pue);
  if (why_)
    for (std::string& w : warnings_only.warnings) why_->warnings.push_back(std::move(w));
}

Estimate estimate_priced(const Scenario& s, const Catalog& catalog) {
  Estimate e;
  StagedEstimate(s, catalog, e).add_priced();
  return e;
}

Estimate estimate(const Scenario& s, const Catalog& catalog, Detail detail) {
  Estimate e;
  if (detail == Detail::kFigures || detail == Detail::kMemory) {
    StagedEstimate staged(s, catalog, e);  // no text: what searches need of each candidate
    if (detail == Detail::kFigures) staged.add_speed();
    return e;
  }
  Explanations why;
  if (detail == Detail::kNoBasis) why.basis.turn_off();
  StagedEstimate staged(s, catalog, e, &why);
  explain(s, catalog, staged, nullptr, UnfitExtras::kMade, e, why);
  return e;
}

Estimate estimate(const Scenario& s, const Catalog& catalog, Detail detail,
                  const ModelCounts& counts, ModuleSumsMemo& memo, UnfitExtras unfit_extras) {
  Estimate e;
  Explanations why;
  if (detail == Detail::kNoBasis) why.basis.turn_off();
  StagedEstimate staged(s, catalog, e, counts, &why);
  explain(s, catalog, staged, &memo, unfit_extras, e, why);
  return e;
}

}  // namespace gpusizer
