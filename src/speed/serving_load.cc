// The serving load model (serving_load.h; docs/advisor.md "The load model").
//
// The operating point is parametrized by x, the mean number of requests that arrive during one
// engine step. Given x every quantity is explicit: the decode batch by Little's law, the step mix
// from Poisson arrivals per step, the step time from the roofline pass model, and the rate as
// x / step. The rate grows with x (a step's time is affine in its tokens with a positive
// intercept), so the rate for a given traffic, the capacity and the highest rate that meets a
// service level are found by bisection on x, with no inner fixed point.
#include "speed/serving_load.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "core/text_format.h"
#include "speed/model_costs.h"

namespace gpusizer {
namespace {

constexpr int kBisections = 40;  // x to 2^-40 of its range: far below any figure's precision

// Mixed step of continuous batching (vLLM V1 scheduler, vllm/v1/core/sched/scheduler.py
// schedule(): running requests get their one decode token first, waiting prompts fill the rest
// of max_num_batched_tokens, chunked when they do not fit; TensorRT-LLM's in-flight batching with
// chunked context packs steps the same way). One forward pass carries `batch` decode tokens at
// context `ctx` and `prefill` prompt tokens of prompts `prompt` long: weights are read once for
// both, FLOPs and activations scale with all the tokens, KV is read for the decodes and written
// for the prompt tokens. Pipeline stages split the step into micro-batches as decode_step does.
double mixed_step(const InferenceSetup& s, double batch, double ctx, double prefill,
                  double prompt) {
  const ModelCosts& c = s.costs;
  const double pp = static_cast<double>(s.pp);
  const double tokens = std::max(1.0, batch + prefill);
  const double m = s.engine.decode_pipelining ? std::clamp(batch, 1.0, pp) : 1.0;
  const double per = tokens / m;
  const double b = batch / m, p = prefill / m;
  const double flops = per * c.matmul_flops_per_token;
  const double attention =
      b * attention_flops_decode(c, ctx) + (p > 0 ? p * attention_flops_prefill(c, prompt) : 0.0);
  const double layers = static_cast<double>(c.full_layers + c.window_layers);
  const double scores = s.score_bytes > 0 ? (b * ctx + p * std::min(prompt, p) / 2.0) *
                                                static_cast<double>(c.heads) * layers
                                          : 0.0;
  const double other = b * (kv_bytes_per_sequence(c, ctx) + c.activation_bytes_per_token) +
                       p * (c.kv_bytes_per_token_layer * static_cast<double>(c.num_layers) +
                            c.activation_bytes_per_token);
  PassTime pass = stage_pass(s, per, flops, weight_bytes_read(c, per), other, attention, scores);
  add_logits(s, b + p / std::max(1.0, prompt), pass);
  return std::max(m, pp) * pass.total();
}

struct LoadModel {
  const ServingLoadInputs& in;
  const InferenceSetup& s;
  LengthDist prompt, output;
  double ctx = 0;           // time-average context of a decoding sequence
  double decode_steps = 0;  // mean decode steps per request after the first token
  double batch_cap = 0;     // running sequences the KV cache and max_num_seqs allow
  double budget = 0;
  double z = 0;
  std::string cap_limit;

  explicit LoadModel(const ServingLoadInputs& i)
      : in(i),
        s(*i.setup),
        prompt(length_dist(i.traffic.prompt_len, i.traffic.prompt_len_p90)),
        output(length_dist(i.traffic.output_len, i.traffic.output_len_p90)) {
    // A decoding sequence holds its prompt plus the tokens generated so far. Averaged over time,
    // a request is seen in proportion to its output length (the inspection paradox of renewal
    // theory; prompt and output lengths taken independent): E[P] + E[O^2] / (2 E[O]).
    ctx = prompt.mean + output.second_moment / (2.0 * std::max(1.0, output.mean));
    // The prefill step yields the first token; each further token is one decode step.
    decode_steps = std::max(0.0, output.mean - 1.0);
    budget = std::max(1.0, in.token_budget);
    batch_cap = std::max(1.0, in.max_seqs);  // lowered by the KV cache below, to 0 when none
    cap_limit = "max_num_seqs";
    if (in.kv_tokens >= 0) {
      // vLLM allocates KV blocks as tokens are produced (block manager), so a running sequence
      // holds ctx tokens on average; sequences beyond the pool are preempted, not served.
      const double by_kv = in.kv_tokens / std::max(1.0, ctx);
      if (by_kv < batch_cap) {
        batch_cap = by_kv;
        cap_limit = "kv_cache";
      }
    }
    z = z_of_percentile(in.slo.percentile);
  }

