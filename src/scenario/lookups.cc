#include "scenario/lookups.h"

#include "catalog/speed_index.h"

namespace gpusizer {
namespace {

// The entries from the catalog's index (catalog/speed_index.h) when the engine, the GPU and the
// weights are rows of the catalog; false otherwise (a GPU or format built by hand).
bool indexed_entries(ScenarioLookups& l, const Scenario& s, const Catalog& catalog) {
  const SpeedIndex* index = catalog.speed_index();
  if (!index) return false;
  const size_t e = row_position(catalog.engines(), l.engine);
  const size_t g = row_position(catalog.gpus(), s.gpu.get());
  const size_t f = row_position(catalog.formats(), s.weights.get());
  if (e == catalog.engines().size() || g == catalog.gpus().size() || f == catalog.formats().size())
    return false;
  l.inference = &index->inference(e);
  l.training = &index->training(e);
  l.weight_kernel = index->weight_kernel(f);
  l.vendor = index->vendor(g);
  l.fp16_accumulate_factor = index->fp16_accumulate_factor(g);
  l.attention_efficiency = index->attention_efficiency(e, g);
  l.training_attention_backward = index->training_attention_backward(g);
  l.matmul_fraction = index->matmul_fraction(g);
  l.fp8_matmul_fraction = index->fp8_matmul_fraction(g);
  l.matmul_fraction_default = index->matmul_fraction_default();
  l.bitsandbytes = index->bitsandbytes(e, f);
  return true;
}

// The same entries looked up by the scenario's names.
void named_entries(ScenarioLookups& l, const Scenario& s, const SpeedProfile& p) {
  const Gpu& g = *s.gpu;
  l.inference = &p.inference(s.engine);
  l.training = &p.training(s.engine);
  l.weight_kernel = p.weight_kernel(s.weights->kind, s.weights->bits_per_value);
  l.vendor = p.vendor(g.vendor);
  l.fp16_accumulate_factor = p.fp16_accumulate_factor(g.vendor, g.segment);
  l.attention_efficiency = p.attention_efficiency(s.engine, g.architecture_family());
  l.training_attention_backward = p.training_attention_backward(g.architecture_family());
  l.matmul_fraction = p.matmul_fraction(g.id);
  l.fp8_matmul_fraction = p.fp8_matmul_fraction(g.id);
  l.matmul_fraction_default = p.matmul_fraction("");
  l.bitsandbytes = p.bitsandbytes(s.engine, s.weights->id);
}

}  // namespace

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
    // speed/training_speed.cc), by the same keys: from the catalog's index by the rows'
    // positions (issue 18: ten searches of string-keyed maps, ~2.0k instructions a line).
    l.speed = true;
    if (!indexed_entries(l, s, catalog)) named_entries(l, s, catalog.speed());
  }
  s.lookups = std::move(l);
}

}  // namespace gpusizer
