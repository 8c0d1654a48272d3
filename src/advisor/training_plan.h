#pragma once
// recommend for training tasks (full, freeze, lora, qlora, pretrain): the layout search
// (training_layouts.h) on each allowed GPU count of one GPU type, each layout that fits
// estimated in full and described as an Option (contract v2, "Training layouts").
#include <string>
#include <vector>

#include "advisor/training_layouts.h"
#include "gpusizer/advisor.h"

namespace gpusizer {

/// What explaining one option of a TrainingPlan needs besides its figures.
struct LayoutNote {
  std::string words;  ///< layout_words of its scenario
  int64_t gpus = 0;   ///< GPUs the layout uses
  int64_t count = 0;  ///< GPUs of the system it was planned on
};

struct TrainingPlan {
  /// The layouts that fit and meet the constraints, with their figures only (the priced
  /// estimate, the objective set); explain_training_option makes one an explained option.
  std::vector<Option> options;
  std::vector<LayoutNote> notes;  ///< by index in options
  // The closest miss when nothing fits or meets the constraints.
  bool estimated = false;  ///< a memory estimate exists for the closest layout
  double needed = 0, capacity = 0;
  int64_t count = 0;
  std::string levers;      ///< the closest layout, in words
  std::string constraint;  ///< the first unmet constraint of a layout that fits
};

/// Options for `gpu` over `counts` (a fixed gpu_count: one count, and layouts may leave some of
/// its GPUs idle), each an edit of `base` (as parsed; `given` what its input fixed): the global
/// batch is the input's, else batch x grad_accum x the count. The smallest count with options
/// ends the search; under the speed objective, the counts up to `speed_reach` GPUs as well.
TrainingPlan plan_training(const Scenario& base, const ScenarioGiven& given, const Gpu& gpu,
                           const std::vector<int64_t>& counts, bool fixed_count,
                           const LayoutPins& pins, const Constraints& c, int64_t speed_reach,
                           const Catalog& catalog);

/// One of plan_training's options estimated in full and explained: the run priced as its fleet
/// is, the reasons, the step by part and the warning for idle GPUs.
void explain_training_option(Option& o, const LayoutNote& note, const Scenario& base,
                             const Constraints& c, const Catalog& catalog);

/// The layout in words: "TP=8, PP=7 (v=3), DP=90, SP, selective recompute, ZeRO-1, ...".
std::string layout_words(const Scenario& s);

}  // namespace gpusizer
