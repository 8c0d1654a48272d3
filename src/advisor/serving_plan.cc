// The fleet search for traffic (serving_plan.h). Replicas are independent engines behind a load
// balancer: the rate splits evenly over them (random splitting of a Poisson stream gives Poisson
// streams, so each replica sees the load model's traffic at rate / replicas), and the number of
// replicas is the traffic over the highest rate one replica carries within the SLO. For each GPU
// type and weights format the search keeps the layout and KV format that need the fewest GPUs,
// then prices and ranks the fleets.
#include "advisor/serving_plan.h"

#include "estimate/priced.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "advisor/candidates.h"
#include "advisor/explain.h"
#include "estimate/layout.h"
#include "estimate/priced.h"
#include "gpusizer/error.h"
#include "gpusizer/units.h"
#include "speed/serving_load.h"

namespace gpusizer {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kMaxReplicaGpus = 64;     // one replica past 64 GPUs: not a serving layout
constexpr int64_t kMaxFleetGpus = 1 << 20;  // the scenario's own gpu_count limit is 1e6
constexpr int kWiderLayouts = 2;            // widths tried past the narrowest that fits

struct Candidate {
  ScenarioEdit edit;  // the replica as an edit of the parsed scenario
  Scenario replica;   // one replica, dp 1, no traffic
  double rate = 0;    // highest rate within the SLO
  std::string bound;  // what bounds `rate` (serving_load.h bindings) or "min_tokens_per_s"
  int64_t replicas = 0, gpus = 0;
  double needed = 0, capacity = 0;
};

std::string plan_binding(const std::string& bound) {
  if (bound == "ttft" || bound == "tpot") return "slo";
  if (bound == "kv_cache") return "memory";
  return "throughput";
}

std::string layout_words(const Scenario& s) {
  std::string out = fmt::format("TP{}", s.parallel.tp);
  if (s.parallel.pp > 1) out += fmt::format(" x PP{}", s.parallel.pp);
  return out;
}

// Why a replica layout was not kept: what the search decides on; the text is for the rejected
// list.
enum class MissKind { kNone, kNoEstimate, kWeights, kMemory, kNoSetup, kSlo, kFleetCap };
struct Miss {
  MissKind kind = MissKind::kNone;
  std::string text;
};

// One replica of `width` GPUs of `g` with the formats: the layout rule splits it (dp 1).
ScenarioEdit replica_edit(const Scenario& want, const Gpu& g, int64_t width, const NumberFormat& wf,
                          const NumberFormat& kv) {
  ScenarioEdit e{.gpu = g.id, .gpu_count = width, .dp = 1, .default_split = true};
  if (wf.id != want.weights->id) e.weights = wf.id;
  e.kv_cache = kv.id;
  fp16_fallbacks(want, g, e);
  return e;
}

struct Search {
  const Scenario& want;  // the scenario with the SLO the plan must meet, as parsed
  const ScenarioGiven& given;
  const Catalog& catalog;
  const Constraints& c;
  double params = 0;

