#include "advisor/training_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "advisor/candidates.h"
#include "advisor/explain.h"
#include "cost/run_cost.h"
#include "estimate/priced.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

// The run's total at the option's own price basis: the one its fleet_usd_per_hour shows
// (explain::price_of: cloud or on-prem by the deployment constraint, else the cheaper), not the
// cloud price the estimate starts from.
void price_run_as_the_fleet(Option& opt, const Constraints& c) {
  const explain::Price price = explain::price_of(opt, c, false);
  if (!price.per_hour || !opt.estimate.performance || !opt.estimate.performance->time_to_train_s)
    return;
  const bool on_prem = price.source == explain::Price::Source::kOnPrem;
  const RunCost run = price_training_run(opt.scenario, opt.estimate.performance,
                                         opt.estimate.ownership, opt.estimate.power,
                                         on_prem ? RunPriceBasis::kOnPrem : RunPriceBasis::kCloud);
  opt.estimate.cost.usd_total = run.usd_total;
  if (!run.basis.empty()) opt.estimate.basis.set("usd_total", run.basis);
}

}  // namespace

std::string layout_words(const Scenario& s) {
  std::vector<std::string> w;
  const Parallelism& p = s.parallel;
  if (p.tp > 1) w.push_back(fmt::format("TP={}", p.tp));
  if (p.pp > 1)
    w.push_back(p.pp_interleave > 1 ? fmt::format("PP={} (interleave {})", p.pp, p.pp_interleave)
                                    : fmt::format("PP={}", p.pp));
  if (p.cp > 1) w.push_back(fmt::format("CP={}", p.cp));
  if (p.ep > 1) w.push_back(fmt::format("EP={}", p.ep));
  w.push_back(fmt::format("DP={}", p.dp));
  if (p.sequence_parallel) w.emplace_back("sequence parallel");
  const TrainingOptions& t = s.training;
  if (t.zero_stage > 0) w.push_back(fmt::format("ZeRO-{}", t.zero_stage));
  if (t.recompute == Recompute::kFull) w.emplace_back("gradient checkpointing");
  if (t.recompute == Recompute::kSelective) w.emplace_back("selective recomputation");
  if (t.offload != Offload::kNone) w.push_back(to_string(t.offload) + " offloaded to the host");
  w.push_back(fmt::format("micro-batch {} x {} accumulation steps", s.batch, t.grad_accum));
  std::string out;
  for (size_t i = 0; i < w.size(); ++i) out += (i ? ", " : "") + w[i];
  return out;
}

namespace {

// The job on `n` GPUs of type `g` as an edit of the parsed scenario: the GPU, dp = n, and the
// 16-bit fallbacks of a GPU without BF16; the global batch grows with the count unless the
// request fixed it (derived again by edited()).
ScenarioEdit count_edit(const Scenario& base, const Gpu& g, int64_t n) {
  ScenarioEdit e{.gpu = g.id, .gpu_count = n, .default_split = true};
  fp16_fallbacks(base, g, e);
  return e;
}

// The search on one count. A fixed count: layouts of all its GPUs; only when none fits,
// layouts that leave some idle (5128 = 8 x 641 GPUs cannot split a global batch of 2520
// evenly). Offload is a lever only when allowed (or fixed by the scenario): it trades a large
// part of the step for memory (docs/speed.md, offload).
LayoutSearchResult search_count(const Scenario& t, bool fixed_count, const LayoutPins& pins,
                                const Constraints& c, const Catalog& catalog) {
  LayoutSearchOptions o;
  o.top_n = c.limit;
  o.headroom = c.headroom;
  o.pins = pins;
  if (!c.allow_offload && !o.pins.offload) o.pins.offload = Offload::kNone;
  o.allow_fewer_gpus = false;
  LayoutSearchResult res = search_training_layouts(t, catalog, catalog.speed(), o);
  if (fixed_count && res.top.empty()) {
    o.allow_fewer_gpus = true;
    res = search_training_layouts(t, catalog, catalog.speed(), o);
  }
  return res;
}

// Remembers the closest miss over the counts (the smallest memory over usable memory).
void note_closest_miss(TrainingPlan& plan, double& closest_ratio, const LayoutSearchResult& res,
                       const Scenario& t, const Constraints& c,
                       const std::function<Scenario(const TrainingLayout&)>& scenario_of) {
  if (!res.top.empty() || !res.closest || res.usable_bytes <= 0) return;
  const double ratio = res.closest_bytes / res.usable_bytes;
  if (closest_ratio >= 0 && ratio >= closest_ratio) return;
  closest_ratio = ratio;
  plan.estimated = true;
  plan.needed = res.closest_bytes;
  plan.capacity = res.usable_bytes / (1.0 - c.headroom);
  plan.count = t.gpu_count;
  plan.levers = layout_words(scenario_of(*res.closest));
}

// The step by part and the run's price and energy, in words.
void add_step_and_run_reasons(Option& opt) {
  const Estimate& e = opt.estimate;
  if (e.performance && !e.performance->step_breakdown_s.empty()) {
    std::string parts;
    for (const auto& [part, sec] : e.performance->step_breakdown_s)
      if (sec > 0) parts += fmt::format("{}{} {:.3g} s", parts.empty() ? "" : ", ", part, sec);
    opt.reasons.emplace_back("step time by part: " + parts);
  }
  if (e.cost.usd_total || e.power.run_kwh) {
    // Energy to three figures without an exponent, in kWh below a megawatt-hour (a fine-tuning
    // run of a day on one node is a few hundred kWh, which whole MWh wrote as 0).
    std::string energy;
    if (const auto kwh = e.power.run_kwh; kwh && *kwh > 0) {
      const bool mega = *kwh >= 1000.0;
      const double v = mega ? *kwh / 1000.0 : *kwh;
      const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(v))));
      energy = fmt::format(", {:.{}f} {}", v, decimals, mega ? "MWh" : "kWh");
    }
    opt.reasons.push_back(fmt::format(
        "the run: {}{}", e.cost.usd_total ? fmt::format("${:.0f}", *e.cost.usd_total) : "no price",
        energy));
  }
}

}  // namespace

