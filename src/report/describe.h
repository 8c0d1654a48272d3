#pragma once
// The contract's answer described once (docs/contract.md "Estimate (output JSON)"), written to
// a JsonWriter (report/json_writer.h): the tree backend for to_json(), the text backend for the
// JSONL path. Each describer writes its object's keys in ascending byte order, as nlohmann's
// std::map keeps them, so that both backends give the same text.
#include <map>
#include <string>
#include <vector>

#include "advisor/changes.h"
#include "gpusizer/advisor.h"
#include "gpusizer/cost.h"
#include "gpusizer/estimate.h"
#include "report/json_writer.h"

namespace gpusizer {

/// The "memory", "performance", "cost" and "power" objects of an Estimate.
void describe_memory(JsonWriter& w, const MemoryEstimate& m);
void describe_performance(JsonWriter& w, const PerformanceEstimate& p);
void describe_cost(JsonWriter& w, const Estimate& e);
void describe_power(JsonWriter& w, const PowerEstimate& p);

/// The "ownership" object of "cost" (cloud against on-prem).
void describe_ownership(JsonWriter& w, const Ownership& o);

/// Figure -> text (the "basis" objects).
void describe_texts(JsonWriter& w, const Basis& texts);

/// The Estimate as to_json(const Estimate&) writes it.
void describe_estimate(JsonWriter& w, const Estimate& e);

/// The resolved scenario; `model_requested`: the name asked for when it is not the entry's own.
void describe_scenario(JsonWriter& w, const Scenario& s,
                       const std::string* model_requested = nullptr);

/// A change's merge patch (docs/contract.md, "changes"[].patch); to_patch(edit)
/// (gpusizer/json/scenario.h) is this through the tree writer.
void describe_patch(JsonWriter& w, const ScenarioEdit& edit);

/// The changes that make a scenario fit, each with its merge patch: as the public struct, or in
/// the search's own form (its levers' texts written joined, no string made; the same text).
void describe_changes(JsonWriter& w, const std::vector<Change>& changes);
void describe_changes(JsonWriter& w, const FoundChanges& found);

}  // namespace gpusizer