  // One replica of `width` GPUs of `g` with the formats; nullopt with `miss` set when it does not
  // fit or cannot meet the SLO.
  std::optional<Candidate> evaluate(const Gpu& g, int64_t width, const NumberFormat& wf,
                                    const NumberFormat& kv, Miss& miss) const {
    Candidate k;
    k.edit = replica_edit(want, g, width, wf, kv);
    Scenario& t = k.replica;
    try {
      t = candidate(want, given, k.edit, catalog);  // the one layout rule, for `width` GPUs
    } catch (const InputError&) {
      return std::nullopt;
    }
    t.traffic.reset();  // the replica's own figures; the load model runs below
    if (t.replica_gpus() != width) return std::nullopt;
    const double usable = g.capacity_bytes() * (1.0 - c.headroom);
    if (params * t.weights->bytes_per_value() / static_cast<double>(width) > usable) {
      miss = {MissKind::kWeights,
              fmt::format("weights alone exceed {:.0f} GB per GPU at {} GPUs per replica",
                          usable / kGB, width)};
      return std::nullopt;
    }
    const Estimate e = estimate(t, catalog, Detail::kFigures);
    if (!e.memory.capacity) return std::nullopt;
    const MemoryFit fit = memory_fit(t, e, c.headroom);
    k.needed = fit.needed;
    k.capacity = fit.capacity;
    if (!fit.fits) {
      miss = {MissKind::kMemory,
              fmt::format("needs {:.1f} GB per GPU at {} GPUs per replica; {:.0f} GB usable",
                          k.needed / kGB, width, k.capacity * (1.0 - c.headroom) / kGB)};
      return std::nullopt;
    }
    std::string why;
    const auto setup = inference_setup(t, catalog.speed(), why);
    if (!setup) {
      miss = {MissKind::kNoSetup, why};
      return std::nullopt;
    }
    ServingLoadInputs in = load_inputs(t, *setup, e.memory);
    in.traffic = *want.traffic;
    in.slo = want.slo;
    in.replicas = 1;
    double capacity = 0;
    k.rate = max_rate_per_replica(in, &k.bound, &capacity);
    if (k.rate <= 0) {
      miss = {
          MissKind::kSlo,
          fmt::format("one replica of {} misses the p{} {} SLO even with no other request",
                      layout_words(t), want.slo.percentile, k.bound == "ttft" ? "TTFT" : "TPOT")};
      return std::nullopt;
    }
    const double rate = want.traffic->requests_per_s;
    k.replicas = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(rate / k.rate - 1e-9)));
    // A throughput floor on top of the traffic: output tokens/s the replicas sustain at their
    // capacity under the load model (the same model that counts them for the rate).
    const double out_per_replica = capacity * want.traffic->output_len;
    if (c.min_tokens_per_s && out_per_replica > 0) {
      const auto floor_replicas =
          static_cast<int64_t>(std::ceil(*c.min_tokens_per_s / out_per_replica - 1e-9));
      if (floor_replicas > k.replicas) {
        k.replicas = floor_replicas;
        k.bound = "min_tokens_per_s";
      }
    }
    k.gpus = k.replicas * width;
    const int64_t cap = c.max_gpus > 0 ? c.max_gpus : kMaxFleetGpus;
    if (k.gpus > cap) {
      miss = {MissKind::kFleetCap,
              fmt::format("{} replicas of {} ({} GPUs) needed for {:g} requests/s, over {} GPUs",
                          k.replicas, layout_words(t), k.gpus, rate, cap)};
      return std::nullopt;
    }
    return k;
  }

  // The best replica for a GPU and weights format: KV formats x widths, fewest GPUs first.
  std::optional<Candidate> best_for(const Gpu& g, const NumberFormat& wf, std::string& miss) const {
    std::vector<const NumberFormat*> kvs = {want.kv_cache.get()};
    // An fp8 KV cache only where the engine stores one (engines.json fp8_kv_cache: vLLM, SGLang
    // --kv-cache-dtype fp8; not llama.cpp, whose --cache-type-k/v offer f16 and the ggml
    // block types, no fp8).
    if (c.allow_quantization && want.kv_cache->bits_per_value > 8 &&
        catalog.engine(want.engine).fp8_kv_cache)
      kvs.push_back(&catalog.format("fp8", "kv", "kv_cache"));
    std::optional<Candidate> best;
    for (const NumberFormat* kv : kvs) {
      int wider = -1;  // -1 until a width fits; then the widths tried past it
      for (int64_t w = 1; w <= kMaxReplicaGpus && wider < kWiderLayouts; w *= 2) {
        // Past one node's fast-link domain only while nothing fits inside it.
        if (w > want.gpus_per_node && wider >= 0) break;
        if (w > 1 && g.segment == "apple-soc") break;  // one SoC per machine
        Miss why;
        auto k = evaluate(g, w, wf, *kv, why);
        const bool fits = k || why.kind == MissKind::kSlo;  // too slow still fits
        if (wider >= 0)
          ++wider;
        else if (fits)
          wider = 0;
        if (!why.text.empty()) miss = why.text;
        if (k && (!best || k->gpus < best->gpus)) best = std::move(k);
      }
    }
    return best;
  }
};

}  // namespace

std::optional<double> fleet_usd_per_hour(const Option& o, const Constraints& c) {
  return explain::price_of(o, c, false).per_hour;
}

