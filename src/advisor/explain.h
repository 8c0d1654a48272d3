#pragma once
// Explanations of the advisor's decisions, kept apart from the search: which constraint an option
// misses, its reasons and warnings, its objective value, and the ranking.
#include <functional>
#include <string>
#include <vector>

#include "gpusizer/advisor.h"

namespace gpusizer::explain {

/// The hourly, per-million-token and purchase figures used for ranking and budgets.
struct Price {
  enum class Source { kNone, kCloud, kOnPrem };  ///< whose price per_hour is
  std::optional<double> per_hour, per_million_tokens, capex;
  Source source = Source::kNone;
  std::string label;  ///< "cloud, <instance>" or "on-prem, amortized": shown, never parsed
};

/// The price of an option under the constraints' deployment (cloud, on-prem, or the cheaper);
/// `with_label` false leaves the label empty (the figures of a search, formatted nothing).
Price price_of(const Option& o, const Constraints& c, bool with_label = true);

/// The constraints a recommendation can miss (Constraints: min_tokens_per_s, max_ttft_ms,
/// max_days, budget_usd).
enum class Constraint { kNone, kMinTokensPerS, kMaxTtft, kMaxDays, kBudget };

/// The first constraint an option misses and by how much; the search decides on `constraint`,
/// the faces show text().
struct Unmet {
  Constraint constraint = Constraint::kNone;
  bool unknown = false;   ///< the estimate lacks the figure that checks it
  bool purchase = false;  ///< budget: a purchase (on-prem), else USD per hour
  double value = 0, limit = 0;
  explicit operator bool() const { return constraint != Constraint::kNone; }
  std::string text() const;  ///< "" when none is missed
};

/// The first constraint an option misses (min_tokens_per_s, max_ttft_ms, max_days, budget, in
/// that order); Constraint::kNone when it meets them all.
Unmet unmet(const Option& o, const Constraints& c);

/// unmet(o, c).text(): the first constraint an option misses, in words; empty when none.
std::string unmet_constraint(const Option& o, const Constraints& c);

/// What an unmet constraint says binds an option (docs/contract.md "binding"): "throughput",
/// "slo", "time", "budget".
std::string binding_of(Constraint constraint);

/// How many times faster the option must run to meet min_tokens_per_s and max_days (1 when it
/// does): more GPUs scale throughput at most linearly, so smaller systems can be skipped.
double speed_shortfall(const Option& o, const Constraints& c);

/// Fills the option's objective value, reasons and warnings.
void describe(Option& o, const Scenario& base, const Constraints& c, const Catalog& catalog,
              const std::string& levers);

/// Sets the option's objective value alone (describe() sets it too, with its basis): what
/// ranking needs of an option not yet described. The basis it leaves names no price label.
void set_objective(Option& o, const Constraints& c);

/// The ranking order: lower objective value, then fewer GPUs, then more headroom.
bool ranks_before(const Option& a, const Option& b);

/// Sorts best first by the objective, sets scores (100 = best) and the winner's reason.
void rank(std::vector<Option>& options, const Constraints& c);

/// rank() without the sort, for options already in ranks_before order: the scores and the
/// winner's reason.
void score(std::vector<Option>& options, const Constraints& c);

/// The request's options, figures only, ranked by index (ranks_before, stable as rank); the
/// best `limit` are explained by `explain_one(option, its index before ranking)` (estimated in
/// full, described), then scored: the same options, order and scores as explaining all of them
/// and ranking, at the cost of the options returned.
void finish_options(Recommendation& r, const std::function<void(Option&, size_t)>& explain_one);

}  // namespace gpusizer::explain
