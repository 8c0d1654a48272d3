// Calibration machinery on the shipped cases. The fit itself is a DISABLED test that writes the
// fitted profile to build/speed_fitted.json (run with --gtest_also_run_disabled_tests).
#include "gpusizer/calibrate.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpusizer/json/calibrate.h"
#include "gpusizer/speed.h"
#include "gpusizer/validation.h"

namespace gpusizer {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Stand-in for parse_scenario while the scenario parser lands on main: the fields the cases use.
void mini_prepare(PreparedCase& c, const Catalog& cat) {
  const auto& j = c.spec.scenario;
  Scenario s;
  if (j.at("model").is_object()) {
    const auto& h = j.at("model").at("hf_config");
    Model m;
    m.id = "mpt";
    m.hidden_size = h.at("hidden_size");
    m.intermediate_size = h.at("intermediate_size");
    m.num_layers = h.at("num_hidden_layers");
    m.num_heads = m.num_kv_heads = h.at("num_attention_heads");
    m.head_dim = m.hidden_size / m.num_heads;
    m.vocab_size = h.at("vocab_size");
    m.gated_mlp = false;
    m.layer_norm = true;
    m.tied_embeddings = true;
    s.model = m;
  } else {
    s.model = cat.model(j.at("model").get<std::string>());
  }
  s.gpu = cat.gpu(j.at("gpu").get<std::string>());
  s.weights = cat.format(j.value("weights", "bf16"), "weights", "weights");
  s.kv_cache = cat.format(j.value("kv_cache", "bf16"), "kv", "kv_cache");
  s.engine = j.value("engine", "hf");
  s.batch = j.value("batch", 1);
  s.gpu_count = j.value("gpu_count", 1);
  s.prompt_len = j.value("prompt_len", 1);
  s.output_len = j.value("output_len", 1);
  s.seq_len = j.value("seq_len", s.prompt_len + s.output_len);
  if (j.contains("parallel")) {
    const auto& p = j.at("parallel");
    s.parallel.tp = p.value("tp", 1);
    s.parallel.pp = p.value("pp", 1);
    s.parallel.dp = p.value("dp", 1);
    s.parallel.pp_interleave = p.value("pp_interleave", 1);
  }
  const std::string task = j.value("task", "inference");
  s.task = task == "pretrain" ? Task::kPretrain
           : task == "full"   ? Task::kFull
           : task == "lora"   ? Task::kLora
           : task == "qlora"  ? Task::kQlora
                              : Task::kInference;
  if (j.contains("training")) {
    const auto& t = j.at("training");
    s.training.mixed_precision =
        parse_mixed_precision(t.value("mixed_precision", "bf16"), "training.mixed_precision");
    s.training.recompute =
        t.value("gradient_checkpointing", false) ? Recompute::kFull : Recompute::kNone;
    s.training.zero_stage = t.value("zero_stage", 0);
    s.training.grad_accum = t.value("grad_accum", 1);
    s.training.global_batch = t.value("global_batch", 0);
    s.training.lora_targets = {"all-linear"};
  }
  c.scenario = s;
}

std::vector<PreparedCase> shipped_cases() {
  const auto cases = read_speed_cases(
      read(std::string(GPUSIZER_SOURCE_DIR) + "/data/validation/throughput_cases.jsonl"));
  (void)mini_prepare;  // kept for comparison runs without the memory estimator
  return prepare_speed_cases(cases, Catalog::builtin());
}

TEST(Calibrate, EveryIncludedCaseIsEstimated) {
  const auto cases = shipped_cases();
  EXPECT_GT(cases.size(), 200u);
  const auto v = validate_speed(cases, Catalog::builtin(), Catalog::builtin().speed());
  EXPECT_EQ(v.failed, 0) << v.rows.dump();
  for (const auto& row : v.rows)
    if (row.contains("predicted")) {
      EXPECT_GT(row["predicted"].get<double>(), 0) << row.dump();
    }
}

TEST(Calibrate, ShippedSummaryMeetsTheAims) {
  const auto j = validate_speed_shipped(Catalog::builtin());
  EXPECT_EQ(j["failed"], 0);
  int checked = 0;
  for (const auto& s : j["summary"]) {
    if (s["group"] != "(all)" || s["use"] != "all") continue;
    // The six vLLM-on-MI300X end-to-end rows are a named gap (docs/validation.md: ROCm's
    // kernels reach 51-60% of the dense rate and no MI300X row calibrates the AMD scale).
    if (s["metric"] == "e2e_output_tokens_per_s") continue;
    SCOPED_TRACE(s.dump());
    // Aims (issue 4): decode and prefill median within 20 %, training throughput within 15 %;
    // the bounds here leave room for profile edits but catch a broken estimator.
    EXPECT_LT(s["median_abs_error"].get<double>(), 0.35);
    ++checked;
  }
  EXPECT_GT(checked, 5);
}

// No rows: no failure and no statistic (the statistics themselves: error_summary_test.cc).
TEST(Calibrate, NoRowsNoSummary) {
  std::vector<PreparedCase> none;
  const auto v = validate_speed(none, Catalog::builtin(), Catalog::builtin().speed());
  EXPECT_TRUE(v.stats.empty());
  EXPECT_EQ(to_json(v)["failed"], 0);
}

}  // namespace
}  // namespace gpusizer
