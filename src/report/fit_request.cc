// The reverse question through the contract (docs/contract.md, "fit"): the request parsed into
// the typed FitRequest of gpusizer/advisor.h, and fit()'s answer rendered. The search itself is
// the advisor's (src/advisor/reverse_fit.cc).
#include <algorithm>

#include "estimate/layout.h"
#include "gpusizer/error.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

// The request's context, as the answer and every model's scenario start from it.
int64_t asked_seq_len(const nlohmann::json& input) {
  return input.value("seq_len", int64_t{2048});
}

// The request with `model` (a model's JSON value) in place and its context clamped to the model's
// own, `max_context` (at least 512). Throws InputError when that scenario is bad input for it.
FitModelScenario model_scenario(const nlohmann::json& model, int64_t max_context,
                                const nlohmann::json& input, bool cv, const Catalog& catalog) {
  nlohmann::json s = input;
  s["model"] = model;
  s.erase("seq_len");
  s.erase("prompt_len");
  s.erase("output_len");
  const int64_t base_seq = asked_seq_len(input);
  s["seq_len"] = cv ? base_seq : std::min<int64_t>(base_seq, std::max<int64_t>(512, max_context));
  FitModelScenario out;
  out.parsed = parse_scenario(s, catalog, out.given);
  return out;
}

// The "levers" key taken out of `input`: true unless the request says false.
bool take_levers(nlohmann::json& input) {
  auto it = input.find("levers");
  if (it == input.end()) return true;
  if (!it->is_boolean())
    throw InputError("levers", "must be true or false (false: no standard levers)");
  const bool levers = it->get<bool>();
  input.erase(it);
  return levers;
}

}  // namespace

FitRequest parse_fit_request(const nlohmann::json& request, const Catalog& catalog, size_t limit) {
  if (!request.is_object()) throw InputError("", "a scenario must be a JSON object");
  if (!request.contains("gpu")) throw InputError("gpu", "fit needs --gpu");
  nlohmann::json input = request;
  FitRequest r;
  r.limit = limit;
  r.levers = take_levers(input);
  r.cv = input.value("task", "inference") == "cv-train";
  // Checks the GPU, task and other fields once, with a stand-in model.
  nlohmann::json probe = input;
  probe["model"] = r.cv ? "yolov8m" : "llama-2-7b";
  r.checked = resolved(parse_scenario(probe, catalog, r.checked_given), catalog);
  for (const Model& m : catalog.models()) {
    if (m.is_cv() != r.cv) continue;
    try {
      r.models.push_back(model_scenario(m.id, m.max_position_embeddings, input, r.cv, catalog));
    } catch (const InputError&) {
      // not a scenario this model can take (a split its heads do not divide): not listed
    }
  }
  // The model the request names, answered beside the catalog's: its errors are the user's (an
  // unknown name, a vision model without cv-train).
  if (const auto named = input.find("model"); named != input.end() && !named->is_null()) {
    const int64_t own_context = parse_scenario(input, catalog).model->max_position_embeddings;
    r.named = model_scenario(*named, own_context, input, r.cv, catalog);
  }
  return r;
}

nlohmann::json fit_json(const nlohmann::json& request, const Catalog& catalog, size_t limit) {
  const FitRequest r = parse_fit_request(request, catalog, limit);
  const FitResult found = fit(r, catalog);
  nlohmann::json out = {{"gpu", r.checked.gpu->id},
                        {"gpu_count", r.checked.gpu_count},
                        {"task", to_string(r.checked.task)},
                        {"weights", request.value("weights", r.checked.weights->id)},
                        {"seq_len", asked_seq_len(request)},
                        {"models", nlohmann::json::array()},
                        {"levers", found.levers},
                        {"basis",
                         "each model at the given seq_len and batch (default 2048, 1), "
                         "then the longest context (up to the model's own) and the "
                         "largest batch that still fit, all from estimate(); with the "
                         "levers standard for the task unless levers is false "
                         "(--no-levers)"}};
  auto model_json = [](const FitModel& m) {
    return nlohmann::json{{"model", m.model},
                          {"params", m.params},
                          {"max_seq_len", m.max_seq_len},
                          {"max_batch", m.max_batch},
                          {"weights", m.weights}};
  };
  for (const FitModel& m : found.models) out["models"].push_back(model_json(m));
  if (r.named) {
    const Model& named = *r.named->parsed.model;
    out["named"] = found.named
                       ? model_json(*found.named)
                       : nlohmann::json{{"model", named.id}, {"params", count_params(named).total}};
    out["named"]["fits"] = found.named.has_value();
  }
  return out;
}

}  // namespace gpusizer