  double step(double batch, double prefill, double prompt_len) const {
    return in.time_scale * mixed_step(s, batch, ctx, prefill, prompt_len);
  }

  // Prefill time of one prompt of `len` tokens on a replica decoding `batch` sequences: the steps
  // that carry its chunks, each with the free budget or the whole remaining prompt.
  double prefill_time(double batch, double len) const {
    const double free = budget - batch;
    const double n = std::max(1.0, len / free);
    return n * step(batch, len / n, len);
  }

  // The operating point with x requests arriving per step, and whether it is sustainable.
  LoadPoint at_x(double x, bool percentiles = true) const {
    LoadPoint o;
    const double batch = x * decode_steps;  // Little's law: L = lambda x W, W = steps x t
    const double free = budget - batch;
    o.batch = batch;
    if (free <= 0) return o;
    // Steps that carry prompt tokens: with Poisson arrivals, a step sees at least one new prompt
    // with probability 1 - e^-x, and then x / (1 - e^-x) of them on average (zero-truncated
    // Poisson), packed into the step up to the free budget.
    double share = x > 1e-9 ? 1.0 - std::exp(-x) : x;
    double chunk = x > 1e-9 ? prompt.mean * x / share : prompt.mean;
    if (chunk > free) {
      chunk = free;
      share = x * prompt.mean / free;  // every prompt token still passes through a step
    }
    o.prefill_share = share;
    o.chunk_tokens = chunk;
    const double t_dec = step(batch, 0, 0);
    const double t_pre = step(batch, chunk, prompt.mean);
    const double t = share * t_pre + (1.0 - share) * t_dec;
    o.step_s = t;
    o.rate = x / t;
    // Prompts queue for the step budget: an M/G/1 queue whose server processes prompt tokens at
    // the full-budget rate r (Pollaczek-Khinchine: W = lambda E[S^2] / (2 (1 - rho)), Kleinrock
    // 1975, Queueing Systems vol. 1, sec. 5.5), with S = P / r.
    const double r = free / step(batch, free, prompt.mean);
    const double rho = o.rate * prompt.mean / r;
    o.prefill_load = rho;
    o.stable = batch <= batch_cap && share <= 1.0 && rho < 1.0;
    if (!o.stable || !percentiles) return o;
    const double wait = o.rate * prompt.second_moment / (r * r) / (2.0 * (1.0 - rho));
    // A new request first waits out the step in progress: its mean residual life
    // E[T^2] / (2 E[T]) over the mix of steps.
    const double residual = (share * t_pre * t_pre + (1.0 - share) * t_dec * t_dec) / (2.0 * t);
    o.ttft_mean_s = residual + wait + prefill_time(batch, prompt.mean);
    // Waiting-time tail: P(W > w) ~ rho exp(-rho w / E[W]) (exact for M/M/1, the usual
    // exponential approximation for M/G/1); the percentile's prompt is served after it. Adding
    // the two quantiles treats a long wait and a long prompt as coinciding: conservative.
    const double q = in.slo.percentile / 100.0;
    const double wait_q = rho > 1.0 - q && wait > 0 ? wait / rho * std::log(rho / (1.0 - q)) : 0;
    o.ttft_s = residual + wait_q + prefill_time(batch, prompt.at_z(z));
    // TPOT: a request's mean step time. The decode batch of an M/G/infinity system is Poisson
    // (Takacs 1962), so at the percentile it holds B + z sqrt(B) sequences; and of its
    // decode steps a Binomial share carries prompt chunks, which spreads the mean of short
    // outputs. The two deviations add in quadrature.
    o.tpot_mean_s = t;
    const double b_q = std::min(batch_cap, batch + z * std::sqrt(batch));
    const double t_q = share * step(b_q, chunk, prompt.mean) + (1.0 - share) * step(b_q, 0, 0);
    const double steps = std::max(1.0, decode_steps);
    const double dev_mix = z * (t_pre - t_dec) * std::sqrt(share * (1.0 - share) / steps);
    o.tpot_s = t + std::hypot(std::max(0.0, t_q - t), dev_mix);
    return o;
  }

