#include "speed/model_costs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

TEST(ModelCosts, Gpt2ReadsItsLayersAndTiedHeadAndStoresItsLearnedPositions) {
  // GPT-2 (124,439,808 params, head tied to wte): wte 50,257 x 768 = 38,597,376, wpe 1,024 x 768
  // = 786,432, the 12 layers with their biases and the final norm 85,056,000. bf16 stores all of
  // it, 248,879,616 B; a pass reads the layers and the tied head, (85,056,000 + 38,597,376) x 2 =
  // 247,306,752 B (the positions are a lookup).
  const Catalog& cat = Catalog::builtin();
  const Model& m = cat.model("gpt-2");
  const NumberFormat& bf16 = cat.format("bf16", "weights", "weights");
  const ModelCosts c = model_costs(m, bf16, bf16);
  EXPECT_DOUBLE_EQ(c.total_weight_bytes, 248879616.0);
  EXPECT_DOUBLE_EQ(c.dense_weight_bytes, 247306752.0);
  // int8 (kind int, embedding bf16): matrices 12 x (768 x 2,304 + 768 x 768 + 2 x 768 x 3,072) =
  // 84,934,656 at 1 B; the layers' other 121,344 (biases, norms) at 2 B; wte + wpe in bf16.
  const NumberFormat& int8 = cat.format("int8", "weights", "weights");
  const ModelCosts q = model_costs(m, int8, bf16);
  EXPECT_DOUBLE_EQ(q.total_weight_bytes, 84934656.0 + 121344.0 * 2 + 39383808.0 * 2);
}

TEST(ModelCosts, WeightBytesAreWhatTheMemoryHoldsForEveryModelAndFormat) {
  // The speed model reads the bytes the memory estimate stores (one figure, two users): every
  // catalog model in every weights format, inference on one GPU, where the memory is the weights
  // unsharded.
  const Catalog& cat = Catalog::builtin();
  int compared = 0;
  for (const Model& m : cat.models()) {
    for (const NumberFormat& f : cat.formats()) {
      if (!f.usable_for_role("weights")) continue;
      const nlohmann::json in = {
          {"model", m.id}, {"weights", f.id}, {"gpu", "h200-sxm-141gb"}, {"engine", "hf"}};
      Scenario s;
      try {
        s = resolve_scenario(in, cat);
      } catch (const std::exception&) {
        continue;  // a format the model cannot take (the scenario says why)
      }
      const Estimate e = estimate(s, cat, Detail::kMemory);
      const ModelCosts c = model_costs(*s.model, *s.weights, *s.kv_cache);
      EXPECT_NEAR(c.total_weight_bytes, e.memory.weights, 1e-9 * e.memory.weights)
          << m.id << " " << f.id;
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);
}

}  // namespace
}  // namespace gpusizer
