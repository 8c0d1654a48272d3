#pragma once
// The figures a search ranks candidates on: what estimate() computes (memory, speed, power,
// ownership and cost) with no text: no basis strings, speed bands or warnings (issue 18). The
// numbers are those of estimate(s, catalog): the same estimators, with a null explanations sink.
#include <optional>

#include "gpusizer/estimate.h"
#include "gpusizer/explanations.h"
#include "memory/memory_parts.h"
#include "memory/model_counts.h"
#include "memory/parts_memo.h"

namespace gpusizer {

struct ModuleSumsMemo;  // speed/training_speed.h

/// estimate(s, catalog) without basis, bands or warnings: the figures to rank and check
/// constraints on, for searches that explain only the options they return.
Estimate estimate_priced(const Scenario& s, const Catalog& catalog);

/// What an explained estimate makes for a setup whose memory does not fit (a GPU given): all of
/// it (kMade), or not what an answer leaves out of it (kSkipped): an answer writes no cost and no
/// performance for such a setup (gpusizer/fit_verdict.h), so the ownership (its rent and on-prem
/// figures and its texts) and the cost figures, the training step's split by part and the speed
/// and cost figures' bands are not made (issue 18); of the cost stage only the run's energy is,
/// which the answer writes in its power. The speed figures and the estimate's own basis texts
/// are made either way (the answer writes the texts, and the change search reads the figures).
enum class UnfitExtras { kMade, kSkipped };

/// estimate(s, catalog, detail) for Detail::kFull or kNoBasis, with the model already counted
/// (`counts` = count_model(s)) and the training step's sums and rates kept in `memo`
/// (speed/training_speed.h): the answer that searches what to change next starts the search
/// with both, so its candidates of the base's task do not count the model or make those figures
/// again (issue 18). The figures are estimate()'s, and so are the texts, but for what
/// UnfitExtras::kSkipped leaves out; `counts` and `memo` must outlive the search.
Estimate estimate(const Scenario& s, const Catalog& catalog, Detail detail,
                  const ModelCounts& counts, ModuleSumsMemo& memo,
                  UnfitExtras unfit_extras = UnfitExtras::kMade);

/// An estimate in stages, the one way estimate(), estimate_priced and the searches assemble
/// one: the model is counted, the engine's rules looked up and the memory estimated once; speed,
/// or power, speed and cost, are added after. A search that prunes its candidates by memory
/// adds the rest only to those it keeps (issue 18). Each stage's figures are those of
/// estimate(s, catalog, Detail::kMemory), Detail::kFigures and estimate_priced.
class StagedEstimate {
 public:
  /// The memory stage, into `e`; with `why`, the estimators' basis and warnings go there.
  /// `s`, `catalog`, `e` and `why` must outlive this object.
  StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e,
                 Explanations* why = nullptr);
  /// The same with the model already counted: `counts` is count_model(s) (a search whose
  /// candidates keep the model and its training options counts it once per task), and must
  /// outlive this object.
  StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e, const ModelCounts& counts,
                 Explanations* why = nullptr);
  /// The same for one of a search's candidates: the memory parts an earlier candidate had with
  /// the same fields are taken from `memo` (memory/parts_memo.h), which must outlive this object.
  /// e.model_id is left as it is (the candidates' model is the search's base's).
  StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e, const ModelCounts& counts,
                 memory::PartsMemo& memo);
  /// The same with the engine's rules already looked up: `rules` is memory::engine_rules(s,
  /// catalog) (a search that knows its candidate's engine from an earlier one's, issue 18).
  StagedEstimate(const Scenario& s, const Catalog& catalog, Estimate& e, const ModelCounts& counts,
                 memory::PartsMemo& memo, const memory::EngineRules& rules);
  /// What the memory stage counted of the model.
  const ModelCounts& counts() const { return counts_; }
  /// Adds the speed (with a GPU); a search passes its `memo` of the training step's matrix sums
  /// (speed/training_speed.h), which must outlive its candidates' model and counts.
  void add_speed(ModuleSumsMemo* memo = nullptr);
  /// Adds power, and with a GPU speed (with `memo` as add_speed's), ownership and cost; with
  /// explanations, the ownership, the cost and the step's split by part only with `extras`
  /// (UnfitExtras), else the run's energy alone. The power is written into the estimate's own,
  /// which must be as a new Estimate has it (issue 18: made in place, not moved in).
  void add_priced(ModuleSumsMemo* memo = nullptr, bool extras = true);

 private:
  void estimate_memory_stage(memory::PartsMemo* memo = nullptr);

  const Scenario& s_;
  const Catalog& catalog_;
  std::optional<ModelCounts> own_counts_;  // counted here, unless given
  const ModelCounts& counts_;
  const memory::EngineRules rules_;
  Estimate& e_;
  Explanations* why_;
};

}  // namespace gpusizer
