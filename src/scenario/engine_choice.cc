#include "scenario/engine_choice.h"

#include <optional>
#include <string>

#include "core/json_fields.h"
#include "core/text_append.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

// Room for a default engine's basis with its release ("default for serving awq-int4 weights on
// NVIDIA GPUs: vllm (name an engine to choose another); release 0.21 (the newest modelled: 0.21
// to 0.28)").
constexpr size_t kBasisBytes = 160;

const std::string kGpuField = "gpu";  // made once, not on every lookup

// The first serving engine of the defaults list that runs on the GPU's vendor (any vendor when
// no GPU is given), loads the weights' format kind and serves this kind of model.
const EngineProfile* default_serving_engine(const Catalog& catalog, const Gpu* gpu,
                                            const Scenario& s) {
  for (const auto& name : catalog.engine_defaults().serving) {
    const EngineProfile& e = catalog.engine(name, "engine");
    if (!e.runs("inference") || !e.loads(s.weights->kind)) continue;
    if (gpu && !e.runs_on(gpu->vendor)) continue;
    if (e.language_models_only && s.model->is_cv()) continue;
    return &e;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// The default engine for the task, the weights and the GPU, and why (resolve_engine when the
// input names none).
// The basis is written into one buffer, reserved once for it and set_release's release (issue
// 18: the texts joined by operator+ took five allocations a line).
const EngineProfile& default_engine(const Catalog& catalog, const Gpu* gpu, Scenario& s) {
  s.engine_defaulted = true;
  std::string& basis = s.engine_basis;
  basis.clear();
  basis.reserve(kBasisBytes);
  if (is_training(s.task)) {
    basis += "default for training";
    return catalog.engine(catalog.engine_defaults().training, "engine");
  }
  const EngineProfile* engine = default_serving_engine(catalog, gpu, s);
  if (!engine) engine = &catalog.engine(catalog.engine_defaults().training, "engine");
  // One append of the pieces (issue 18: eight appends, each a call with its checks).
  if (gpu)
    append_text(basis, "default for serving ", s.weights->id, " weights on ", gpu->vendor,
                " GPUs: ", engine->name, " (name an engine to choose another)");
  else
    append_text(basis, "default for serving ", s.weights->id, " weights: ", engine->name,
                " (name an engine to choose another)");
  return *engine;
}

// The release named, else the newest (said in the basis). A version given empty is refused as
// every other named field's empty value is (engine '', gpu ''), not read as none given.
void set_release(const EngineProfile& engine, std::optional<std::string_view> version,
                 Scenario& s) {
  const EngineRelease& release =
      version ? engine.named_release(*version, "engine_version") : engine.releases.front();
  s.engine_version = release.version;
  if (version) {
    if (*version == release.version) return;
    // A version inside a release's range takes that release's rules (engines.json "covers"); one
    // after the newest range, the newest release's, said where it is read.
    const bool newer = engine.newer_than_modelled(*version);
    append_text(s.engine_basis, "; release ", *version, " by the rules of ", release.version,
                newer ? ", the newest modelled (" : " (", release.covers_first, " to ",
                release.covers_last, ')');
    if (newer)
      s.notes.push_back(engine.name + " " + std::string(*version) +
                        " is newer than the releases modelled: sized by the rules of " +
                        release.version + " (" + release.covers_first + " to " +
                        release.covers_last + "), which may differ");
    return;
  }
  if (engine.releases.size() == 1) {
    s.engine_basis += "; one rule set for all releases";
  } else if (s.engine_version == "all") {
    // Rules shared by every release but a few older ones modelled apart (hf: transformers 4.35).
    std::string& basis = s.engine_basis;
    basis += "; release all (every release but those modelled apart: ";
    const size_t apart = basis.size();
    for (size_t i = 1; i < engine.releases.size(); ++i) {
      if (basis.size() > apart) basis += ", ";
      basis += engine.releases[i].version;
    }
    basis += ")";
  } else if (const EngineRelease& newest = engine.releases.front(); !newest.covers_last.empty()) {
    // The range, so that "release 0.21" does not read as the newest release of the engine.
    append_text(s.engine_basis, "; release ", s.engine_version,
                " (the newest modelled: ", newest.covers_first, " to ", newest.covers_last, ')');
  } else {
    append_text(s.engine_basis, "; release ", s.engine_version, " (the newest modelled)");
  }
}

}  // namespace

void check_engine_runs_task(const EngineProfile& engine, const Scenario& s) {
  if (!engine.runs(task_name(s.task)))
    throw InputError("engine", "engine '" + engine.name + "' does not run task '" +
                                   to_string(s.task) + "'; use one of " + join(engine.tasks));
}

const EngineProfile& resolve_engine(const ScenarioFields& input, const Catalog& catalog,
                                    Scenario& s) {
  const EngineProfile* engine = nullptr;
  if (auto v = read_string_value(input.at[key::engine], "engine", "")) {
    engine = &catalog.engine(*v, "engine");
    // Room for set_release's text too, reserved once (issue 18: "given" grew when the release
    // was appended, ~100 instructions a line naming its engine).
    s.engine_basis.reserve(kBasisBytes);
    s.engine_basis = "given";
    s.engine_defaulted = false;
  } else {
    // The GPU is kept in the scenario (parse_system would look it up again; issue 18: ~400
    // instructions a line): the same lookup, so the same error for an unknown name.
    if (!is_training(s.task))
      if (auto g = read_string_value(input.at[key::gpu], "gpu", ""))
        s.gpu = catalog.gpu_ref(*g, kGpuField);
    engine = &default_engine(catalog, s.gpu.get(), s);
  }
  s.engine = engine->name;
  check_engine_runs_task(*engine, s);
  set_release(*engine, read_string_value(input.at[key::engine_version], "engine_version", ""), s);
  return *engine;
}

void rederive_engine(const Catalog& catalog, bool engine_given, bool version_given, Scenario& s) {
  if (engine_given) return;  // the engine and its release stay as given
  const EngineProfile& engine = default_engine(catalog, s.gpu ? &*s.gpu : nullptr, s);
  s.engine = engine.name;
  check_engine_runs_task(engine, s);
  set_release(engine,
              version_given ? std::optional<std::string_view>(s.engine_version) : std::nullopt, s);
}

bool retarget_default_engine(Scenario& s, const Gpu& gpu, const Catalog& catalog) {
  if (s.task != Task::kInference || !s.engine_defaulted) return false;
  const EngineProfile* engine = default_serving_engine(catalog, &gpu, s);
  if (!engine || engine->name == s.engine) return false;
  s.engine = engine->name;
  s.engine_version = engine->newest_version();
  s.engine_basis = "default for serving " + s.weights->id + " weights on " + gpu.vendor +
                   " GPUs: " + engine->name + " (name an engine to choose another)";
  return true;
}

const EngineProfile& engine_on(const Scenario& s, const Gpu& gpu, const Catalog& catalog) {
  if (s.task == Task::kInference && s.engine_defaulted)
    if (const EngineProfile* engine = default_serving_engine(catalog, &gpu, s)) return *engine;
  return catalog.engine(s.engine);
}

void note_ignored_knobs(const ScenarioFields& input, const Catalog& catalog,
                        const EngineProfile& engine, Scenario& s) {
  const std::pair<size_t, const char*> knobs[] = {
      {key::gpu_memory_utilization, "gpu_memory_utilization"},
      {key::max_num_batched_tokens, "max_num_batched_tokens"},
      {key::max_num_seqs, "max_num_seqs"},
      {key::max_model_len, "max_model_len"}};
  for (const auto& [slot, knob] : knobs) {
    if (!input.has(slot) || engine.honours(knob)) continue;
    std::vector<std::string> with;
    for (const auto& e : catalog.engines())
      if (e.honours(knob)) with.push_back(e.name);
    s.notes.push_back(std::string(knob) + " is ignored: " + s.engine + " has no such setting" +
                      (with.empty() ? std::string() : " (it is a setting of " + join(with) + ")"));
  }
}

}  // namespace gpusizer
