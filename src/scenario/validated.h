#pragma once
// validate() (gpusizer/scenario_edit.h) for a search that edits one valid scenario many times
// (ScenarioEditor): an edit never changes the model or the LoRA targets, so a check whose other
// fields are still the valid scenario's own passes again and need not be made (issue 18: most of
// validate's ~640 instructions a candidate are the LoRA targets against the model's modules, the
// engine's tasks and the split against the model).
#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

/// validate(s, catalog) for `s`, an edit of `base` with the model and the LoRA targets base's own
/// (ScenarioEditor's candidates), where `base` with the layout fields `layout` (its own, or those
/// it had before it was resolved) passed validate(): the checks that read only fields equal to
/// the base's are skipped (they would pass), the others made in validate()'s order, so it throws
/// what validate(s, catalog) throws.
/// `base`: the base itself, or its fields as an editor in place keeps them
/// (ScenarioEditor::BaseFields), whose engine is read only when `engine_is_base` is false.
/// `engine_is_base`: the caller knows that s's engine is the base's (not compared again).
/// `engine_runs_task`: the caller knows that s's engine runs s's task (rederive_engine checked
/// it when it derived the engine for that task: not looked up and checked again).
template <typename Base>  // Scenario or ScenarioEditor::BaseFields
void validate_edit(const Scenario& s, const Base& base, const LayoutFields& layout,
                   const Catalog& catalog, bool engine_is_base = false,
                   bool engine_runs_task = false);

}  // namespace gpusizer
