#include "estimate/bands.h"
#include "core/kept_texts.h"
#include "core/text_append.h"
#include "core/text_format.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gpusizer {
namespace {

// The banded figures, in the order their band lines are written.
constexpr std::string_view kFigures[] = {"decode_tokens_per_s",
                                         "tpot_ms",
                                         "prefill_tokens_per_s",
                                         "ttft_ms",
                                         "max_output_tokens_per_s",
                                         "offline_output_tokens_per_s",
                                         "offline_time_s",
                                         "train_tokens_per_s",
                                         "train_tokens_per_s_per_gpu",
                                         "tflops_per_gpu",
                                         "mfu",
                                         "step_time_s",
                                         "time_to_train_s"};
constexpr size_t kCount = std::size(kFigures);

// The position of `name` in kFigures, found at compile time.
constexpr size_t figure_index(std::string_view name) {
  size_t i = 0;
  while (i < kCount && kFigures[i] != name) ++i;
  return i;
}

// Each figure's member and kind, looked up by name once per process instead of twice per figure
// and estimate (issue 18), and the figures' positions in ascending name order, the order
// p.bands keeps: inserted in that order, each goes at the end without a search. name_rank is
// by_name inverted: a figure's place in that order.
struct BandedFigures {
  PerformanceFigure member[kCount];
  FigureKind kind[kCount];
  size_t by_name[kCount];
  size_t name_rank[kCount];
};

const BandedFigures& banded_figures() {
  static const BandedFigures figures = [] {
    BandedFigures f{};
    for (size_t i = 0; i < kCount; ++i) {
      f.member[i] = performance_member(kFigures[i]);
      f.kind[i] = figure_kind(kFigures[i]).value();  // every banded figure has a kind
      f.by_name[i] = i;
    }
    std::sort(f.by_name, f.by_name + kCount,
              [](size_t a, size_t b) { return kFigures[a] < kFigures[b]; });
    for (size_t r = 0; r < kCount; ++r) f.name_rank[f.by_name[r]] = r;
    return f;
  }();
  return figures;
}

// What a band's line is written from: its kind, engines, rate range and count (fields compared
// by value: a band elsewhere with the same fields has the same line; -0.0 and 0.0 errors write
// the same percentage).
struct KeptBand {
  std::string kind, engine;
  double low_error = 0, high_error = 0;
  int n = 0;
  bool matches(const SpeedBand& b) const {
    return n == b.n && low_error == b.low_error && high_error == b.high_error && kind == b.kind &&
           engine == b.engine;
  }
  void keep(const SpeedBand& b) {
    kind = b.kind;
    engine = b.engine;
    low_error = b.low_error;
    high_error = b.high_error;
    n = b.n;
  }
};

// The engines a band stands for, as its line names them: "all engines", "megatron", and for a
// mixture-of-experts model's band "MoE" (every engine's) or "megatron MoE".
std::string band_engine_text(std::string_view engine) {
  const bool moe = engine.ends_with("/moe");
  if (moe) engine.remove_suffix(4);
  const bool all = engine == "*";
  if (!moe) return all ? "all engines" : std::string(engine);
  return all ? "MoE" : std::string(engine) + " MoE";
}

// One band's line, kept per thread with its band's fields (core/kept_texts.h; issue 18: the two
// signed percentages and five pieces cost ~470 instructions a line, two or three lines an
// estimate, and a batch or a search estimates the same engines' kinds over and over).
void append_band_line(std::string& out, const SpeedBand& band) {
  thread_local KeptTexts<KeptBand, 8> kept;
  kept.append(out, band, [&band](std::string& text) {
    append_text(text, band.kind, " on ", band_engine_text(band.engine), ": measured rate ",
                Fixed{100 * (1 / (1 + band.high_error) - 1), 0, true}, "% to ",
                Fixed{100 * (1 / (1 + band.low_error) - 1), 0, true},
                "% of the predicted (n=", band.n, ')');
  });
}

// The bands a "bands" text is written from, in the order their lines are written.
struct WrittenBands {
  const SpeedBand* const* bands;
  size_t count;
};

// What a whole "bands" text is written from: its bands' fields, in order (compared by value, as
// KeptBand compares one band).
struct KeptBandList {
  std::vector<KeptBand> bands;
  bool matches(const WrittenBands& w) const {
    if (bands.size() != w.count) return false;
    for (size_t k = 0; k < w.count; ++k)
      if (!bands[k].matches(*w.bands[k])) return false;
    return true;
  }
  void keep(const WrittenBands& w) {
    bands.resize(w.count);
    for (size_t k = 0; k < w.count; ++k) bands[k].keep(*w.bands[k]);
  }
};

// The "bands" basis: each band's line, written straight into the basis (issue 18: the lines
// were gathered in a string of their own and copied), taken back when the same line is already
// there (two bands of the same text). The whole text is kept per thread with its bands' fields
// (issue 18: its preamble and each line appended, and each line searched for in those before
// it, ~500 instructions an estimate, for the text of the same engine's kinds that a batch or a
// search writes over and over).
void write_band_lines(Basis& basis, const SpeedBand* const* written, size_t n_written,
                      double held_to_mfu, bool held_to_roofline) {
  thread_local KeptTexts<KeptBandList, 4> kept;
  basis.set_with("bands", [&](std::string& value) {
    kept.append(value, WrittenBands{written, n_written}, [&](std::string& out) {
      out.append(
          "measured value within [low, high] for about 90% of published measurements of the kind "
          "(outer rate errors of the check half, which the fit never saw; a distribution-free "
          "interval, data/speed_bands.json; times and costs take the inverse): ");
      const size_t first = out.size();
      for (size_t k = 0; k < n_written; ++k) {
        const SpeedBand* band = written[k];
        const size_t before = out.size();
        if (k > 0) out += "; ";
        const size_t start = out.size();
        append_band_line(out, *band);
        const std::string_view text = std::string_view(out).substr(start);
        // Shrinking back to `before` stays inside this value (the arena only grows past it).
        if (std::string_view(out).substr(first, before - first).find(text) !=
            std::string_view::npos)
          out.resize(before);
      }
    });
    if (held_to_mfu > 0)
      append_text(
          value, "; highs held to MFU ", Fixed{100 * held_to_mfu, 1},
          "%: the GPU's maximum achievable matmul rate (data/speed.json achievable_matmul)");
    if (held_to_roofline)
      value.append(
          "; serving highs held to the roofline: each phase's FLOPs at the GPU's peak rate or its "
          "bytes at its peak bandwidth, whichever binds");
  });
}

// The first and last training figures of kFigures: the ones an MFU ceiling holds.
constexpr size_t kFirstTraining = figure_index("train_tokens_per_s");
constexpr size_t kMfu = figure_index("mfu");
constexpr size_t kLastTraining = figure_index("time_to_train_s");
static_assert(kFirstTraining < kMfu && kMfu < kLastTraining && kLastTraining < kCount);

// Whether `room` holds a band: its rates reach 1 / (1 + low_error) x the predicted and its times
// (1 + low_error) x, past a room r when r x (1 + low_error) < 1, whatever the figure's value.
bool holds(double room, const SpeedBand& band) {
  return room > 0 && room * (1 + band.low_error) < 1;
}

// ceiling / mfu, at least 1: how many times faster the step's figures could be under an MFU
// `ceiling`; 0 without a ceiling or an MFU.
double mfu_headroom(const PerformanceEstimate& p, double ceiling) {
  return ceiling > 0 && p.mfu && *p.mfu > 0 ? std::max(1.0, ceiling / *p.mfu) : 0;
}

// How far a training step's measured rate can exceed the predicted under an MFU `ceiling`:
// ceiling / mfu (at least 1), however wide its class's measured errors (the mixture-of-experts
// band reaches 2.5 x); 0 when the band reaches no further (nothing to hold). The training
// figures share one band, whose rates reach 1 / (1 + low_error) x the predicted (band_of).
double mfu_room(const PerformanceEstimate& p, double ceiling, const SpeedBand* band) {
  const double room = mfu_headroom(p, ceiling);
  return band && holds(room, *band) ? room : 0;
}

// The serving phase whose roofline holds each figure (PerformanceEstimate::peak_room): 0 decode,
// 1 prefill, 2 a full wave; -1 for a figure none holds.
constexpr std::array<int8_t, kCount> kPhaseOf = [] {
  std::array<int8_t, kCount> phase{};
  phase.fill(-1);
  phase[figure_index("decode_tokens_per_s")] = phase[figure_index("tpot_ms")] = 0;
  phase[figure_index("prefill_tokens_per_s")] = phase[figure_index("ttft_ms")] = 1;
  phase[figure_index("max_output_tokens_per_s")] = 2;
  return phase;
}();

// How many times faster than predicted the hardware lets serving figure i go: its phase's room
// under the roofline; 0 for a figure it does not hold.
double serving_room(const PerformanceEstimate& p, size_t i) {
  switch (kPhaseOf[i]) {
    case 0:
      return p.peak_room.decode;
    case 1:
      return p.peak_room.prefill;
    case 2:
      return p.peak_room.wave;
    default:
      return 0;
  }
}

// The room of figure i: the training figures' `training_room`, the serving ones' phase's.
double room_of(const PerformanceEstimate& p, size_t i, double training_room) {
  return i >= kFirstTraining && i <= kLastTraining ? training_room : serving_room(p, i);
}

// Holds the banded figures to their rooms (held_to_room), the training figures to `mfu_room`.
void hold_to_rooms(const PerformanceEstimate& p, double mfu_room, std::pair<double, double>* banded,
                   uint32_t has) {
  const BandedFigures& figures = banded_figures();
  for (uint32_t left = has; left != 0; left &= left - 1) {
    const auto i = static_cast<size_t>(std::countr_zero(left));
    banded[i] =
        held_to_room(banded[i], *(p.*figures.member[i]), figures.kind[i], room_of(p, i, mfu_room));
  }
}

}  // namespace

