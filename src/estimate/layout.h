#pragma once
// The default serving layout (docs/contract.md, v2 "Replicas"): the smallest tensor x pipeline
// split per replica that holds the model with room for its KV cache, kept inside one node's
// fast-link domain, with the remaining GPUs as replicas. Room for the KV cache is judged by
// the fleet's max_output_tokens_per_s: a wider split is taken only where its fleet serves more
// (the narrower replicas' pools hold too few sequences). One rule, read by `estimate` for
// scenarios that give only gpu_count and by the advisor for every candidate.
#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

struct ModelCounts;  // memory/model_counts.h

/// Sets s.parallel (tp, pp, dp) for serving on s.gpu_count GPUs: of the splits that fit, the
/// smallest unless a wider one's fleet has a higher max_output_tokens_per_s; when no split fits, or
/// no GPU is given to check the fit against, the widest split that the GPUs allow is kept (so the
/// estimate can say by how much it misses).
void choose_serving_layout(Scenario& s, const Catalog& catalog);

/// A parsed scenario made ready to estimate, as resolve_scenario does after parse_scenario: the
/// layout rule for a serving scenario that gave only gpu_count, and the memory fraction the
/// engine's release takes when none is given. For the advisor's edited candidates.
Scenario resolved(Scenario parsed, const Catalog& catalog);
/// The same in place (a search's candidate, without moving the Scenario).
void resolve_in_place(Scenario& s, const Catalog& catalog);
/// The same with the model already counted (`counts` = count_model(s), which the layout does not
/// change): the answer counts once for the layout rule and the estimate (issue 18).
void resolve_in_place(Scenario& s, const Catalog& catalog, const ModelCounts& counts);
/// The layout rule and the memory fraction of resolve_in_place below, where either applies.
void resolve_layout_and_fraction(Scenario& s, const Catalog& catalog, const EngineProfile& engine);
/// The same with the scenario's engine profile already found: `engine` is engine_profile(s,
/// catalog) (scenario/lookups.h), which the layout does not change (a search that keeps its
/// candidates' engine rules, issue 18). Inline: most of a change search's candidates have no
/// layout to choose and an engine that takes no memory fraction (training), so the call is
/// skipped (issue 18: ~15 instructions a candidate).
inline void resolve_in_place(Scenario& s, const Catalog& catalog, const EngineProfile& engine) {
  if (s.default_layout || engine.preallocates) resolve_layout_and_fraction(s, catalog, engine);
}

}  // namespace gpusizer
