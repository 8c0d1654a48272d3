// The fleet search for traffic (serving_plan.h). Replicas are independent engines behind a load
// balancer: the rate splits evenly over them (random splitting of a Poisson stream gives Poisson
// streams, so each replica sees the load model's traffic at rate / replicas), and the number of
// replicas is the traffic over the highest rate one replica carries within the SLO. For each GPU
// type and weights format the search keeps the layout and KV format that need the fewest GPUs,
// then prices and ranks the fleets.
#include "advisor/serving_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "advisor/explain.h"
#include "estimate/layout.h"
#include "gpusizer/units.h"
#include "speed/serving_load.h"

namespace gpusizer {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kMaxReplicaGpus = 64;     // one replica past 64 GPUs: not a serving layout
constexpr int64_t kMaxFleetGpus = 1 << 20;  // the scenario's own gpu_count limit is 1e6
constexpr int kWiderLayouts = 2;            // widths tried past the narrowest that fits

struct Candidate {
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

struct Search {
  const Scenario& want;  // the scenario with the SLO the plan must meet
  const Catalog& catalog;
  const Constraints& c;
  double params = 0;

  // One replica of `width` GPUs of `g` with the formats; nullopt with `miss` set when it does not
  // fit or cannot meet the SLO.
  std::optional<Candidate> evaluate(const Gpu& g, int64_t width, const NumberFormat& wf,
                                    const NumberFormat& kv, std::string& miss) const {
    Candidate k;
    Scenario& t = k.replica;
    t = want;
    t.traffic.reset();  // the replica's own figures; the load model runs below
    t.gpu = g;
    t.gpu_count = width;
    t.parallel = Parallelism{};
    t.weights = wf;
    t.kv_cache = kv;
    if (t.kv_cache.id == "bf16" && t.weights.id == "fp16")
      t.kv_cache = catalog.format("fp16", "kv", "kv_cache");
    t.requested_replicas = 1;
    choose_serving_layout(t, catalog);  // the one layout rule, for a replica of `width` GPUs
    if (t.replica_gpus() != width) return std::nullopt;
    const double usable = g.capacity_bytes() * (1.0 - c.headroom);
    if (params * t.weights.bytes_per_value() / static_cast<double>(width) > usable) {
      miss = fmt::format("weights alone exceed {:.0f} GB per GPU at {} GPUs per replica",
                         usable / kGB, width);
      return std::nullopt;
    }
    const Estimate e = estimate(t, catalog, Detail::kFigures);
    if (!e.memory.capacity) return std::nullopt;
    k.needed = memory_needed(t, e);
    k.capacity = *e.memory.capacity;
    if (!e.memory.fits.value_or(false) || k.needed > k.capacity * (1.0 - c.headroom)) {
      miss = fmt::format("needs {:.1f} GB per GPU at {} GPUs per replica; {:.0f} GB usable",
                         k.needed / kGB, width, k.capacity * (1.0 - c.headroom) / kGB);
      return std::nullopt;
    }
    std::string why;
    const auto setup = inference_setup(t, catalog.speed(), why);
    if (!setup) {
      miss = why;
      return std::nullopt;
    }
    ServingLoadInputs in = load_inputs(t, *setup, e.memory);
    in.traffic = *want.traffic;
    in.slo = want.slo;
    in.replicas = 1;
    double capacity = 0;
    k.rate = max_rate_per_replica(in, &k.bound, &capacity);
    if (k.rate <= 0) {
      miss = fmt::format("one replica of {} misses the p{} {} SLO even with no other request",
                         layout_words(t), want.slo.percentile, k.bound == "ttft" ? "TTFT" : "TPOT");
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
      miss = fmt::format("{} replicas of {} ({} GPUs) needed for {:g} requests/s, over {} GPUs",
                         k.replicas, layout_words(t), k.gpus, rate, cap);
      return std::nullopt;
    }
    return k;
  }

