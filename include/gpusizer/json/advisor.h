#pragma once
// The advisor's contract JSON (docs/contract.md, recommend and fit): requests parsed into the
// typed input of gpusizer/advisor.h, results rendered. Bad input throws InputError naming the
// field (exit 2 in the CLI). The library below this header takes and returns typed values.
#include <nlohmann/json.hpp>
#include <vector>

#include "gpusizer/advisor.h"
#include "gpusizer/catalog.h"

namespace gpusizer {

/// Reads and checks the constraint keys of a request; throws InputError naming the field.
Constraints parse_constraints(const nlohmann::json& request, const Catalog& catalog);

/// The request without its constraint keys: the scenario the estimator reads.
nlohmann::json scenario_of_request(const nlohmann::json& request);

/// The fields of the request's "parallel" and "training" objects (and "batch") the user fixed,
/// with their parsed values from `parsed`.
LayoutPins layout_pins(const nlohmann::json& scenario_json, const Scenario& parsed);

/// A recommend request (contract scenario JSON plus constraints) parsed and checked, in the
/// order recommend has always checked it: constraints, the scenario, then (training on token
/// sequences without traffic) gpu_count and the layout pins.
RecommendRequest parse_recommend_request(const nlohmann::json& request, const Catalog& catalog);

/// recommend(parse_recommend_request(request, catalog), catalog), and the request's notes: a
/// training request that names no engine and whose best option splits the model over GPUs under
/// the default HF Trainer is searched again with Megatron-LM, and noted where that is at least
/// twice as good by the objective.
Recommendation recommend(const nlohmann::json& request, const Catalog& catalog);

/// A fit request (a scenario with a gpu, "levers": false for none) parsed into the typed
/// request: checked once with a stand-in model, then each catalog model's scenario parsed once
/// with the model swapped in (a model decides nearly every default, so it is parsed, not edited).
FitRequest parse_fit_request(const nlohmann::json& scenario, const Catalog& catalog,
                             size_t limit = 10);

/// The reverse question through the contract: fit(parse_fit_request(...)) rendered.
nlohmann::json fit_json(const nlohmann::json& scenario, const Catalog& catalog, size_t limit = 10);

/// JSON of the advisor's results (the contract's Recommendation).
nlohmann::json to_json(const Recommendation& r);
nlohmann::json to_json(const std::vector<Change>& changes);

}  // namespace gpusizer
