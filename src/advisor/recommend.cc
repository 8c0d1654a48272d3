// The recommendation search: every allowed catalog GPU x count x lever, each candidate estimated
// by the library's estimators (bytes first, then the priced figures of estimate/priced.h), kept
// when it fits with headroom and meets the constraints, ranked by the objective; the options
// returned are estimated in full and explained. Rejected GPUs get the reason they fell.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "advisor/candidates.h"
#include "advisor/explain.h"
#include "advisor/fleet_fit.h"
#include "advisor/serving_plan.h"
#include "advisor/training_plan.h"
#include "estimate/layout.h"
#include "estimate/priced.h"
#include "gpusizer/advisor.h"
#include "gpusizer/error.h"
#include "gpusizer/units.h"
#include "scenario/engine_choice.h"

namespace gpusizer {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Lever {
  const NumberFormat* weights = nullptr;
  const NumberFormat* kv = nullptr;
  int zero = 0;
  Recompute recompute = Recompute::kNone;
};

// The closest a GPU came: the attempt with the least memory per usable byte.
struct Attempt {
  double ratio = kInf, needed = kInf, capacity = 0;
  int64_t count = 0;
  std::string levers, constraint;
  bool estimated = false;  ///< false: `needed` is the weights-only lower bound
};

// How far past its smallest count that fits the speed objective looks (more GPUs, faster steps):
// max_gpus, else one node for fine-tuning and 1,024 GPUs for pre-training.
int64_t speed_reach(const Scenario& s, const Constraints& c) {
  if (c.max_gpus > 0) return c.max_gpus;
  return s.task == Task::kInference ? 16 : s.task == Task::kPretrain ? 1024 : 8;
}

std::vector<int64_t> counts_for(const Scenario& s, const Gpu& g, const Constraints& c) {
  int64_t cap = c.max_gpus;
  // Fine-tuning a large model needs a cluster as pre-training does (mission: full fine-tuning
  // beyond 7B "on A100/H100 clusters"; 70B's 16 bytes a parameter for weights, gradients and
  // AdamW are 1.1 TB, 32 H100s with ZeRO-3), so every training task searches as far for a count
  // that fits; the search stops at each GPU's smallest (the speed objective: speed_reach).
  if (cap == 0) cap = s.task == Task::kInference ? 16 : 1024;
  if (g.segment == "apple-soc") cap = 1;  // one SoC per machine
  // Powers of two (1, 2, 4, 8 per node, then whole nodes), and the cap itself.
  std::vector<int64_t> out;
  for (int64_t n = 1; n <= cap; n *= 2) out.push_back(n);
  if (out.back() < cap) out.push_back(cap);
  return out;
}

// Weight formats worth trying on a GPU, best quality first.
std::vector<const NumberFormat*> weight_levers(const Scenario& s, const Gpu& g,
                                               const Constraints& c, const Catalog& catalog) {
  std::vector<const NumberFormat*> out;
  const NumberFormat* base = s.weights.get();
  if (s.weights->id == "bf16" && !g.supports("bf16"))
    base = &catalog.format("fp16", "weights", "weights");
  out.push_back(base);
  if (s.task != Task::kInference || !c.allow_quantization) return out;
  const bool gguf = catalog.engine(s.engine).loads("gguf");  // its quantized formats are GGUF
  auto add = [&](const char* id) {
    const NumberFormat& f = catalog.format(id, "weights", "weights");
    if (f.bits_per_value + 0.01 < base->bits_per_value) out.push_back(&f);
  };
  if (!gguf && g.supports("fp8")) add("fp8");
  add(gguf ? "q8_0" : "int8");
  add(gguf ? "q4_k_m" : "awq-int4");
  return out;
}

// Why a GPU is out before any estimate (GpuOut::kIn when it stays in).
GpuOut filter(const Gpu& g, const Scenario& s, const Constraints& c, const Catalog& catalog) {
  if (!c.gpus.empty() && std::find(c.gpus.begin(), c.gpus.end(), g.id) == c.gpus.end())
    return GpuOut::kNotAllowed;
  if (!c.vendor.empty() &&
      normalize_name(g.vendor).find(normalize_name(c.vendor)) == std::string::npos)
    return GpuOut::kVendor;
  if (!c.segment.empty() && normalize_name(g.segment) != normalize_name(c.segment))
    return GpuOut::kSegment;
  // gpus.csv china_status (typed): restricted and not-sold parts are out, licence ones stay with
  // a warning (explain.cc). An export-controlled part already in a Chinese cloud can still be
  // rented there.
  if (c.region == "cn" && !china_block(g).empty() &&
      (c.deployment == "on_prem" || !rented(g, catalog, true)))
    return GpuOut::kChina;
  // Pre-training runs for weeks across racks: the GeForce driver licence excludes datacenter
  // deployment (the "No Datacenter Deployment" clause of NVIDIA's GeForce driver licence), and
  // consumer cards lack ECC and NVLink. Asking for the consumer segment explicitly overrides this.
  if (s.task == Task::kPretrain && g.segment == "consumer" && c.segment.empty())
    return GpuOut::kConsumerPretraining;
  if (c.production && !(g.has_ecc() && g.segment == "datacenter")) return GpuOut::kNotProduction;
  if (c.deployment == "cloud" && !rented(g, catalog, c.region == "cn")) return GpuOut::kNotRented;
  if (c.deployment == "on_prem" && c.budget_usd && !g.launch_price_usd)
    return GpuOut::kNoPurchasePrice;
  // A defaulted engine follows the GPU (llama.cpp on Apple).
  const EngineProfile& engine = engine_on(s, g, catalog);
  if (!engine.runs_on(g.vendor)) return GpuOut::kEngineVendor;
  if (is_training(s.task) && g.segment == "apple-soc" && !engine.trains_on_apple)
    return GpuOut::kNoCuda;
  if (!g.memory_bandwidth_gbps || g.memory_gb <= 0) return GpuOut::kNoMemoryFigures;
  return GpuOut::kIn;
}

// The reason in words, for the rejected list.
std::string filter_text(GpuOut why, const Gpu& g, const Scenario& s, const Constraints& c,
                        const Catalog& catalog) {
  switch (why) {
    case GpuOut::kIn:
      return "";
    case GpuOut::kNotAllowed:
      return "not in the allowed list";
    case GpuOut::kVendor:
      return "vendor " + g.vendor + ", not " + c.vendor;
    case GpuOut::kSegment:
      return "segment " + g.segment + ", not " + c.segment;
    case GpuOut::kChina:
      return "not available in China: " + china_block(g);
    case GpuOut::kConsumerPretraining:
      return "pre-training clusters need datacenter-licensed cards (GeForce licence: no "
             "datacenter deployment; no ECC, no NVLink); pass segment consumer to include it";
    case GpuOut::kNotProduction:
      return g.has_ecc() ? "production needs a datacenter card (" + g.segment + ")"
                         : "production needs ECC memory (" + g.segment + " card without ECC)";
    case GpuOut::kNotRented:
      return "not rented: no cloud instance in data/instances.csv";
    case GpuOut::kNoPurchasePrice:
      return "no purchase price in the catalog to check the budget";
    case GpuOut::kEngineVendor:
      return engine_on(s, g, catalog).name + " does not run on " + g.vendor + " GPUs";
    case GpuOut::kNoCuda:
      return s.engine + " needs CUDA or ROCm";
    case GpuOut::kNoMemoryFigures:
      return "no memory figures in the catalog";
  }
  return "";
}

// A lever at `n` GPUs of `g` as an edit of the parsed scenario: the GPU (a defaulted engine
// follows it), the count with the split the layout rule chooses (serving) or dp = n
// (training), the formats, ZeRO and checkpointing where they differ from the scenario's, and
// the 16-bit fallbacks of a GPU without BF16. The KV format is named: a candidate keeps the
// scenario's unless the lever changes it.
ScenarioEdit lever_edit(const Scenario& base, const Gpu& g, const RackLimit& rack, int64_t n,
                        const Lever& lv) {
  ScenarioEdit e{.gpu = g.id, .gpu_count = n, .default_split = true};
  if (rack.given) e.gpus_per_node = std::min(base.gpus_per_node, rack.max_gpus_per_node);
  if (lv.weights->id != base.weights->id) e.weights = lv.weights->id;
  e.kv_cache = lv.kv->id;
  if (is_training(base.task)) {
    if (lv.zero != base.training.zero_stage) e.zero_stage = lv.zero;
    if (lv.recompute != base.training.recompute) e.recompute = lv.recompute;
  }
  fp16_fallbacks(base, g, e);
  return e;
}

// Weights alone per GPU: a lower bound that skips estimates that cannot fit.
double weights_lower_bound(const Scenario& t, double params) {
  double shards = static_cast<double>(t.parallel.tp * t.parallel.pp);
  if (is_training(t.task) && t.training.zero_stage >= 3) shards *= static_cast<double>(t.gpu_count);
  return params * t.weights->bytes_per_value() / shards;
}

std::string lever_words(const Scenario& t, const Scenario& base, const Gpu& g) {
  std::vector<std::string> w;
  if (t.weights->id != base.weights->id)
    w.push_back(t.weights->id == "fp16" && !g.supports("bf16") ? "fp16 weights (no BF16)"
                                                               : t.weights->id + " weights");
  if (t.kv_cache->id != base.kv_cache->id && !is_training(t.task))
    w.push_back(t.kv_cache->id + " KV cache");
  if (t.parallel.tp > 1) w.push_back(fmt::format("TP={}", t.parallel.tp));
  if (t.parallel.pp > 1) w.push_back(fmt::format("PP={}", t.parallel.pp));
  if (is_training(t.task)) {
    if (t.training.zero_stage > 0 && t.gpu_count > 1)
      w.push_back(fmt::format("ZeRO-{} over {} GPUs", t.training.zero_stage, t.gpu_count));
    if (t.training.recompute == Recompute::kFull) w.emplace_back("gradient checkpointing");
    if (t.training.mixed_precision != base.training.mixed_precision)
      w.push_back(to_string(t.training.mixed_precision) + " mixed precision");
  }
  std::string out;
  for (size_t i = 0; i < w.size(); ++i) out += (i ? ", " : "") + w[i];
  return out;
}

// The ladder of levers at one count: the scenario's own, then ZeRO-3 and checkpointing for
// training (each, then both), for each KV format.
std::vector<Lever> ladder_at(const Scenario& base, const NumberFormat* wf,
                             const std::vector<const NumberFormat*>& kvs, int64_t n) {
  std::vector<Lever> ladder;
  for (const NumberFormat* kv : kvs) {
    if (!is_training(base.task)) {
      ladder.push_back({wf, kv, 0, Recompute::kNone});
      continue;
    }
    const int zb = base.training.zero_stage;
    const Recompute rb = base.training.recompute;
    ladder.push_back({wf, kv, zb, rb});
    if (n > 1 && zb < 3) ladder.push_back({wf, kv, 3, rb});
    if (rb != Recompute::kFull) ladder.push_back({wf, kv, zb, Recompute::kFull});
    if (n > 1 && zb < 3 && rb != Recompute::kFull) ladder.push_back({wf, kv, 3, Recompute::kFull});
  }
  return ladder;
}

// A GPU that came closest without fitting, for "what to change".
struct Miss {
  const Gpu* gpu;
  Attempt a;
};

// What one lever at one count did: not tried or not fitting, an option taken, or a constraint
// missed (ends the count; a budget ends the GPU: more GPUs cost more).
enum class Tried { kNext, kTaken, kUnmet, kOverBudget };

struct Search {
  const Scenario& base;  // as parsed (before the layout is chosen)
  const ScenarioGiven& given;
  const Constraints& c;
  const Catalog& catalog;
  double params = 0;
  bool layout_search = false;  // training on token sequences: the layout search (training_plan.h)
  std::optional<int64_t> fixed_count;
  LayoutPins pins;
  Recommendation& r;
  std::vector<Miss> misses;
  std::vector<std::string> levers;  // the ladder's options' levers in words, by index
  std::vector<LayoutNote> notes;    // the layout search's options' notes, by index