std::pair<double, double> held_to_room(std::pair<double, double> band, double value,
                                       const FigureKind& kind, double room) {
  if (!(room > 0)) return band;
  if (kind.is_time)
    band.first = std::max(band.first, value / room);
  else
    band.second = std::min(band.second, value * room);
  return band;
}

double hardware_room(const PerformanceEstimate& p, std::string_view figure, double mfu_ceiling) {
  const size_t i = figure_index(figure);
  return i < kCount ? room_of(p, i, mfu_headroom(p, mfu_ceiling)) : 0;
}

void add_speed_bands(const Scenario& s, const SpeedBands& bands, PerformanceEstimate& p,
                     CostEstimate& cost_figures, Explanations* why, double mfu_ceiling) {
  const BandedFigures& figures = banded_figures();
  // Each figure's band (low, high), held where its bit in `has` is set: an array of optionals
  // was zeroed whole by GCC, and only the figures banded are read (issue 18).
  std::pair<double, double> banded[kCount];
  uint32_t has = 0;
  // The same bits by the figures' places in name order: the banded ones visited in that order
  // without testing the others (issue 18: a test for each of the 13 figures, 2-5 of them set).
  uint32_t has_by_name = 0;
  static_assert(kCount <= 32);
  // The bands already written: a band's line depends on the band alone, and most bands serve
  // several figures (decode rate and time per token), so each is formatted once. Only the first
  // n_written are read: not zeroed.
  const SpeedBand* written[kCount];
  size_t n_written = 0;
  // The figures come grouped by kind (kFigures' order): each kind's band is searched for once.
  std::string_view found_kind;
  const SpeedBand* found = nullptr;
  const SpeedBand* mfu_band = nullptr;  // the training band, when the MFU has one
  bool serving_held = false;            // a serving band passes its phase's roofline
  for (size_t i = 0; i < kCount; ++i) {
    const std::optional<double>& value = p.*figures.member[i];
    if (!value || !std::isfinite(*value) || *value <= 0) continue;
    // The kinds are views into one table: the same view is the same kind without a compare.
    const std::string_view kind = figures.kind[i].kind;
    const bool same_view = kind.data() == found_kind.data() && kind.size() == found_kind.size();
    if (found_kind.empty() || (!same_view && kind != found_kind)) {
      found_kind = kind;
      found = bands.find(found_kind, s.engine, s.model->is_moe());
    }
    const SpeedBand* band = found;
    if (!band) continue;
    if (i == kMfu) mfu_band = band;
    if (kPhaseOf[i] >= 0 && holds(serving_room(p, i), *band)) serving_held = true;
    banded[i] = band_of(*value, figures.kind[i], *band);
    has |= uint32_t{1} << i;
    has_by_name |= uint32_t{1} << figures.name_rank[i];
    if (!wants_basis(why) || std::find(written, written + n_written, band) != written + n_written)
      continue;
    written[n_written++] = band;
  }
  const double room = mfu_room(p, mfu_ceiling, mfu_band);
  if (serving_held || room > 0) hold_to_rooms(p, room, banded, has);
  for (uint32_t left = has_by_name; left != 0; left &= left - 1) {
    const size_t i = figures.by_name[std::countr_zero(left)];
    p.bands.set_static(kFigures[i], banded[i]);
  }
  // A cost per unit of work divides an hourly price by a throughput: the band of that throughput,
  // inverted (a time-like figure).
  constexpr size_t kTrainThroughput = figure_index("train_tokens_per_s");
  constexpr size_t kServeThroughput = figure_index("max_output_tokens_per_s");
  static_assert(kTrainThroughput < kCount && kServeThroughput < kCount);
  const size_t throughput = is_training(s.task) ? kTrainThroughput : kServeThroughput;
  if (has & (uint32_t{1} << throughput)) {
    const std::pair<double, double>& band = banded[throughput];
    const double value = *(p.*figures.member[throughput]);
    // In ascending name order, each put at the end without a search.
    using namespace std::string_view_literals;
    for (auto [name, cost] :
         {std::pair{"usd_per_million_requests"sv, cost_figures.usd_per_million_requests},
          std::pair{"usd_per_million_tokens"sv, cost_figures.usd_per_million_tokens},
          std::pair{"usd_per_run"sv, cost_figures.usd_per_run}}) {
      if (!cost) continue;
      cost_figures.bands.set_static(
          name, std::pair{*cost * value / band.second, *cost * value / band.first});
    }
  }
  if (n_written > 0)
    write_band_lines(why->basis, written, n_written, room > 0 ? mfu_ceiling : 0, serving_held);
}

}  // namespace gpusizer
