#pragma once
// "What to change so it fits" in the search's own form (issue 18): the levers the search made,
// once, and each kept change as the levers it combines with its figures. The answer writers read
// it as it is (describe_changes, report/describe.h): a change's name, price and lever list are
// its levers' texts, written joined straight into the answer. changes_to_fit's public Change
// (gpusizer/advisor.h) is made from it only for a caller that asks for that struct.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/plain_literal.h"
#include "gpusizer/advisor.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

struct ModelCounts;     // memory/model_counts.h
struct ModuleSumsMemo;  // speed/training_speed.h

/// A lever's name, held in place (a search makes ~12 a line: none allocates or is formatted,
/// issue 18): a literal copied, or one built from literal parts and decimal integers. Such a
/// name is known plain (plain()); one made from other text is not known to be.
class LeverName {
 public:
  static constexpr size_t kCapacity = 61;  ///< the longest name is 46 characters

  LeverName() = default;
  template <size_t N>
  consteval LeverName(const char (&text)[N]) : LeverName(PlainLiteral(text)) {}  // NOLINT
  constexpr LeverName(PlainLiteral text) { append_text(text); }  // NOLINT: a literal's name
  /// Other text, not known plain (the answer tests it).
  explicit LeverName(std::string_view text) : plain_(false) { append_text(text); }

  /// `text` appended; past kCapacity, std::length_error.
  LeverName& append(PlainLiteral text) { return append_text(text); }
  /// `v` appended in decimal, as fmt's "{}" writes an integer.
  LeverName& append(int64_t v);

  std::string_view view() const { return {text_.data(), size_}; }
  operator std::string_view() const { return view(); }  // NOLINT: read as text
  friend bool operator==(const LeverName& a, std::string_view b) { return a.view() == b; }
  /// Whether the name is made of plain literals and integers alone.
  bool plain() const { return plain_; }

 private:
  constexpr LeverName& append_text(std::string_view text) {
    if (text.size() > kCapacity - size_) throw std::length_error("LeverName: a name past its room");
    std::copy(text.begin(), text.end(), text_.begin() + size_);
    size_ = static_cast<uint8_t>(size_ + text.size());
    return *this;
  }

  std::array<char, kCapacity + 1> text_{};
  uint8_t size_ = 0;
  bool plain_ = true;
};

/// One lever of the search: its name, the edit it makes, its price in words (a literal) and its
/// quality class (Change::quality_class).
struct ChangeLever {
  // Provided, so that a lever made in place (`levers.emplace_back()`) is not zeroed whole first
  // (~490 bytes, ~85 instructions a lever, issue 18): every member has its own initializer.
  ChangeLever() {}  // NOLINT(modernize-use-equals-default): `= default` would zero it
  ChangeLever(const LeverName& n, ScenarioEdit e, std::string_view c, int q)
      : name(n), edit(std::move(e)), cost(c), quality_class(q) {}
  LeverName name;
  ScenarioEdit edit;
  std::string_view cost;
  int quality_class = 0;
  bool plain = false;  ///< its name and price known plain (PlainLiteral): written untested
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
  static constexpr uint8_t kNotMerged = UINT8_MAX;
  std::array<uint8_t, kMaxChangeLevers> levers{};
  uint8_t count = 0;  ///< levers combined
  /// A combination's edit as the search merged it: its index in
  /// FoundChanges::combination_edits, or kNotMerged (FoundChanges::edit merges the levers').
  uint8_t combination_edit = kNotMerged;
};

/// A search's result: its levers and its changes, best first.
struct FoundChanges {
  std::vector<ChangeLever> levers;
  std::vector<FoundChange> changes;
  /// The combinations' edits the search merged to try them, kept for the changes it kept
  /// (FoundChange::combination_edit; issue 18: merged again to write each one's patch, ~225
  /// instructions). Past those, slots an earlier search used (their room kept for the next).
  std::vector<ScenarioEdit> combination_edits;

  const ChangeLever& lever(const FoundChange& c, size_t i) const { return levers[c.levers[i]]; }
  /// The change's edit: its levers' edits merged, in order (merged(), gpusizer/scenario_edit.h).
  /// A combination the search merged is read where it kept it; one made otherwise (by hand) is
  /// merged into the thread's one scratch edit, valid until the next such call.
  const ScenarioEdit& edit(const FoundChange& c) const;
  /// The changes as the public struct: the name the levers' names joined by " + ", the cost
  /// their prices joined by "; ".
  std::vector<Change> to_changes() const;
};

/// changes_to_fit (gpusizer/advisor.h) from the resolved scenario, in the search's own form.
FoundChanges find_changes(const Scenario& resolved, const LayoutFields& parsed_layout,
                          const ScenarioGiven& given, const Estimate& estimated,
                          const Catalog& catalog, double headroom = 0.0);
/// The same over a scenario that parse_scenario has just returned and the caller resolved in
/// place (`parsed_layout`: its layout fields before): the candidates are edits written over
/// `resolved` itself, which is put back as it was before this returns (ScenarioEditor::InPlace),
/// and the base is not checked again (it passed validate() when it was parsed). `estimated` is
/// made with the model's counts and a memo of the training step's figures (the estimate() of
/// estimate/priced.h that takes them): the search's candidates of the base's task read
/// `base_counts` (count_model(resolved); nullptr: counted by the search) and `sums` (empty: the
/// search's own) as theirs, at the same addresses (issue 18: the base task's counts, matrix
/// sums, FLOP costs and step rates were made again by the search). Neither may change during the
/// search; `sums` holds its figures after it.
FoundChanges find_changes_in_place(Scenario& resolved, const LayoutFields& parsed_layout,
                                   const ScenarioGiven& given, const Estimate& estimated,
                                   const Catalog& catalog, const ModelCounts* base_counts,
                                   ModuleSumsMemo& sums);

/// Gives a search's storage of levers (~7.8 KB for 16), changes and merged edits back to the
/// thread for its next search, emptied, instead of freeing it (issue 18: the levers' is an
/// allocation past malloc's small-size caches, ~500 instructions a search with its free).
/// Optional: a result not given back is destroyed as any value is, and the next search allocates
/// its own.
void recycle(FoundChanges&& found);

}  // namespace gpusizer
