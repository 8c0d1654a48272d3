// How recommend's cost grows with the GPU catalog (issue 18: "no worse than linearly in GPUs x
// counts"). The shipped gpus.csv and instances.csv are repeated k times (each copy's GPU ids and
// instance names suffixed, so every copy is a distinct GPU with the same figures and cloud
// prices) and the same full-catalog recommendation runs over each; Google Benchmark fits the
// growth (BigO) and prints the time per GPU row.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "embed/embedded.h"
#include "gpusizer/advisor.h"
#include "gpusizer/json/advisor.h"

namespace {

// The CSV's header and rows, with `rename(row, copy)` applied to each row of each copy.
template <typename Rename>
std::string repeated_csv(std::string_view text, int copies, Rename rename) {
  std::istringstream in{std::string(text)};
  std::string header, row, out;
  std::getline(in, header);
  out = header + "\n";
  std::vector<std::string> rows;
  while (std::getline(in, row))
    if (!row.empty()) rows.push_back(row);
  for (int copy = 0; copy < copies; ++copy)
    for (const std::string& r : rows) out += rename(r, copy) + "\n";
  return out;
}

// Appends "-copyN" to the comma-separated field `index` (the first fields of both files are
// plain ids and names, never quoted).
std::string suffixed(std::string row, int index, int copy) {
  if (copy == 0) return row;
  size_t start = 0;
  for (int i = 0; i < index; ++i) start = row.find(',', start) + 1;
  const size_t end = row.find(',', start);
  row.insert(end, "-copy" + std::to_string(copy));
  return row;
}

const gpusizer::Catalog& catalog_with_copies(int copies) {
  static std::map<int, std::unique_ptr<gpusizer::Catalog>> made;
  auto& slot = made[copies];
  if (!slot) {
    const std::string gpus =
        repeated_csv(gpusizer::embedded::find("gpus.csv"), copies, [](const std::string& r, int c) {
          return suffixed(suffixed(r, 0, c), 1, c);  // id and name
        });
    const std::string instances = repeated_csv(
        gpusizer::embedded::find("instances.csv"), copies, [](const std::string& r, int c) {
          return suffixed(suffixed(r, 1, c), 2, c);  // instance name and its GPU id
        });
    slot = std::make_unique<gpusizer::Catalog>(
        gpusizer::Catalog::from_texts({{"gpus.csv", gpus}, {"instances.csv", instances}}));
  }
  return *slot;
}

void BM_RecommendInferenceByCatalogSize(benchmark::State& state) {
  const gpusizer::Catalog& catalog = catalog_with_copies(static_cast<int>(state.range(0)));
  const nlohmann::json request = {{"model", "llama-3.1-8b"}, {"engine", "vllm"}};
  for (auto _ : state) benchmark::DoNotOptimize(gpusizer::recommend(request, catalog));
  const auto rows = static_cast<int64_t>(catalog.gpus().size());
  state.SetComplexityN(rows);
  state.counters["gpus"] = static_cast<double>(rows);
  state.counters["per_gpu"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}
BENCHMARK(BM_RecommendInferenceByCatalogSize)
    ->RangeMultiplier(2)
    ->Range(1, 16)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

}  // namespace

BENCHMARK_MAIN();