  // Training layouts (training_plan.h) on the allowed counts, or the one gpu_count fixed.
  void plan_layouts(const Gpu& g, const RackLimit& rack, Attempt& best) {
    const std::vector<int64_t> plan_counts =
        fixed_count ? std::vector<int64_t>{*fixed_count} : counts_for(base, g, c);
    Scenario plan_base = base;  // a rack budget caps the GPUs per node here too
    if (rack.given) plan_base.gpus_per_node = std::min(base.gpus_per_node, rack.max_gpus_per_node);
    TrainingPlan plan = plan_training(plan_base, given, g, plan_counts, fixed_count.has_value(),
                                      pins, c, speed_reach(base, c), catalog);
    // Explained (and priced in the region) once ranked: finish_options.
    for (size_t i = 0; i < plan.options.size(); ++i) {
      r.options.push_back(std::move(plan.options[i]));
      notes.push_back(std::move(plan.notes[i]));
    }
    if (!plan.constraint.empty()) {
      best.ratio = 0;
      best.count = plan.count;
      best.constraint = plan.constraint;
    } else if (plan.estimated) {
      best = {plan.needed / plan.capacity,
              plan.needed,
              plan.capacity,
              plan.count,
              plan.levers,
              "",
              true};
    }
  }

  // One lever at `n` GPUs: estimated unless its weights alone cannot fit; kept when it fits
  // with headroom and meets the constraints.
  Tried try_lever(const Gpu& g, const RackLimit& rack, int64_t n, const Lever& lv, Attempt& best,
                  std::string& binding, double& skip_below) {
    Scenario t;
    try {
      t = candidate(base, given, lever_edit(base, g, rack, n, lv), catalog);
    } catch (const InputError&) {
      return Tried::kNext;  // a split this model cannot take
    }
    if (t.replica_gpus() * t.parallel.dp != n) return Tried::kNext;
    const double bound = weights_lower_bound(t, params);
    if (bound > g.capacity_bytes() * (1.0 - c.headroom)) {
      // Only a bound: it stands for the GPU's best attempt until a real estimate does.
      if (!best.estimated && bound < best.needed)
        best = {kInf, bound, g.capacity_bytes(), n, lever_words(t, base, g), "", false};
      binding = "memory";
      return Tried::kNext;
    }
    // Memory first, bytes only (issue 18): speed, power, cost and their basis only for a
    // candidate that fits. The full estimate's memory is the same figures.
    Estimate e;
    StagedEstimate staged(t, catalog, e);
    if (!e.memory.capacity) return Tried::kNext;
    const MemoryFit fit = memory_fit(t, e, c.headroom);
    const double need = fit.needed;
    const double cap = fit.capacity;
    if (!fit.fits) {
      if (need / cap < best.ratio)
        best = {need / cap, need, cap, n, lever_words(t, base, g), "", true};
      binding = "memory";
      return Tried::kNext;
    }
    // The figures only (estimate/priced.h), from the counts and memory just made: ranking and
    // the constraints read numbers; the options returned are estimated in full and explained
    // once ranked (finish_options).
    staged.add_priced();
    price_in_region(t, e, catalog, c.region);
    Option o{std::move(t), std::move(e), need, 1.0 - need / cap, 0, "", 0, {}, {}, binding, {}};
    if (const explain::Unmet unmet = explain::unmet(o, c)) {
      binding = explain::binding_of(unmet.constraint);
      best.ratio = std::min(best.ratio, 0.0);
      best.count = n;
      best.constraint = unmet.text();
      if (unmet.constraint == explain::Constraint::kBudget) return Tried::kOverBudget;
      const double f = explain::speed_shortfall(o, c);
      if (f > 1.0) {
        // Too slow: other levers at this count only slow it further; go bigger.
        skip_below = static_cast<double>(n) * f;
        return Tried::kUnmet;
      }
      return Tried::kNext;
    }
    // The rack budget binds when it split this option's nodes.
    if (rack.given && rack.max_gpus_per_node < std::min(n, base.gpus_per_node)) o.binding = "power";
    explain::set_objective(o, c);
    levers.push_back(lever_words(o.scenario, base, g));
    r.options.push_back(std::move(o));
    return Tried::kTaken;
  }

