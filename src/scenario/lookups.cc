#include "scenario/lookups.h"

namespace gpusizer {

void resolve_lookups(Scenario& s, const Catalog& catalog, bool speed) {
  ScenarioLookups l;
  l.catalog = &catalog;
  l.gpu = s.gpu;
  l.weights = s.weights;
  // The last profile of that name, as before; searched from the end, it is the first found
  // (issue 18: the scan went on past it through the rest of the engines).
  const std::vector<EngineProfile>& engines = catalog.engines();
  for (auto e = engines.rbegin(); e != engines.rend(); ++e)
    if (e->name == s.engine) {
      l.engine = &*e;
      break;
    }
  if (l.engine) l.release = l.engine->find_release(s.engine_version);
  if (speed && l.engine && s.gpu) {
    // The entries inference_setup and the training step read (speed/inference_speed.cc,
    // speed/training_speed.cc), by the same keys.
    const SpeedProfile& p = catalog.speed();
    const Gpu& g = *s.gpu;
    l.speed = true;
    l.inference = &p.inference(s.engine);
    l.training = &p.training(s.engine);
    l.weight_kernel = p.weight_kernel(s.weights->kind);
    l.vendor = p.vendor(g.vendor);
    l.fp16_accumulate_factor = p.fp16_accumulate_factor(g.vendor, g.segment);
    l.attention_efficiency = p.attention_efficiency(s.engine, g.architecture_family());
    l.training_attention_backward = p.training_attention_backward(g.architecture_family());
    l.matmul_fraction = p.matmul_fraction(g.id);
    l.matmul_fraction_default = p.matmul_fraction("");
    l.bitsandbytes = p.bitsandbytes(s.engine, s.weights->id);
  }
  s.lookups = std::move(l);
}

}  // namespace gpusizer
