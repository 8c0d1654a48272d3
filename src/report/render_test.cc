// The text table of a training estimate lists the step's exposed parts
// (performance.step_breakdown_s is an object, not a number).
#include "gpusizer/json/render.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

TEST(Render, TrainingTableListsTheStepBreakdown) {
  const nlohmann::json e = estimate_json({{"model", "llama-2-7b"},
                                          {"task", "full"},
                                          {"gpu", "a100-sxm4-80gb"},
                                          {"gpu_count", 8},
                                          {"training", {{"zero_stage", 3}}}},
                                         Catalog::builtin());
  const std::string table = render_estimate_table(e);
  EXPECT_NE(table.find("step breakdown (s)"), std::string::npos) << table;
  EXPECT_NE(table.find("    compute"), std::string::npos) << table;
  EXPECT_NE(table.find("step_time_s"), std::string::npos) << table;
}

// Options that differ only in their micro-batch and accumulation are told apart in the table's
// layout cell: 70B full fine-tuning on 8 GPUs lists several splits of one pipeline layout
// (micro-batch 8 x 1, 4 x 2, 2 x 4 ...), which the cell named alike ("PP8") before.
TEST(Render, OptionsTableTellsLayoutsApart) {
  const nlohmann::json rec = recommend_json(
      {{"model", "llama-3.1-70b"}, {"task", "full"}, {"training", {{"tokens", 1e9}}}},
      Catalog::builtin());
  const std::string table = render_recommendation(rec, false, Lang::kEn);
  std::set<std::string> cells;
  size_t rows = 0, accumulating = 0;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string rank, gpu, count, weights;
    if (!(words >> rank >> gpu >> count >> weights) ||
        rank.find_first_not_of("0123456789") != std::string::npos)
      continue;
    // The layout cell runs up to the headroom's percentage.
    const size_t start = line.find(weights, line.find(gpu) + gpu.size()) + weights.size();
    const size_t end = line.find('%', start);
    const size_t cell_end = line.find_last_not_of(' ', line.rfind(' ', end));
    const std::string cell = line.substr(start, cell_end + 1 - start);
    EXPECT_TRUE(cells.insert(gpu + count + cell).second) << "two rows alike: " << line;
    accumulating += cell.find(" GA") != std::string::npos;
    ++rows;
  }
  EXPECT_GT(rows, 5u) << table;
  EXPECT_GT(accumulating, 0u) << table;  // the pipeline layouts' accumulation is named
}

// Each option is priced at the cheaper of renting and owning, so a serving search lists options
// on both bases (Lambda's 8 x H100 instance beside owned B200s); the footer must not name the first
// option's basis as everyone's.
TEST(Render, ObjectiveFooterWithMixedPriceBases) {
  const nlohmann::json rec = recommend_json(
      {{"model", "llama-3.1-70b"},
       {"traffic", {{"requests_per_s", 5}, {"prompt_len", 2000}, {"output_len", 300}}},
       {"slo", {{"ttft_ms", 2000}, {"tpot_ms", 50}}}},
      Catalog::builtin());
  std::set<std::string> bases;
  for (size_t i = 0; i < rec["options"].size() && i < 20; ++i)
    bases.insert(rec["options"][i].value("objective_basis", ""));
  ASSERT_GT(bases.size(), 1u);
  const std::string en = render_recommendation(rec, false, Lang::kEn);
  EXPECT_NE(en.find("(lower is better), each option at the cheaper of renting and owning"),
            std::string::npos)
      << en;
  EXPECT_EQ(en.find("objective: USD per million requests at 5 requests/s (on-prem"),
            std::string::npos);
  const std::string zh = render_recommendation(rec, false, Lang::kZh);
  EXPECT_NE(zh.find("每个选项按租用与自建中较便宜者计"), std::string::npos) << zh;
}

}  // namespace
}  // namespace gpusizer