  // Counts x weight formats x levers, smallest count first: the first that fits and meets the
  // constraints is the GPU's option for that format.
  void ladder(const Gpu& g, const RackLimit& rack, Attempt& best) {
    const std::vector<int64_t> counts = counts_for(base, g, c);
    for (const NumberFormat* wf : weight_levers(base, g, c, catalog)) {
      // KV formats: the scenario's, then fp8 when quantization is allowed.
      std::vector<const NumberFormat*> kvs = {base.kv_cache.get()};
      if (base.task == Task::kInference && c.allow_quantization &&
          base.kv_cache->bits_per_value > 8 && !catalog.engine(base.engine).loads("gguf"))
        kvs.push_back(&catalog.format("fp8", "kv", "kv_cache"));
      std::string binding = "none";  // why the counts below this one were not enough
      double skip_below = 0;  // counts that cannot meet a speed constraint (linear scaling bound)
      bool done = false;
      for (int64_t n : counts) {
        if (done) break;
        if (static_cast<double>(n) < skip_below && n != counts.back()) continue;
        for (const Lever& lv : ladder_at(base, wf, kvs, n)) {
          const Tried t = try_lever(g, rack, n, lv, best, binding, skip_below);
          if (t == Tried::kOverBudget) done = true;
          if (t == Tried::kTaken) done = true;
          if (t == Tried::kTaken || t == Tried::kUnmet) break;
        }
      }
    }
  }

