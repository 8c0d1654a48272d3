// docs/contract.md, v2: a scenario that does not fit has "fits": false and no speed, cost or
// ownership figures; its changes say what would make it fit. A context past the model's maximum
// is the first warning. Values checked by hand in the comments.
#include <gtest/gtest.h>

#include <regex>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/json/render.h"

namespace gpusizer {
namespace {

// Llama-2-13B (13.02e9 parameters) in fp16 is 26.0 GB of weights; an RTX 4090 has 24 GB.
TEST(NotFitting, NoSpeedOrCostWhenItDoesNotFit) {
  const auto j =
      estimate_json({{"model", "llama-2-13b"}, {"weights", "fp16"}, {"gpu", "rtx-4090-24gb"}});
  ASSERT_TRUE(j.contains("fits"));
  EXPECT_FALSE(j["fits"].get<bool>());
  EXPECT_FALSE(j["memory"]["fits"].get<bool>());  // the v1 place stays
  EXPECT_GT(j["memory"]["weights_bytes"].get<double>(), 26.0e9);
  EXPECT_FALSE(j.contains("performance"));
  EXPECT_FALSE(j.contains("cost"));
  ASSERT_TRUE(j.contains("changes"));
  ASSERT_FALSE(j["changes"].empty());
  EXPECT_TRUE(j["changes"][0]["fits"].get<bool>());
  // The basis explains the figures written: the memory's, none of the absent speed and cost.
  EXPECT_TRUE(j["basis"].contains("weights_bytes"));
  for (const char* key : {"decode_tokens_per_s", "ttft_ms", "max_output_tokens_per_s",
                          "usd_per_hour", "usd_per_million_tokens", "bands"})
    EXPECT_FALSE(j["basis"].contains(key)) << key;

  for (const std::string& text : {render_estimate_table(j), render_estimate_markdown(j)}) {
    EXPECT_NE(text.find("oes not fit"), std::string::npos) << text;
    EXPECT_EQ(text.find("tokens_per_s"), std::string::npos) << text;
    EXPECT_EQ(text.find("usd_per"), std::string::npos) << text;
    EXPECT_EQ(text.find("cloud vs on-prem"), std::string::npos) << text;
    EXPECT_NE(text.find("What would make it fit"), std::string::npos) << text;
  }
}

// "changes": false (CLI --no-changes) answers the same scenario without the search for what
// would make it fit: still "fits": false and the memory figures, but no "changes" key. A value
// that is not a boolean is bad input naming the field.
TEST(NotFitting, NoChangesWhenAskedForNone) {
  const nlohmann::json scenario = {
      {"model", "llama-2-13b"}, {"weights", "fp16"}, {"gpu", "rtx-4090-24gb"}, {"changes", false}};
  const auto j = estimate_json(scenario);
  EXPECT_FALSE(j["fits"].get<bool>());
  EXPECT_GT(j["memory"]["weights_bytes"].get<double>(), 26.0e9);
  EXPECT_FALSE(j.contains("changes"));
  nlohmann::json wrong = scenario;
  wrong["changes"] = "no";
  try {
    estimate_json(wrong);
    ADD_FAILURE() << "a string for \"changes\" was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "changes");
  }
}

// The rule of thumb decides the fit by its own arithmetic, so an answer that names it keeps the
// ownership's texts even where the analytic memory does not fit (the answer makes them only when
// the analytic memory fits, or when a method is named; issue 18). Full fine-tuning of Llama-2-7B
// (6,738,415,616 parameters) on one A100 80GB: Adam's 16 bytes a parameter are ~108 GB, past the
// 84,988,812,853 bytes usable; the rule of thumb's 2 + 8 + 2 bytes a parameter (80.86e9), 10% of
// the weights (1.35e9) and 2e9 other are 84.21e9, under it. Rented: one GCP a2-ultragpu-1g at
// $5.0688/h (data/instances.csv).
TEST(NotFitting, RuleOfThumbThatFitsKeepsTheOwnershipTexts) {
  const nlohmann::json analytic = {
      {"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a100-sxm4-80gb"}, {"changes", false}};
  EXPECT_FALSE(estimate_json(analytic)["fits"].get<bool>());
  EXPECT_FALSE(estimate_json(analytic).contains("cost"));
  nlohmann::json rule = analytic;
  rule["method"] = "rule-of-thumb";
  const auto j = estimate_json(rule);
  ASSERT_TRUE(j["fits"].get<bool>());
  EXPECT_EQ(j["memory"]["total_bytes"].get<int64_t>(), 84208670515);
  const nlohmann::json& own = j["cost"]["ownership"];
  EXPECT_DOUBLE_EQ(own["cloud"]["usd_per_hour"].get<double>(), 5.0688);
  ASSERT_EQ(own["basis"].size(), 2u);
  EXPECT_EQ(own["basis"][0].get<std::string>().rfind("cloud: 1 x a2-ultragpu-1g (GCP, ", 0), 0u);
  EXPECT_EQ(own["basis"][1].get<std::string>().rfind("on-prem: (1 GPUs x $15000 + ", 0), 0u);
  EXPECT_EQ(own["break_even"]["verdict"].get<std::string>().rfind("buy if the work is long", 0),
            0u);
}

// Llama-2-7B in bf16 (13.5 GB) on an H100 80 GB fits: figures are there, and "fits" is true.
TEST(NotFitting, FiguresWhenItFits) {
  const auto j = estimate_json({{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_TRUE(j.contains("performance"));
  EXPECT_TRUE(j.contains("cost"));
  EXPECT_FALSE(j.contains("changes"));
  // No GPU: no verdict on fitting at all.
  EXPECT_FALSE(estimate_json({{"model", "llama-2-7b"}}).contains("fits"));
}

// A preallocating engine whose KV pool holds no whole sequence does not fit. Llama-2-7B's KV
// cache is 2 x 32 layers x 4096 x 2 bytes = 512 KiB a token, 2 GiB for one sequence of 4096
// tokens; sweeping gpu_memory_utilization on a 24 GB card in steps of 0.01 (0.24 GiB) passes
// through pools of more than 0 and fewer than 4096 tokens.
TEST(NotFitting, PoolWithoutAWholeSequenceDoesNotFit) {
  int partial = 0;
  for (int u = 60; u <= 95; ++u) {
    const auto j = estimate_json({{"model", "llama-2-7b"},
                                  {"gpu", "rtx-4090-24gb"},
                                  {"engine", "vllm"},
                                  {"seq_len", 4096},
                                  {"gpu_memory_utilization", u / 100.0}});
    const auto& m = j["memory"];
    const int64_t tokens = m.value("kv_cache_capacity_tokens", int64_t{0});
    if (m.value("max_batch", int64_t{0}) == 0) {
      EXPECT_FALSE(j["fits"].get<bool>()) << u;
      EXPECT_FALSE(j.contains("performance")) << u;
      if (tokens > 0 && tokens < 4096) ++partial;
    } else {
      EXPECT_TRUE(j["fits"].get<bool>()) << u;
    }
  }
  EXPECT_GE(partial, 1);
}

// Llama-3.1-8B's maximum context is 131,072 tokens (max_position_embeddings); 100,000,000 is
// 1e8 / 131072 = 763 times that. The warning comes first and names the maximum.
TEST(NotFitting, ContextPastTheModelsMaximumIsTheFirstWarning) {
  const auto j = estimate_json({{"model", "llama-3.1-8b"},
                                {"gpu", "h100-sxm5-80gb"},
                                {"seq_len", 100000000},
                                {"output_len", 100}});
  ASSERT_FALSE(j["warnings"].empty());
  const std::string first = j["warnings"][0];
  EXPECT_EQ(first.rfind("seq_len 100000000 exceeds", 0), 0u) << first;
  EXPECT_NE(first.find("131072"), std::string::npos) << first;
  EXPECT_NE(first.find("763x"), std::string::npos) << first;
  EXPECT_EQ(j.value("context_warning", ""), first);
  EXPECT_EQ(j["model"]["max_context"], 131072);
  const std::string table = render_estimate_table(j);
  EXPECT_LT(table.find("WARNING: seq_len"), table.find("Memory per GPU")) << table;
  // Within the maximum: no such warning.
  EXPECT_FALSE(
      estimate_json({{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"seq_len", 131072}})
          .contains("context_warning"));
}

// Rent or buy: a "buy" verdict only where buying pays back (break-even under 100% utilization
// and payback within the amortization life), over every GPU of the catalog that fits a 7B.
TEST(NotFitting, NoBuyVerdictWhenBuyingDoesNotPayBack) {
  const auto gpus = gpus_json(Catalog::builtin());
  int verdicts = 0;
  for (const auto& g : gpus) {
    const auto j = estimate_json({{"model", "llama-2-7b"}, {"gpu", g["id"]}});
    if (!j.value("fits", false)) continue;
    const auto& own = j["cost"].value("ownership", nlohmann::json::object());
    if (!own.contains("break_even")) continue;
    const auto& b = own["break_even"];
    const std::string verdict = b.value("verdict", "");
    ++verdicts;
    if (!verdict.starts_with("buy") || !own.contains("cloud")) continue;
    const double life = 12.0 * own["assumptions"].value("amortization_years", 0.0);
    EXPECT_LT(b.value("utilization", 2.0), 1.0) << g["id"];
    EXPECT_LE(b.value("months", 1e9), life) << g["id"];
  }
  EXPECT_GT(verdicts, 10);
}

}  // namespace
}  // namespace gpusizer

namespace gpusizer {
namespace {

// A GPU rented so cheaply that owning breaks even only above 100% of the hours of a year (the
// JSON's break_even.utilization above 1) never pays back: the report says so instead of printing
// a percentage above 100. Which GPU that is depends on the shipped prices, so it is looked up.
TEST(NotFitting, ReportNeverShowsABreakEvenAbove100Percent) {
  std::string gpu;
  for (const auto& g : gpus_json()) {
    const auto j = estimate_json({{"model", "llama-2-7b"}, {"gpu", g["id"]}});
    if (!j.contains("cost") || !j["cost"].contains("ownership")) continue;
    const auto& own = j["cost"]["ownership"];
    if (own.contains("break_even") && own["break_even"].value("utilization", 0.0) > 1.0) {
      gpu = g["id"];
      break;
    }
  }
  ASSERT_FALSE(gpu.empty())
      << "no GPU whose break-even is above 100% (the case this test is about)";
  const std::string md =
      render_report_markdown(report_json({{"model", "llama-2-7b"}, {"gpus", {gpu}}}));
  EXPECT_NE(md.find("- Break-even: never"), std::string::npos) << gpu << "\n" << md;
  const std::regex over(R"(([0-9]{3,})% utilization)");
  for (auto it = std::sregex_iterator(md.begin(), md.end(), over); it != std::sregex_iterator();
       ++it)
    EXPECT_LE(std::stoi((*it)[1].str()), 100) << (*it)[0].str();
}

}  // namespace
}  // namespace gpusizer

namespace gpusizer {
namespace {

// A batch (.jsonl) rendered as a table mixes answers and error lines: an error line renders as
// one line naming its code (it stopped the whole batch with an internal error before).
TEST(NotFitting, BatchTableRendersErrorLines) {
  const nlohmann::json err = error_json("unknown_name", "model: no model 'nonexist'");
  EXPECT_EQ(render_estimate_table(err), "error (unknown_name): model: no model 'nonexist'\n");
  EXPECT_EQ(render_estimate_markdown(err), "error (unknown_name): model: no model 'nonexist'\n");
}

}  // namespace
}  // namespace gpusizer
