#pragma once
// How far published measurements fall from gpusizer's speed figures, so that every speed, time
// and cost figure can carry a band as memory does (issue 14, item 7). For each kind of figure
// (decode, prefill, throughput at load, training) and engine: the k-th smallest and k-th largest
// rate error (predicted rate / measured rate - 1), k = max(1, floor(0.05 (n + 1))), over the
// n rows of the check half of
// data/validation/throughput_cases.jsonl, whose errors are out of sample (the calibration fits
// the other half). `gpusizer validate --bands` derives the table; it is shipped as
// data/speed_bands.json (scripts/update_speed_bands.sh) and `validate` reports the share of
// each half inside its band, a check-half source against the bands drawn without it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// One kind of figure on one engine ("*": every engine, used when an engine has too few rows). A
/// training band of mixture-of-experts models carries "/moe" after its engine ("megatron/moe",
/// "*/moe"): their steps spread far wider than dense models' (docs/validation.md, session 32).
struct SpeedBand {
  std::string kind, engine;
  double low_error = 0, high_error = 0;  ///< outer order statistics of the rate error
  int n = 0;                             ///< check-half rows behind it
};

/// Which kind a figure is, and whether it is a time (lower is faster) or a rate.
struct FigureKind {
  std::string_view kind;
  bool is_time = false;
};

/// The kind of an estimate figure or a validation `compare` key; nullopt for figures without a
/// band (ratios such as MFU are rates of the training kind).
std::optional<FigureKind> figure_kind(std::string_view figure);

/// A figure's band: where the measured value lies, from the predicted value and the band's errors.
/// A rate r: [r / (1 + high), r / (1 + low)]; a time t: [t (1 + low), t (1 + high)].
std::pair<double, double> band_of(double value, const FigureKind& kind, const SpeedBand& band);

class SpeedBands {
 public:
  /// data/speed_bands.json is read by read_speed_bands and written by to_json (json/ folder).
  /// The band of `kind` on `engine`, else of `kind` on every engine; nullptr when there is none.
  /// `moe`: a mixture-of-experts model's, whose "/moe" bands come first where drawn.
  const SpeedBand* find(std::string_view kind, std::string_view engine, bool moe = false) const;
  const std::vector<SpeedBand>& bands() const { return bands_; }

  std::string source, date;
  std::vector<SpeedBand> bands_;
};

}  // namespace gpusizer
