#pragma once
// The contract's answer described once (docs/contract.md "Estimate (output JSON)"), written to
// a writer of report/json_writer.h: the tree backend (TreeWriter) for to_json(), the text
// backend (TextWriter) for the JSONL path. Each describer writes its object's keys in ascending
// byte order, as nlohmann's std::map keeps them, so that both backends give the same text.
// The describers are templates over the writer's type, defined and instantiated for TreeWriter
// and TextWriter in their .cc files: each field is a direct call to the writer's own method, and
// TextWriter's short paths inline into the describer (issue 18: a virtual call per field was
// ~40 instructions, ~250 fields a JSONL answer).
#include <map>
#include <string>
#include <vector>

#include "advisor/changes.h"
#include "gpusizer/advisor.h"
#include "gpusizer/cost.h"
#include "gpusizer/estimate.h"
#include "report/json_writer.h"
#include "report/repeated_figures.h"

namespace gpusizer {

/// The "memory", "performance", "cost" and "power" objects of an Estimate.
template <typename W>
void describe_memory(W& w, const MemoryEstimate& m);
template <typename W>
void describe_performance(W& w, const PerformanceEstimate& p);
template <typename W>
void describe_cost(W& w, const Estimate& e);
template <typename W>
void describe_power(W& w, const PowerEstimate& p);

/// The "ownership" object of "cost" (cloud against on-prem); the cloud's prices through
/// `repeated`, which the cost's own prices, written after, go through too.
template <typename W>
void describe_ownership(W& w, const Ownership& o);
template <typename W>
void describe_ownership(W& w, const Ownership& o, RepeatedFigures& repeated);

/// Figure -> text (the "basis" objects).
template <typename W>
void describe_texts(W& w, const Basis& texts);

/// The Estimate as to_json(const Estimate&) writes it.
template <typename W>
void describe_estimate(W& w, const Estimate& e);

/// The resolved scenario; `model_requested`: the name asked for when it is not the entry's own.
template <typename W>
void describe_scenario(W& w, const Scenario& s, const std::string* model_requested = nullptr);

/// A change's merge patch (docs/contract.md, "changes"[].patch); to_patch(edit)
/// (gpusizer/json/scenario.h) is this through the tree writer.
template <typename W>
void describe_patch(W& w, const ScenarioEdit& edit);

/// The changes that make a scenario fit, each with its merge patch: as the public struct, or in
/// the search's own form (its levers' texts written joined, no string made; the same text).
template <typename W>
void describe_changes(W& w, const std::vector<Change>& changes);
template <typename W>
void describe_changes(W& w, const FoundChanges& found);

}  // namespace gpusizer