void explain_training_option(Option& o, const LayoutNote& note, const Scenario& base,
                             const Constraints& c, const Catalog& catalog) {
  o.estimate = estimate(o.scenario, catalog);
  price_run_as_the_fleet(o, c);
  explain::describe(o, base, c, catalog, note.words);
  add_step_and_run_reasons(o);
  if (note.gpus < note.count)
    o.warnings.push_back(
        fmt::format("uses {} of the {} GPUs: no layout of all {} divides the global batch of {} "
                    "sequences ({} idle)",
                    note.gpus, note.count, note.count, o.scenario.training.global_batch,
                    note.count - note.gpus));
}

namespace {

// The job under each engine the planner may choose: the one the request names; else, for full
// fine-tuning and pre-training, the default (HF transformers with accelerate: data parallelism,
// ZeRO, a naive layer split) and each engine with tensor parallelism that trains the task on
// the GPU's vendor (engines.json training_levers: FSDP2 as torchtitan composes it, and
// Megatron-Core). Past one GPU's share of the model these are how such jobs are run: Llama 3
// 405B was pre-trained with TP 8, PP 16 and CP (Dubey et al. 2024, sec. 3.3.2), which the
// default's levers cannot express, so a 405B pre-training planned on them alone took ZeRO-3
// over 1,024 GPUs or a 64-stage naive pipeline (one stage busy at a time). LoRA and QLoRA stay
// on the default: their engines differ in little the model sees but the names.
std::vector<std::pair<Scenario, ScenarioGiven>> engine_bases(const Scenario& base,
                                                             const ScenarioGiven& given,
                                                             const Gpu& g, const Catalog& catalog) {
  std::vector<std::pair<Scenario, ScenarioGiven>> out{{base, given}};
  if (given.engine || (base.task != Task::kFull && base.task != Task::kPretrain)) return out;
  for (const EngineProfile& e : catalog.engines()) {
    if (e.name == base.engine || !e.training_levers.tp || !e.runs(task_name(base.task)) ||
        !e.runs_on(g.vendor) || (g.segment == "apple-soc" && !e.trains_on_apple))
      continue;
    Scenario b = base;
    b.engine = e.name;
    b.engine_version = e.releases.front().version;
    b.engine_defaulted = false;
    b.engine_basis = "chosen by recommend's layout search among the engines that train " +
                     std::string(task_name(base.task)) + " with tensor parallelism (" + e.name +
                     "), the request naming none";
    ScenarioGiven named = given;
    named.engine = named.engine_version = true;
    out.emplace_back(std::move(b), named);
  }
  return out;
}

// The same layout: every split, the ZeRO stage, recomputation, offload and micro-batch.
bool same_layout(const Scenario& a, const Scenario& b) {
  const Parallelism &p = a.parallel, &q = b.parallel;
  return p.tp == q.tp && p.pp == q.pp && p.pp_interleave == q.pp_interleave && p.dp == q.dp &&
         p.cp == q.cp && p.ep == q.ep && p.sequence_parallel == q.sequence_parallel &&
         a.training.zero_stage == b.training.zero_stage &&
         a.training.recompute == b.training.recompute && a.training.offload == b.training.offload &&
         a.batch == b.batch;
}

// Whether `opt` (under one of several engines) is worth listing beside the plan's options: not
// a naive pipeline (HF's layer split runs one stage at a time, so the same stages under an
// engine that pipelines micro-batches are faster at the same memory), and not a layout another
// engine runs better by the objective (that one replaced here, note and all). The remaining
// options differ in what the user would set, not only in the framework's name.
bool keep_beside(const Option& opt, const Catalog& catalog, TrainingPlan& plan,
                 const LayoutNote& note) {
  const Scenario& s = opt.scenario;
  if (s.parallel.pp > 1 && catalog.engine(s.engine).naive_pipeline) return false;
  for (size_t i = 0; i < plan.options.size(); ++i) {
    if (!same_layout(plan.options[i].scenario, s)) continue;
    if (explain::ranks_before(opt, plan.options[i])) {
      plan.options[i] = opt;
      plan.notes[i] = note;
    }
    return false;
  }
  return true;
}

// The layouts of the job `base` (under one engine) on `n` GPUs of `g` into `plan`.
void plan_count(const Scenario& base, const ScenarioGiven& given, const Gpu& g, int64_t n,
                bool fixed_count, const LayoutPins& pins, const Constraints& c,
                const Catalog& catalog, bool name_engine, TrainingPlan& plan,
                double& closest_ratio) {
  const ScenarioEdit at_count = count_edit(base, g, n);
  LayoutSearchResult res;
  Scenario t;
  try {
    t = candidate(base, given, at_count, catalog);
    res = search_count(t, fixed_count, pins, c, catalog);
  } catch (const InputError&) {
    return;  // a pinned field this count (or engine) cannot hold
  }
  // A layout the search found, as an edit of the parsed scenario.
  auto scenario_of = [&](const TrainingLayout& l) {
    return candidate(base, given, merged(at_count, layout_edit(l, t.training.global_batch)),
                     catalog);
  };
  note_closest_miss(plan, closest_ratio, res, t, c, scenario_of);
  for (const TrainingLayout& l : res.top) {
    Scenario ts;
    try {
      ts = scenario_of(l);
    } catch (const InputError&) {
      continue;  // not a layout the parser would take (none seen: the grid is the parser's)
    }
    // The figures only (estimate/priced.h): explain_training_option explains the options
    // recommend returns.
    Estimate e = estimate_priced(ts, catalog);
    if (!e.memory.capacity) continue;
    const double need = memory_needed(ts, e);
    const double cap = *e.memory.capacity;
    Option opt{ts, std::move(e), need, 1.0 - need / cap, 0, "", 0, {}, {}, "memory", {}};
    const std::string unmet = explain::unmet_constraint(opt, c);
    if (!unmet.empty()) {
      if (plan.constraint.empty()) {
        plan.constraint = unmet;
        plan.count = n;
      }
      continue;
    }
    explain::set_objective(opt, c);
    LayoutNote note{name_engine ? ts.engine + ", " + layout_words(ts) : layout_words(ts), l.gpus,
                    n};
    if (name_engine && !keep_beside(opt, catalog, plan, note)) continue;
    plan.options.push_back(std::move(opt));
    plan.notes.push_back(std::move(note));
  }
}

}  // namespace

TrainingPlan plan_training(const Scenario& base, const ScenarioGiven& given, const Gpu& g,
                           const std::vector<int64_t>& counts, bool fixed_count,
                           const LayoutPins& pins, const Constraints& c, int64_t speed_reach,
                           const Catalog& catalog) {
  TrainingPlan plan;
  double closest_ratio = -1;
  const auto engines = engine_bases(base, given, g, catalog);
  for (const int64_t n : counts) {
    for (const auto& [engine_base, engine_given] : engines)
      plan_count(engine_base, engine_given, g, n, fixed_count, pins, c, catalog, engines.size() > 1,
                 plan, closest_ratio);
    // As for the other tasks, the smallest count that fits and meets the constraints is the
    // system for this GPU; only the speed objective looks further (more GPUs, faster steps), up
    // to its reach.
    if (!plan.options.empty() && (c.objective != Objective::kSpeed || n >= speed_reach)) break;
  }
  return plan;
}

}  // namespace gpusizer
