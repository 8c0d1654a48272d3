#include "scenario/lookups.h"

#include <array>
#include <memory>

namespace gpusizer {
namespace {

// The counts of a model counted recently on this thread. A JSONL batch or a grid sweep parses the
// same model on many lines, and a new ModelFacts is a ~1.5 kB allocation that glibc serves by
// consolidating its fastbins first (about 11,000 instructions, more than counting the model).
// Keyed by the whole model: a hit holds this very model's counts.
std::shared_ptr<const ModelFacts> counted(const Model& m) {
  thread_local std::array<std::shared_ptr<const ModelFacts>, 4> recent;
  thread_local size_t next = 0;
  for (const auto& f : recent)
    if (f && f->model == m) return f;
  auto f = std::make_shared<const ModelFacts>(ModelFacts{m, count_params(m), linear_modules(m)});
  recent[next++ % recent.size()] = f;
  return f;
}

}  // namespace

void resolve_lookups(Scenario& s, const Catalog& catalog, bool speed) {
  ScenarioLookups l;
  l.catalog = &catalog;
  l.gpu = s.gpu;
  l.weights_id = s.weights.id;
  l.weights_kind = s.weights.kind;
  // The model's counts are kept while the model is the one they were counted from (the readers
  // check it); the advisor's candidates, which never change the model, share them. Only the
  // training step reads them (speed/training_speed.cc): a serving scenario does not count them.
  l.model = std::move(s.lookups.model);
  if (speed && is_training(s.task) && (!l.model || !(l.model->model == s.model)))
    l.model = counted(s.model);
  for (const auto& e : catalog.engines())
    if (e.name == s.engine) l.engine = &e;
  if (speed && l.engine && s.gpu) {
    // The entries inference_setup and the training step read (speed/inference_speed.cc,
    // speed/training_speed.cc), by the same keys.
    const SpeedProfile& p = catalog.speed();
    const Gpu& g = *s.gpu;
    l.speed = true;
    l.inference = &p.inference(s.engine);
    l.training = &p.training(s.engine);
    l.weight_kernel = p.weight_kernel(s.weights.kind);
    l.vendor = p.vendor(g.vendor);
    l.fp16_accumulate_factor = p.fp16_accumulate_factor(g.vendor, g.segment);
    l.attention_efficiency = p.attention_efficiency(s.engine, g.architecture_family());
    l.training_attention_backward = p.training_attention_backward(g.architecture_family());
    l.matmul_fraction = p.matmul_fraction(g.id);
    l.matmul_fraction_default = p.matmul_fraction("");
    l.bitsandbytes = p.bitsandbytes(s.engine, s.weights.id);
  }
  s.lookups = std::move(l);
}

}  // namespace gpusizer