namespace {

// The replicas' plan and its money: the fleet is paid for every hour, busy or not, so its price
// is spread over the requests it serves.
TrafficPlan traffic_plan(const Candidate& k, const Option& o, const Constraints& c, double rate,
                         double out_len) {
  TrafficPlan plan;
  plan.replicas = k.replicas;
  plan.rate_per_replica = k.rate;
  plan.binding = plan_binding(k.bound);
  plan.fleet_usd_per_hour = fleet_usd_per_hour(o, c);
  if (plan.fleet_usd_per_hour) {
    plan.usd_per_million_requests = *plan.fleet_usd_per_hour / (rate * 3600.0) * 1e6;
    plan.usd_per_million_output_tokens = *plan.fleet_usd_per_hour / (rate * out_len * 3600.0) * 1e6;
  }
  return plan;
}

// The first reason: how the replicas carry the rate at the percentile, and what binds one.
void add_traffic_reason(Option& o, const Candidate& k, double rate, int pct) {
  const PerformanceEstimate* p = o.estimate.performance ? &*o.estimate.performance : nullptr;
  if (!p || !p->load_ttft_ms || !p->load_tpot_ms) return;
  const Scenario& fleet = o.scenario;
  o.reasons.insert(
      o.reasons.begin(),
      fmt::format("{} replica{} of {} ({} GPU{} each) carry {:g} requests/s at p{} TTFT "
                  "{:.0f} ms, TPOT {:.1f} ms; one replica carries up to {:.3g} requests/s "
                  "({} binds)",
                  k.replicas, k.replicas > 1 ? "s" : "", layout_words(fleet), fleet.replica_gpus(),
                  fleet.replica_gpus() > 1 ? "s" : "", rate, pct, *p->load_ttft_ms,
                  *p->load_tpot_ms, k.rate,
                  k.bound == "ttft"   ? "p" + std::to_string(pct) + " TTFT"
                  : k.bound == "tpot" ? "p" + std::to_string(pct) + " TPOT"
                                      : k.bound));
}

// The objective over the traffic: money per request served, latency of a request at the
// percentile, or energy per request.
void set_traffic_objective(Option& o, const TrafficPlan& plan, const Constraints& c, double rate,
                           double out_len, int pct) {
  const PerformanceEstimate* p = o.estimate.performance ? &*o.estimate.performance : nullptr;
  switch (c.objective) {
    case Objective::kCost:
      o.objective_value = plan.usd_per_million_requests.value_or(kInf);
      o.objective_basis = plan.usd_per_million_requests
                              ? "USD per million requests at " + fmt::format("{:g}", rate) +
                                    " requests/s (" + explain::price_of(o, c).label + ")"
                              : "no price in the catalog";
      break;
    case Objective::kSpeed:
      o.objective_value = p && p->load_ttft_ms && p->load_tpot_ms
                              ? *p->load_ttft_ms + (out_len - 1.0) * *p->load_tpot_ms
                              : kInf;
      o.objective_basis = fmt::format("p{} request latency in ms (TTFT + output x TPOT)", pct);
      break;
    case Objective::kPower:
      o.objective_value =
          o.estimate.power.fleet_watts ? *o.estimate.power.fleet_watts / rate : kInf;
      o.objective_basis = "joules per request at the fleet's peak draw";
      break;
  }
}

// What each option found (by index in the options) needs to be explained.
struct Found {
  Candidate k;
  std::string levers;
};

// The best `limit` options (explain::finish_options) are estimated in full, described, given
// their traffic plan, reason and objective, then scored.
void finish(Recommendation& r, const std::vector<Found>& found, const Scenario& base,
            const Scenario& want, const Constraints& checks, const Catalog& catalog) {
  const Constraints& c = r.constraints;
  const double rate = want.traffic->requests_per_s;
  const double out_len = want.traffic->output_len;
  explain::finish_options(r, [&](Option& o, size_t i) {
    o.estimate = estimate(o.scenario, catalog);
    explain::describe(o, base, checks, catalog, found[i].levers);
    const TrafficPlan plan = traffic_plan(found[i].k, o, c, rate, out_len);
    add_traffic_reason(o, found[i].k, rate, want.slo.percentile);
    set_traffic_objective(o, plan, c, rate, out_len, want.slo.percentile);
    o.binding = plan.binding;
    o.traffic_plan = plan;
  });
}

}  // namespace

void plan_serving(const Scenario& base, const ScenarioGiven& given, const Catalog& catalog,
                  Recommendation& r) {
  const Constraints& c = r.constraints;
  Scenario want = base;
  // max_ttft_ms with traffic is the TTFT service level, at the SLO's percentile.
  if (!want.slo.ttft_ms && c.max_ttft_ms) want.slo.ttft_ms = c.max_ttft_ms;
  Constraints checks = c;  // the SLO and the throughput floor are met by the replica count
  checks.max_ttft_ms.reset();
  checks.min_tokens_per_s.reset();
  const Search search{want, given, catalog, c,
                      static_cast<double>(count_params(*base.model).total)};
  const double rate = want.traffic->requests_per_s;
  const double out_len = want.traffic->output_len;
  std::vector<Found> found;  // by index in r.options
  for (const Gpu& g : catalog.gpus()) {
    const GpuOut out = gpu_out(g, want, c, catalog);
    if (out != GpuOut::kIn) {
      if (out != GpuOut::kNotAllowed)
        r.rejected.push_back({g.id, g.name + ": " + gpu_out_text(out, g, want, c, catalog)});
      continue;
    }
    std::string miss = "no layout could be estimated";
    const size_t before = r.options.size();
    for (const NumberFormat* wf : weight_formats(want, g, c, catalog)) {
      auto k = search.best_for(g, *wf, miss);
      if (!k) continue;
      // The fleet: the replica's split given, k->replicas of it, with the traffic.
      const Parallelism& p = k->replica.parallel;
      const Scenario fleet = candidate(
          want, given,
          merged(k->edit,
                 {.gpu_count = k->gpus, .tp = p.tp, .pp = p.pp, .dp = k->replicas, .ep = p.ep}),
          catalog);
      // The figures only (estimate/priced.h) to check and rank; finish() explains the ones
      // returned.
      Option o;
      o.scenario = fleet;
      o.estimate = estimate_priced(fleet, catalog);
      o.needed_bytes = k->needed;
      o.headroom = 1.0 - k->needed / k->capacity;
      if (const explain::Unmet unmet = explain::unmet(o, checks)) {
        miss = fmt::format("fits, but {}", unmet.text());
        continue;
      }
      const TrafficPlan plan = traffic_plan(*k, o, c, rate, out_len);
      set_traffic_objective(o, plan, c, rate, out_len, want.slo.percentile);
      found.push_back({*k, levers_in_words(fleet, base, g)});
      r.options.push_back(std::move(o));
    }
    if (r.options.size() == before) r.rejected.push_back({g.id, g.name + ": " + miss});
  }
  finish(r, found, base, want, checks, catalog);
}

}  // namespace gpusizer