  // Why a GPU with no option fell: a constraint, or the memory it needed at best.
  std::string miss_text(const Gpu& g, const Attempt& best) {
    if (!best.constraint.empty()) return fmt::format("{}: fits, but {}", g.name, best.constraint);
    if (best.count == 0) return g.name + ": no configuration could be estimated";
    misses.push_back({&g, best});
    return fmt::format(
        "{}: {} of {} needs {}{:.1f} GB per GPU at best ({} GPU{}{}{}); {:.0f} GB usable{}", g.name,
        to_string(base.task), base.model->name, best.estimated ? "" : "more than its weights' ",
        best.needed / kGB, best.count, best.count > 1 ? "s" : "", best.levers.empty() ? "" : ", ",
        best.levers, best.capacity / kGB,
        // Instinct, Gaudi and Intel Max rows join their GPUs without NVLink (fast_link_domain).
        best.count > 1 && !g.nvlink && g.fast_link_domain < 2
            ? fmt::format("; no NVLink for a {}-way split", best.count)
            : "");
  }

  void search_gpu(const Gpu& g) {
    const GpuOut out = filter(g, base, c, catalog);
    if (out != GpuOut::kIn) {
      // GPUs outside an allowed list are not candidates at all; the others say why they fell.
      if (out != GpuOut::kNotAllowed)
        r.rejected.push_back({g.id, g.name + ": " + filter_text(out, g, base, c, catalog)});
      return;
    }
    // An explicit rack budget caps the GPUs per node (fewer per node, more nodes).
    const RackLimit rack = rack_limit(base, g, catalog);
    if (rack.given && rack.max_gpus_per_node == 0) {
      r.rejected.push_back(
          {g.id, fmt::format("{}: one node with a single GPU needs {:.1f} kW with margin, over the "
                             "rack budget of {:.1f} kW",
                             g.name, rack.one_gpu_node_watts / 1000.0, rack.watts / 1000.0)});
      return;
    }
    Attempt best;
    const size_t options_before = r.options.size();
    // The layout search replaces the count and lever ladder for the tasks it covers.
    if (layout_search)
      plan_layouts(g, rack, best);
    else
      ladder(g, rack, best);
    if (r.options.size() == options_before) r.rejected.push_back({g.id, miss_text(g, best)});
  }
};

// What to change: for the one GPU asked about (unless it fits), or the closest miss when
// nothing fits.
void add_changes(Recommendation& r, const std::vector<Miss>& misses, const Scenario& base,
                 const ScenarioGiven& given, const Catalog& catalog) {
  const Constraints& c = r.constraints;
  const Gpu* target = nullptr;
  int64_t target_count = 1;
  if (c.gpus.size() == 1) {
    target = &catalog.gpu(c.gpus[0]);
    for (const auto& m : misses)
      if (m.gpu == target) target_count = m.a.count;
    bool fits = false;
    for (const auto& o : r.options) fits |= o.scenario.gpu->id == target->id;
    if (fits) target = nullptr;
  } else if (r.options.empty() && !misses.empty()) {
    const auto it =
        std::min_element(misses.begin(), misses.end(),
                         [](const auto& a, const auto& b) { return a.a.ratio < b.a.ratio; });
    target = it->gpu;
    target_count = it->a.count;
  }
  if (!target) return;
  // The scenario on that system (its own split fields kept), ZeRO-3 over several GPUs unless
  // the input chose a stage; the changes are edits of it.
  ScenarioEdit on_target{.gpu = target->id, .gpu_count = target_count};
  if (target_count > 1 && is_training(base.task) && !given.zero_stage) on_target.zero_stage = 3;
  try {
    const Scenario parsed = edited(base, given, on_target, catalog);
    r.changes = changes_to_fit(parsed, given_after(given, on_target), catalog, c.headroom);
    r.changes_for = fmt::format("{} x {}", target_count, target->id);
  } catch (const InputError&) {
  }
}

}  // namespace