  // The largest sustainable x: the batch cap, the budget or the prompt queue binds first.
  double x_max() const {
    double hi = decode_steps > 0 ? batch_cap / decode_steps : budget / std::max(1.0, prompt.mean);
    hi = std::min(hi, budget / std::max(1.0, prompt.mean + decode_steps));
    double lo = 0;
    if (at_x(hi, false).stable) return hi;
    for (int i = 0; i < kBisections; ++i) {
      const double mid = 0.5 * (lo + hi);
      (at_x(mid, false).stable ? lo : hi) = mid;
    }
    return lo;
  }

  std::string limit_at(double xm) const {
    if (decode_steps > 0 && xm * decode_steps >= batch_cap * (1.0 - 1e-6)) return cap_limit;
    return "token_budget";
  }

  bool meets(const LoadPoint& o) const {
    if (!o.stable) return false;
    if (in.slo.ttft_ms && o.ttft_s * 1e3 > *in.slo.ttft_ms) return false;
    if (in.slo.tpot_ms && o.tpot_s * 1e3 > *in.slo.tpot_ms) return false;
    return true;
  }

  std::string failing(const LoadPoint& o) const {
    if (!o.stable) return "capacity";
    if (in.slo.ttft_ms && o.ttft_s * 1e3 > *in.slo.ttft_ms) return "ttft";
    if (in.slo.tpot_ms && o.tpot_s * 1e3 > *in.slo.tpot_ms) return "tpot";
    return "";
  }

  // Highest x meeting the SLO in [0, xm], with what binds there.
  double x_slo(double xm, std::string& binding) const {
    const bool has_slo = in.slo.ttft_ms || in.slo.tpot_ms;
    if (!has_slo) {
      binding = limit_at(xm);
      return xm;
    }
    const double tiny = std::min(xm, 1e-6);
    const LoadPoint idle = at_x(tiny);
    if (!meets(idle)) {
      binding = failing(idle);
      return 0;
    }
    if (meets(at_x(xm))) {
      binding = limit_at(xm);
      return xm;
    }
    double lo = tiny, hi = xm;
    for (int i = 0; i < kBisections; ++i) {
      const double mid = 0.5 * (lo + hi);
      (meets(at_x(mid)) ? lo : hi) = mid;
    }
    binding = failing(at_x(hi));
    if (binding == "capacity" || binding.empty()) binding = limit_at(xm);
    return lo;
  }

