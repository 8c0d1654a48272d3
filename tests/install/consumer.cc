// Links the installed library and prints the bf16 weights of Llama-2-7B served on one GPU.
#include <cstdio>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

int main() {
  const gpusizer::Catalog catalog = gpusizer::Catalog::embedded();
  const gpusizer::Scenario s = gpusizer::resolve_scenario(
      {{"model", "llama-2-7b"}, {"weights", "bf16"}, {"gpu", "a100-sxm4-80gb"}}, catalog);
  const gpusizer::Estimate e = gpusizer::estimate(s, catalog);
  std::printf("%.0f\n", e.memory.weights);
  return 0;
}
