#include "estimate/bands.h"
#include "core/text_format.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpusizer {
namespace {

constexpr std::string_view kFigures[] = {"decode_tokens_per_s",
                                         "tpot_ms",
                                         "prefill_tokens_per_s",
                                         "ttft_ms",
                                         "max_output_tokens_per_s",
                                         "train_tokens_per_s",
                                         "train_tokens_per_s_per_gpu",
                                         "tflops_per_gpu",
                                         "mfu",
                                         "step_time_s",
                                         "time_to_train_s"};

}  // namespace

void add_speed_bands(const Scenario& s, const SpeedBands& bands, PerformanceEstimate& p,
                     CostEstimate& cost_figures, Explanations* why) {
  std::string used;
  // The bands already written: a band's line depends on the band alone, and most bands serve
  // several figures (decode rate and time per token), so each is formatted once.
  const SpeedBand* written[std::size(kFigures)] = {};
  size_t n_written = 0;
  for (std::string_view name : kFigures) {
    const auto* value = performance_figure(p, name);
    const auto kind = figure_kind(name);
    if (!value || !*value || !kind || !std::isfinite(**value) || **value <= 0) continue;
    const SpeedBand* band = bands.find(kind->kind, s.engine);
    if (!band) continue;
    p.bands[std::string(name)] = band_of(**value, *kind, *band);
    if (!wants_basis(why) || std::find(written, written + n_written, band) != written + n_written)
      continue;
    written[n_written++] = band;
    fmt::memory_buffer line;  // on the stack: no allocation per band
    format_text_to(
        line, FMT_COMPILE("{} on {}: measured rate {:+.0f}% to {:+.0f}% of the predicted (n={})"),
        band->kind,
        band->engine == "*" ? std::string_view("all engines") : std::string_view(band->engine),
        100 * (1 / (1 + band->high_error) - 1), 100 * (1 / (1 + band->low_error) - 1), band->n);
    const std::string_view text(line.data(), line.size());
    if (used.find(text) != std::string::npos) continue;
    if (used.empty())
      used.reserve(512);  // the lines of every band: one allocation
    else
      used += "; ";
    used += text;
  }
  // A cost per unit of work divides an hourly price by a throughput: the band of that throughput,
  // inverted (a time-like figure).
  const std::string_view throughput =
      is_training(s.task) ? "train_tokens_per_s" : "max_output_tokens_per_s";
  if (const auto it = p.bands.find(std::string(throughput)); it != p.bands.end()) {
    const auto* value = performance_figure(p, throughput);
    for (auto [name, cost] :
         {std::pair{"usd_per_million_tokens", cost_figures.usd_per_million_tokens},
          std::pair{"usd_per_million_requests", cost_figures.usd_per_million_requests},
          std::pair{"usd_per_run", cost_figures.usd_per_run}}) {
      if (!cost || !*value) continue;
      cost_figures.bands[name] = {*cost * **value / it->second.second,
                                  *cost * **value / it->second.first};
    }
  }
  if (!used.empty())
    why->basis.set_with("bands", [&used](std::string& out) {
      out.append(
          "measured value within [low, high] for about 90% of published measurements of the kind "
          "(outer rate errors of the calibration half, a distribution-free interval, "
          "data/speed_bands.json; times and costs take the inverse): ");
      out.append(used);
    });
}

}  // namespace gpusizer