  // x at which the replica receives `rate` (at most xm, which is sustainable), from below.
  double x_for_rate(double rate, double xm) const {
    double lo = 0, hi = xm;
    for (int i = 0; i < kBisections; ++i) {
      const double mid = 0.5 * (lo + hi);
      (at_x(mid, false).rate < rate ? lo : hi) = mid;
    }
    return lo;
  }
};

}  // namespace

double LengthDist::at_z(double z) const {
  if (sigma <= 0) return mean;
  return median * std::exp(sigma * z);
}

LengthDist length_dist(double mean, double p90) {
  LengthDist d;
  d.mean = std::max(1.0, mean);
  d.median = d.mean;
  d.second_moment = d.mean * d.mean;
  if (p90 <= d.mean) return d;
  // Lognormal with mean m e^(s^2/2) and p90 m e^(1.2816 s): s solves
  // s^2 / 2 - 1.2816 s + ln(p90 / mean) = 0 (the smaller root). The ratio p90 / mean of a
  // lognormal is at most e^(1.2816^2 / 2) = 2.273 (at s = 1.2816); beyond it s stays there and the
  // median is set by the p90, so the percentiles hold and the second moment keeps the mean.
  const double z90 = z_of_percentile(90);
  const double disc = z90 * z90 - 2.0 * std::log(p90 / d.mean);
  if (disc >= 0) {
    d.sigma = z90 - std::sqrt(disc);
  } else {
    d.sigma = z90;
    d.capped = true;
  }
  d.median = p90 / std::exp(z90 * d.sigma);
  d.second_moment = d.mean * d.mean * std::exp(d.sigma * d.sigma);  // E[L^2] = E[L]^2 e^(s^2)
  return d;
}

double z_of_percentile(int percentile) {
  // Standard-normal quantiles (Abramowitz & Stegun 1964, table 26.1).
  if (percentile >= 99) return 2.326348;
  if (percentile >= 90) return 1.281552;
  return 0.0;
}

ServingLoad serving_load(const ServingLoadInputs& in) {
  const LoadModel model(in);
  ServingLoad out;
  out.prompt = model.prompt;
  out.output = model.output;
  out.context = model.ctx;
  const double xm = model.x_max();
  out.at_capacity = model.at_x(xm);
  out.capacity_rate = out.at_capacity.rate;
  out.capacity_limit = model.limit_at(xm);
  out.max_rate = model.at_x(model.x_slo(xm, out.binding), false).rate;
  if (out.max_rate < 0 || !std::isfinite(out.max_rate)) out.max_rate = 0;
  const double rate = in.traffic.requests_per_s / std::max(1.0, in.replicas);
  if (rate <= out.capacity_rate) {
    out.at_rate = model.at_x(model.x_for_rate(rate, xm));
  } else {
    out.at_rate = out.at_capacity;  // overloaded: the engine runs full, the queue grows
    out.at_rate.stable = false;
    out.at_rate.rate = rate;
  }
  out.utilization = out.capacity_rate > 0 ? std::clamp(rate / out.capacity_rate, 0.0, 1.0) : 1.0;
  out.slo_met = out.at_rate.stable && model.meets(out.at_rate);
  return out;
}

double max_rate_per_replica(const ServingLoadInputs& in, std::string* binding, double* capacity) {
  const LoadModel model(in);
  std::string b;
  const double xm = model.x_max();
  const double x = model.x_slo(xm, b);
  if (binding) *binding = b;
  if (capacity) {
    const double c = model.at_x(xm, false).rate;
    *capacity = std::isfinite(c) ? c : 0.0;
  }
  const double r = x > 0 ? model.at_x(x, false).rate : 0.0;
  return std::isfinite(r) ? r : 0.0;
}

ServingLoadInputs load_inputs(const Scenario& sc, const InferenceSetup& s,
                              const MemoryEstimate& memory) {
  ServingLoadInputs in;
  in.setup = &s;
  if (memory.kv_cache_capacity_tokens)
    in.kv_tokens = static_cast<double>(*memory.kv_cache_capacity_tokens);
  else if (memory.max_batch)
    in.kv_tokens = static_cast<double>(*memory.max_batch) * static_cast<double>(sc.seq_len);
  in.max_seqs = s.engine.max_num_seqs;
  in.token_budget = sc.max_num_batched_tokens > 0 ? static_cast<double>(sc.max_num_batched_tokens)
                                                  : s.engine.prefill_chunk_tokens;
  if (sc.traffic) in.traffic = *sc.traffic;
  in.slo = sc.slo;
  in.replicas = static_cast<double>(std::max<int64_t>(1, s.replicas));
  return in;
}

namespace {

// The load figures of the whole fleet (PerformanceEstimate's load_*), from one replica's load.
struct FleetLoad {
  std::optional<double> ttft_ms, ttft_mean_ms;  // absent when overloaded
  double tpot_ms = 0, tpot_mean_ms = 0, max_requests_per_s = 0, capacity_requests_per_s = 0,
         output_tokens_per_s = 0;
};

FleetLoad fleet_load(const ServingLoadInputs& in, const ServingLoad& load) {
  const double n = in.replicas;
  const LoadPoint& p = load.at_rate;
  FleetLoad f;
  if (p.stable) {
    f.ttft_ms = p.ttft_s * 1e3;
    f.ttft_mean_ms = p.ttft_mean_s * 1e3;
  }
  f.tpot_ms = p.tpot_s * 1e3;
  f.tpot_mean_ms = p.tpot_mean_s * 1e3;
  f.max_requests_per_s = load.max_rate * n;
  f.capacity_requests_per_s = load.capacity_rate * n;
  f.output_tokens_per_s =
      std::min(in.traffic.requests_per_s, load.capacity_rate * n) * load.output.mean;
  return f;
}

// The load figures' bands: the load model run again with every step (1 + low_error) and
// (1 + high_error) times the roofline's, the edges of the engine's throughput band (a rate error
// e means the measured step took (1 + e) times the predicted one). Every figure is monotone in
// the step time, so the two runs bound it; a figure that one run leaves undefined (TTFT when the
// slower fleet is overloaded) gets no band.
void add_load_bands(const ServingLoadInputs& in, const SpeedBand& band, PerformanceEstimate& perf) {
  ServingLoadInputs faster = in, slower = in;
  faster.time_scale = 1 + band.low_error;
  slower.time_scale = 1 + band.high_error;
  if (!(faster.time_scale > 0) || !(slower.time_scale >= faster.time_scale)) return;
  const FleetLoad a = fleet_load(faster, serving_load(faster));
  const FleetLoad b = fleet_load(slower, serving_load(slower));
  auto put = [&perf](std::string_view name, double x, double y) {
    if (std::isfinite(x) && std::isfinite(y)) perf.bands.set_static(name, std::minmax(x, y));
  };
  if (a.ttft_ms && b.ttft_ms) {
    put("load_ttft_mean_ms", *a.ttft_mean_ms, *b.ttft_mean_ms);
    put("load_ttft_ms", *a.ttft_ms, *b.ttft_ms);
  }
  put("load_tpot_mean_ms", a.tpot_mean_ms, b.tpot_mean_ms);
  put("load_tpot_ms", a.tpot_ms, b.tpot_ms);
  put("load_output_tokens_per_s", a.output_tokens_per_s, b.output_tokens_per_s);
  put("load_capacity_requests_per_s", a.capacity_requests_per_s, b.capacity_requests_per_s);
  put("max_requests_per_s", a.max_requests_per_s, b.max_requests_per_s);
}

}  // namespace

namespace {
void explain_load(const Scenario& sc, const ServingLoadInputs& in, const ServingLoad& load,
                  const SpeedBand* band, const PerformanceEstimate& perf, Explanations& est);
}  // namespace

void estimate_load(const Scenario& sc, const InferenceSetup& s, const MemoryEstimate& memory,
                   const SpeedBand* band, Explanations* why, PerformanceEstimate& perf) {
  if (!sc.traffic) return;
  const ServingLoadInputs in = load_inputs(sc, s, memory);
  const ServingLoad load = serving_load(in);
  const FleetLoad fleet = fleet_load(in, load);
  perf.load_ttft_ms = fleet.ttft_ms;
  perf.load_ttft_mean_ms = fleet.ttft_mean_ms;
  perf.load_tpot_ms = fleet.tpot_ms;
  perf.load_tpot_mean_ms = fleet.tpot_mean_ms;
  perf.load_utilization = load.utilization;
  perf.max_requests_per_s = fleet.max_requests_per_s;
  perf.load_capacity_requests_per_s = fleet.capacity_requests_per_s;
  perf.load_output_tokens_per_s = fleet.output_tokens_per_s;
  perf.load_batch = load.at_rate.batch;
  perf.slo_met = load.slo_met;
  perf.load_binding = load.binding;
  if (band) add_load_bands(in, *band, perf);
  if (why) explain_load(sc, in, load, band, perf, *why);
}

namespace {

// The load figures' warnings (overload, a missed SLO, a clipped spread) and basis texts.
void explain_load(const Scenario& sc, const ServingLoadInputs& in, const ServingLoad& load,
                  const SpeedBand* band, const PerformanceEstimate& perf, Explanations& est) {
  const InferenceSetup& s = *in.setup;
  const double n = in.replicas;
  const LoadPoint& p = load.at_rate;
  const int pct = sc.slo.percentile;
  if (!p.stable)
    est.warnings.push_back(fmt::format(
        "overloaded: {:g} requests/s exceed the fleet's capacity of {:.3g} ({:g} replica{} "
        "limited by {}); queues grow without bound, so no TTFT is given",
        in.traffic.requests_per_s, load.capacity_rate * n, n, n > 1 ? "s" : "",
        load.capacity_limit));
  else if (!load.slo_met)
    est.warnings.push_back(fmt::format(
        "the SLO is missed at {:g} requests/s: p{} TTFT {:.0f} ms, TPOT {:.1f} ms; the fleet "
        "meets it up to {:.3g} requests/s ({} binds)",
        in.traffic.requests_per_s, pct, p.ttft_s * 1e3, p.tpot_s * 1e3, load.max_rate * n,
        load.binding));
  if (load.prompt.capped || load.output.capped)
    est.warnings.emplace_back(
        "traffic: a p90 over 2.27 x the mean is wider than any lognormal with that mean; the "
        "percentiles keep the p90, the spread is taken at its widest lognormal");
  if (!s.engine.decode_pipelining || s.engine.prefill_chunk_tokens > 1e8)
    est.warnings.emplace_back(
        "the load model assumes continuous batching (vLLM, SGLang, TensorRT-LLM); " + sc.engine +
        " batches requests differently, so the load figures are optimistic");
  est.basis.set_with("load_batch", [&](std::string& out) {
    out.append(
        "Little's law per replica: running sequences = rate x (output_len - 1) x step; KV cap ");
    if (in.kv_tokens >= 0)
      format_text_to(out, FMT_COMPILE("{:.0f} sequences"), in.kv_tokens / load.context);
    else
      out.append("not known");
    format_text_to(
        out,
        FMT_COMPILE(
            " at a mean context of {:.0f} tokens (E[P] + E[O^2] / 2E[O]), max_num_seqs {:g}"),
        load.context, in.max_seqs);
  });
  set_text(
      est.basis, "load_tpot_ms",
      FMT_COMPILE(
          "mean engine step at the load: decode-only steps and steps carrying {:.0f} prompt tokens "
          "({:.0f}% of steps; Poisson arrivals per step, budget {:g} tokens), roofline pass time; "
          "p{}: Poisson batch B + z sqrt(B) and the spread of the step mix"),
      p.chunk_tokens, p.prefill_share * 100, in.token_budget, pct);
  set_text(
      est.basis, "load_ttft_ms",
      FMT_COMPILE(
          "residual of the step in progress + prompt queueing (M/G/1, Pollaczek-Khinchine; "
          "exponential tail for p{}) at a prompt-budget load of {:.2f} + prefill of the p{} prompt "
          "({:.0f} tokens)"),
      pct, p.prefill_load, pct, load.prompt.at_z(z_of_percentile(pct)));
  set_text(est.basis, "max_requests_per_s",
           FMT_COMPILE("highest rate meeting the SLO (bisection), x {:g} replicas; bound by {}; "
                       "capacity {:.3g} requests/s ({})"),
           n, load.binding, load.capacity_rate * n, load.capacity_limit);
  if (band && perf.bands.contains("load_tpot_ms"))
    set_text(
        est.basis, "load_bands",
        FMT_COMPILE("the load figures' bands: the load model again with every engine step "
                    "x {:.2f} and x {:.2f}, the edges of the {} band on {} (data/"
                    "speed_bands.json); no TTFT band where the slower fleet is overloaded"),
        1 + band->low_error, 1 + band->high_error, band->kind,
        band->engine == "*" ? std::string_view("all engines") : std::string_view(band->engine));
}

}  // namespace

}  // namespace gpusizer
