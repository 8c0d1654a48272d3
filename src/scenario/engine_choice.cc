#include "scenario/engine_choice.h"

#include "core/json_fields.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

// The first serving engine of the defaults list that runs on the GPU's vendor (any vendor when
// no GPU is given), loads the weights' format kind and serves this kind of model.
const EngineProfile* default_serving_engine(const Catalog& catalog, const Gpu* gpu,
                                            const Scenario& s) {
  for (const auto& name : catalog.engine_defaults().serving) {
    const EngineProfile& e = catalog.engine(name, "engine");
    if (!e.runs("inference") || !e.loads(s.weights.kind)) continue;
    if (gpu && !e.runs_on(gpu->vendor)) continue;
    if (e.language_models_only && s.model.is_cv()) continue;
    return &e;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

void resolve_engine(const nlohmann::json& input, const Catalog& catalog, Scenario& s) {
  const EngineProfile* engine = nullptr;
  if (auto v = read_string(input, "engine", "")) {
    engine = &catalog.engine(*v, "engine");
    s.engine_basis = "given";
  } else if (is_training(s.task)) {
    engine = &catalog.engine(catalog.engine_defaults().training, "engine");
    s.engine_basis = "default for training";
  } else {
    const Gpu* gpu = nullptr;
    if (auto g = read_string(input, "gpu", "")) gpu = &catalog.gpu(*g, "gpu");
    engine = default_serving_engine(catalog, gpu, s);
    if (!engine) engine = &catalog.engine(catalog.engine_defaults().training, "engine");
    s.engine_basis = "default for serving " + s.weights.id + " weights" +
                     (gpu ? " on " + gpu->vendor + " GPUs" : std::string()) + ": " + engine->name +
                     " (name an engine to choose another)";
  }
  s.engine = engine->name;
  if (!engine->runs(to_string(s.task)))
    throw InputError("engine", "engine '" + s.engine + "' does not run task '" + to_string(s.task) +
                                   "'; use one of " + join(engine->tasks));
  const auto version = read_string(input, "engine_version", "");
  s.engine_version = engine->release(version.value_or(""), "engine_version").version;
  if (!version)
    s.engine_basis += engine->releases.size() > 1
                          ? "; release " + s.engine_version + " (the newest modelled)"
                          : "; one rule set for all releases";
}

bool retarget_default_engine(Scenario& s, const Gpu& gpu, const Catalog& catalog) {
  if (s.task != Task::kInference || s.engine_basis.rfind("default for serving", 0) != 0)
    return false;
  const EngineProfile* engine = default_serving_engine(catalog, &gpu, s);
  if (!engine || engine->name == s.engine) return false;
  s.engine = engine->name;
  s.engine_version = engine->newest_version();
  s.engine_basis = "default for serving " + s.weights.id + " weights on " + gpu.vendor +
                   " GPUs: " + engine->name + " (name an engine to choose another)";
  return true;
}

void note_ignored_knobs(const nlohmann::json& input, const Catalog& catalog, Scenario& s) {
  const EngineProfile& engine = catalog.engine(s.engine, "engine");
  for (const char* knob : {"gpu_memory_utilization", "max_num_batched_tokens"}) {
    if (!input.is_object() || !input.contains(knob) || engine.honours(knob)) continue;
    std::vector<std::string> with;
    for (const auto& e : catalog.engines())
      if (e.honours(knob)) with.push_back(e.name);
    s.notes.push_back(std::string(knob) + " is ignored: " + s.engine + " has no such setting" +
                      (with.empty() ? std::string() : " (it is a setting of " + join(with) + ")"));
  }
}

}  // namespace gpusizer