Recommendation recommend(const RecommendRequest& request, const Catalog& catalog) {
  Recommendation r;
  r.constraints = request.constraints;
  const Constraints& c = r.constraints;
  const ScenarioGiven& given = request.given;
  const Scenario& base = request.scenario;
  if (base.traffic) {  // a request rate: the fleet search (advisor/serving_plan.h)
    plan_serving(base, given, catalog, r);
    return r;
  }
  Search search{base,
                given,
                c,
                catalog,
                static_cast<double>(count_params(*base.model).total),
                false,
                std::nullopt,
                LayoutPins{},
                r,
                {},
                {},
                {}};
  // Training on token sequences: the layout search (training_plan.h) on the allowed counts, or
  // on the one gpu_count the request fixes.
  search.layout_search = is_training(base.task) && base.task != Task::kCvTrain;
  if (search.layout_search) {
    search.fixed_count = request.gpu_count;
    search.pins = request.pins;
  } else {
    // At most one option per GPU and weights format (weight_levers: four at most): no Option
    // is moved by the vector's growth.
    r.options.reserve(catalog.gpus().size() * (c.allow_quantization ? 4 : 1));
  }
  for (const Gpu& g : catalog.gpus()) search.search_gpu(g);
  if (search.layout_search) {
    // As the training plan explains an option, then priced in the region (the objective stays
    // the one described).
    explain::finish_options(r, [&](Option& o, size_t i) {
      explain_training_option(o, search.notes[i], base, c, catalog);
      price_in_region(o.scenario, o.estimate, catalog, c.region);
    });
  } else {
    explain::finish_options(r, [&](Option& o, size_t i) {
      o.estimate = estimate(o.scenario, catalog);
      price_in_region(o.scenario, o.estimate, catalog, c.region);
      explain::describe(o, base, c, catalog, search.levers[i]);
    });
  }
  add_changes(r, search.misses, base, given, catalog);
  return r;
}

// The traffic search (serving_plan.cc) shares the catalog filter, the weight formats and the
// lever words of this search (advisor/candidates.h).
GpuOut gpu_out(const Gpu& g, const Scenario& s, const Constraints& c, const Catalog& catalog) {
  return filter(g, s, c, catalog);
}
std::string gpu_out_text(GpuOut why, const Gpu& g, const Scenario& s, const Constraints& c,
                         const Catalog& catalog) {
  return filter_text(why, g, s, c, catalog);
}
std::vector<const NumberFormat*> weight_formats(const Scenario& s, const Gpu& g,
                                                const Constraints& c, const Catalog& catalog) {
  return weight_levers(s, g, c, catalog);
}
std::string levers_in_words(const Scenario& t, const Scenario& base, const Gpu& g) {
  return lever_words(t, base, g);
}

}  // namespace gpusizer
