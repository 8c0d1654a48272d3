#pragma once
// "What to change so it fits" in the search's own form (issue 18): the levers the search made,
// once, and each kept change as the levers it combines with its figures. The answer writers read
// it as it is (describe_changes, report/describe.h): a change's name, price and lever list are
// its levers' texts, written joined straight into the answer. changes_to_fit's public Change
// (gpusizer/advisor.h) is made from it only for a caller that asks for that struct.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/advisor.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

/// One lever of the search: its name, the edit it makes, its price in words (a literal) and its
/// quality class (Change::quality_class).
struct ChangeLever {
  std::string name;
  ScenarioEdit edit;
  std::string_view cost;
  int quality_class = 0;
};

/// Levers in one change, at most.
inline constexpr size_t kMaxChangeLevers = 4;

/// What a change does (Change's figures).
struct ChangeFigures {
  double needed_bytes = 0, saves_bytes = 0;
  bool fits = false;
  std::optional<double> speed_factor;  ///< new throughput / old throughput
  int quality_class = 0;               ///< the worst of its levers'
};

/// A kept change: what it does, and the levers it combines (indices into FoundChanges::levers,
/// in the order of the search's dimensions).
struct FoundChange : ChangeFigures {
  std::array<uint8_t, kMaxChangeLevers> levers{};
  uint8_t count = 0;  ///< levers combined
};

/// A search's result: its levers and its changes, best first.
struct FoundChanges {
  std::vector<ChangeLever> levers;
  std::vector<FoundChange> changes;

  const ChangeLever& lever(const FoundChange& c, size_t i) const { return levers[c.levers[i]]; }
  /// The change's edit: its levers' edits merged, in order (merged(), gpusizer/scenario_edit.h).
  ScenarioEdit edit(const FoundChange& c) const;
  /// The changes as the public struct: the name the levers' names joined by " + ", the cost
  /// their prices joined by "; ".
  std::vector<Change> to_changes() const;
};

/// changes_to_fit (gpusizer/advisor.h) from the resolved scenario, in the search's own form.
FoundChanges find_changes(const Scenario& resolved, const LayoutFields& parsed_layout,
                          const ScenarioGiven& given, const Estimate& estimated,
                          const Catalog& catalog, double headroom = 0.0);

}  // namespace gpusizer
