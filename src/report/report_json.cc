// The buyer's report: the articles' purchase checklist (sec. 5.1: model scale, scenario,
// concurrency, machine room) answered from one recommendation.
#include "gpusizer/advisor.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {

nlohmann::json report_json(const nlohmann::json& request, const Catalog& catalog) {
  const Recommendation r = recommend(request, catalog);
  nlohmann::json rec = to_json(r);
  nlohmann::json out;
  const Scenario base = resolve_scenario(scenario_of_request(request), catalog);
  const ParamCounts c = count_params(*base.model);
  out["model"] = {{"id", base.model->id},
                  {"name", base.model->name},
                  {"params", c.total},
                  {"active_params", c.active}};
  out["scenario"] =
      rec["options"].empty() ? nlohmann::json(nullptr) : rec["options"][0]["estimate"]["scenario"];
  out["task"] = to_string(base.task);
  out["batch"] = base.batch;
  out["seq_len"] = base.seq_len;
  out["recommendation"] = std::move(rec);
  return out;
}

nlohmann::json fit_models_json(const nlohmann::json& scenario, const Catalog& catalog) {
  return fit_json(scenario, catalog);
}

}  // namespace gpusizer