  // The best replica for a GPU and weights format: KV formats x widths, fewest GPUs first.
  std::optional<Candidate> best_for(const Gpu& g, const NumberFormat& wf, std::string& miss) const {
    std::vector<const NumberFormat*> kvs = {&want.kv_cache};
    if (c.allow_quantization && want.kv_cache.bits_per_value > 8 && want.engine != "llama.cpp")
      kvs.push_back(&catalog.format("fp8", "kv", "kv_cache"));
    std::optional<Candidate> best;
    for (const NumberFormat* kv : kvs) {
      int wider = -1;  // -1 until a width fits; then the widths tried past it
      for (int64_t w = 1; w <= kMaxReplicaGpus && wider < kWiderLayouts; w *= 2) {
        // Past one node's fast-link domain only while nothing fits inside it.
        if (w > want.gpus_per_node && wider >= 0) break;
        if (w > 1 && g.segment == "apple-soc") break;  // one SoC per machine
        std::string why;
        auto k = evaluate(g, w, wf, *kv, why);
        const bool fits = k || why.find("SLO") != std::string::npos;  // too slow still fits
        if (wider >= 0)
          ++wider;
        else if (fits)
          wider = 0;
        if (!why.empty()) miss = why;
        if (k && (!best || k->gpus < best->gpus)) best = std::move(k);
      }
    }
    return best;
  }
};

}  // namespace

std::optional<double> fleet_usd_per_hour(const Option& o, const Constraints& c) {
  return explain::price_of(o, c).per_hour;
}

void plan_serving(const nlohmann::json& /*scenario_json*/, const Scenario& base,
                  const Catalog& catalog, Recommendation& r) {
  const Constraints& c = r.constraints;
  Scenario want = base;
  // max_ttft_ms with traffic is the TTFT service level, at the SLO's percentile.
  if (!want.slo.ttft_ms && c.max_ttft_ms) want.slo.ttft_ms = c.max_ttft_ms;
  Constraints checks = c;  // the SLO and the throughput floor are met by the replica count
  checks.max_ttft_ms.reset();
  checks.min_tokens_per_s.reset();
  const Search search{want, catalog, c, static_cast<double>(count_params(base.model).total)};
  const double rate = want.traffic->requests_per_s;
  const double out_len = want.traffic->output_len;

  for (const Gpu& g : catalog.gpus()) {
    const std::string out = gpu_rejection(g, want, c, catalog);
    if (!out.empty()) {
      if (out != "not in the allowed list") r.rejected.push_back({g.id, g.name + ": " + out});
      continue;
    }
    std::string miss = "no layout could be estimated";
    const size_t before = r.options.size();
    for (const NumberFormat* wf : weight_formats(want, g, c, catalog)) {
      auto k = search.best_for(g, *wf, miss);
      if (!k) continue;
      Scenario fleet = k->replica;
      fleet.traffic = want.traffic;
      fleet.slo = want.slo;
      fleet.parallel.dp = k->replicas;
      fleet.gpu_count = k->gpus;
      Estimate e = estimate(fleet, catalog);
      Option o{fleet, std::move(e), k->needed, 1.0 - k->needed / k->capacity, 0, "", 0, {},
               {},    "none",       {}};
      const std::string unmet = explain::unmet_constraint(o, checks);
      if (!unmet.empty()) {
        miss = fmt::format("fits, but {}", unmet);
        continue;
      }
      explain::describe(o, base, checks, catalog, levers_in_words(fleet, base, g));
      TrafficPlan plan;
      plan.replicas = k->replicas;
      plan.rate_per_replica = k->rate;
      plan.binding = plan_binding(k->bound);
      plan.fleet_usd_per_hour = fleet_usd_per_hour(o, c);
      if (plan.fleet_usd_per_hour) {
        // The fleet is paid for every hour, busy or not: its price over the requests it serves.
        plan.usd_per_million_requests = *plan.fleet_usd_per_hour / (rate * 3600.0) * 1e6;
        plan.usd_per_million_output_tokens =
            *plan.fleet_usd_per_hour / (rate * out_len * 3600.0) * 1e6;
      }
      const PerformanceEstimate* p = o.estimate.performance ? &*o.estimate.performance : nullptr;
      const int pct = want.slo.percentile;
      if (p && p->load_ttft_ms && p->load_tpot_ms)
        o.reasons.insert(
            o.reasons.begin(),
            fmt::format("{} replica{} of {} ({} GPU{} each) carry {:g} requests/s at p{} TTFT "
                        "{:.0f} ms, TPOT {:.1f} ms; one replica carries up to {:.3g} requests/s "
                        "({} binds)",
                        k->replicas, k->replicas > 1 ? "s" : "", layout_words(fleet),
                        fleet.replica_gpus(), fleet.replica_gpus() > 1 ? "s" : "", rate, pct,
                        *p->load_ttft_ms, *p->load_tpot_ms, k->rate,
                        k->bound == "ttft"   ? "p" + std::to_string(pct) + " TTFT"
                        : k->bound == "tpot" ? "p" + std::to_string(pct) + " TPOT"
                                             : k->bound));
      // The objective over the traffic: money per request served, latency of a request at the
      // percentile, or energy per request.
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
      o.binding = plan.binding;
      o.traffic_plan = plan;
      r.options.push_back(std::move(o));
    }
    if (r.options.size() == before) r.rejected.push_back({g.id, g.name + ": " + miss});
  }
  explain::rank(r.options, c);
  if (static_cast<int64_t>(r.options.size()) > c.limit)
    r.options.resize(static_cast<size_t>(c.limit));
}

}  // namespace gpusizer
