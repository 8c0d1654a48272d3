// The speed profile's entries indexed by the catalog's rows (SpeedIndex): each is what the
// profile's lookup by name gives for that row, and a scenario resolved through the index holds
// the entries the names give. Figures by hand from data/speed.json.
#include "catalog/speed_index.h"

#include <gtest/gtest.h>

#include <optional>

#include "gpusizer/catalog.h"
#include "gpusizer/json/scenario.h"
#include "scenario/lookups.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

size_t gpu_row(std::string_view name) {
  return row_position(cat().gpus(), &cat().gpu(name));
}

size_t engine_row(std::string_view name) {
  return row_position(cat().engines(), &cat().engine(name));
}

TEST(SpeedIndex, HoldsTheProfilesFiguresForEachRow) {
  const SpeedIndex& x = *cat().speed_index();
  // speed.json attention_kernels: vLLM runs fa3-class kernels, 0.65 on Hopper; fa2 on Ampere
  // 0.62; llama.cpp is no fa3 engine, so fa2's Hopper figure 0.37.
  EXPECT_EQ(x.attention_efficiency(engine_row("vllm"), gpu_row("h100")), 0.65);
  EXPECT_EQ(x.attention_efficiency(engine_row("vllm"), gpu_row("a100-sxm4-80gb")), 0.62);
  EXPECT_EQ(x.attention_efficiency(engine_row("llama.cpp"), gpu_row("h100")), 0.37);
  // speed.json achievable_matmul: A100 PCIe 80GB 0.811, default 0.83.
  EXPECT_EQ(x.matmul_fraction(gpu_row("a100-pcie-80gb")), 0.811);
  EXPECT_EQ(x.matmul_fraction_default(), 0.83);
  // fp8_gpus: H100 SXM 1402.6 of 1979 TFLOPS = 0.709; the A100 has no FP8 measurement (nor FP8
  // tensor cores) and keeps its 16-bit 0.811.
  EXPECT_EQ(x.fp8_matmul_fraction(gpu_row("h100-sxm5-80gb")), 0.709);
  EXPECT_EQ(x.fp8_matmul_fraction(gpu_row("a100-pcie-80gb")), 0.811);
}

TEST(SpeedIndex, EveryEntryIsTheLookupByName) {
  const Catalog& c = cat();
  const SpeedProfile& p = c.speed();
  const SpeedIndex& x = *c.speed_index();
  for (size_t e = 0; e < c.engines().size(); ++e) {
    const std::string& engine = c.engines()[e].name;
    EXPECT_EQ(x.inference(e).bw_eff, p.inference(engine).bw_eff) << engine;
    EXPECT_EQ(x.inference(e).step_overhead_s, p.inference(engine).step_overhead_s) << engine;
    EXPECT_EQ(x.inference(e).has_releases, p.inference(engine).has_releases) << engine;
    EXPECT_EQ(x.training(e).eff_max, p.training(engine).eff_max) << engine;
    EXPECT_EQ(x.training(e).overlap, p.training(engine).overlap) << engine;
    for (size_t g = 0; g < c.gpus().size(); ++g) {
      EXPECT_EQ(x.attention_efficiency(e, g),
                p.attention_efficiency(engine, c.gpus()[g].architecture_family()));
    }
    for (size_t f = 0; f < c.formats().size(); ++f) {
      const BitsandbytesKernel* k = p.bitsandbytes(engine, c.formats()[f].id);
      ASSERT_EQ(x.bitsandbytes(e, f) != nullptr, k != nullptr);
      if (k) {
        EXPECT_EQ(x.bitsandbytes(e, f)->dequant_bytes_per_param, k->dequant_bytes_per_param);
      }
    }
  }
  for (size_t g = 0; g < c.gpus().size(); ++g) {
    const Gpu& gpu = c.gpus()[g];
    EXPECT_EQ(x.vendor(g).compute_scale, p.vendor(gpu.vendor).compute_scale) << gpu.id;
    EXPECT_EQ(x.vendor(g).bw_scale, p.vendor(gpu.vendor).bw_scale) << gpu.id;
    EXPECT_EQ(x.fp16_accumulate_factor(g), p.fp16_accumulate_factor(gpu.vendor, gpu.segment));
    EXPECT_EQ(x.training_attention_backward(g),
              p.training_attention_backward(gpu.architecture_family()));
    EXPECT_EQ(x.matmul_fraction(g), p.matmul_fraction(gpu.id)) << gpu.id;
    EXPECT_EQ(x.fp8_matmul_fraction(g), p.fp8_matmul_fraction(gpu.id)) << gpu.id;
  }
  for (size_t f = 0; f < c.formats().size(); ++f) {
    EXPECT_EQ(x.weight_kernel(f).bw_scale,
              p.weight_kernel(c.formats()[f].kind, c.formats()[f].bits_per_value).bw_scale);
    EXPECT_EQ(x.weight_kernel(f).compute_scale,
              p.weight_kernel(c.formats()[f].kind, c.formats()[f].bits_per_value).compute_scale);
  }
}

TEST(SpeedIndex, ARowBuiltByHandIsLookedUpByName) {
  const Catalog& c = cat();
  const Gpu copy = c.gpu("h100");  // the same figures, not the catalog's row
  EXPECT_EQ(row_position(c.gpus(), &copy), c.gpus().size());
  EXPECT_EQ(row_position(c.gpus(), static_cast<const Gpu*>(nullptr)), c.gpus().size());
  const nlohmann::json input = {
      {"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100"}, {"batch", 8}};
  const Scenario indexed = parse_scenario(input, c);
  Scenario by_name = indexed;
  by_name.gpu = copy;
  resolve_lookups(by_name, c);
  const ScenarioLookups* a = speed_lookups(indexed, c.speed());
  const ScenarioLookups* b = speed_lookups(by_name, c.speed());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(b->inference, &c.speed().inference("vllm"));  // the profile's own entry
  EXPECT_EQ(a->inference->bw_eff, b->inference->bw_eff);
  EXPECT_EQ(a->attention_efficiency, 0.65);  // vLLM's fa3 on Hopper, as above
  EXPECT_EQ(a->attention_efficiency, b->attention_efficiency);
  EXPECT_EQ(a->matmul_fraction, b->matmul_fraction);
  EXPECT_EQ(a->matmul_fraction_default, b->matmul_fraction_default);
  EXPECT_EQ(a->vendor.compute_scale, b->vendor.compute_scale);
  EXPECT_EQ(a->weight_kernel.bw_scale, b->weight_kernel.bw_scale);
  EXPECT_EQ(a->bitsandbytes, b->bitsandbytes);  // bf16 weights: no bitsandbytes kernel
}

TEST(SpeedIndex, TheEntriesOutliveTheCatalogsCopies) {
  std::optional<Catalog> original(Catalog::embedded());
  const Catalog copy = *original;
  original.reset();
  const nlohmann::json input = {{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100"}};
  const Scenario s = parse_scenario(input, copy);
  const ScenarioLookups* l = speed_lookups(s, copy.speed());
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->attention_efficiency, 0.65);
  EXPECT_EQ(l->inference->bw_eff, copy.speed().inference("vllm").bw_eff);
}

}  // namespace
}  // namespace gpusizer
