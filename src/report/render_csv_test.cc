// CSV as RFC 4180 sec. 2 defines it: fields with commas, quotes or line breaks are quoted, quotes
// doubled, records end with CRLF.
#include "gpusizer/json/render_csv.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

TEST(RenderCsv, QuotesOnlyWhatMustBe) {
  EXPECT_EQ(csv_field("h100-sxm5-80gb"), "h100-sxm5-80gb");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(RenderCsv, TableFlattensObjectsAndKeepsEveryColumn) {
  const auto rows = nlohmann::json::parse(R"([
    {"id": "a", "memory_gb": 80, "architecture": {"layers": 32}, "tags": ["x", "y"]},
    {"id": "b,c", "ecc": true, "memory_gb": 0.5}])");
  // "id" first, then columns in order of first appearance (nlohmann objects iterate sorted:
  // architecture, memory_gb, tags); the second row's new column comes last; the first row has no
  // "ecc", the second no layers or tags.
  EXPECT_EQ(csv_table(rows),
            "id,architecture.layers,memory_gb,tags,ecc\r\n"
            "a,32,80,x; y,\r\n"
            "\"b,c\",,0.5,,true\r\n");
}

TEST(RenderCsv, RecommendationRowsThenRejected) {
  const auto r = nlohmann::json::parse(R"({
    "options": [{"gpu": "h100-sxm5-80gb", "gpu_count": 2, "weights": "bf16",
                 "parallel": {"tp": 2, "pp": 1, "dp": 1, "ep": 1}, "fits": true,
                 "estimate": {"memory": {"total_bytes": 76000000000},
                              "cost": {"usd_per_hour": 6.5},
                              "scenario": {"engine": "vllm"}},
                 "score": 6.5, "reasons": ["cheapest, fits"]}],
    "rejected": [{"gpu": "rtx-4090-24gb", "why": "too small"}]})");
  const std::string csv = render_recommendation_csv(r);
  const std::string first = csv.substr(0, csv.find("\r\n"));
  EXPECT_EQ(first.substr(0, 30), "rank,gpu,gpu_count,weights,tp,");
  EXPECT_NE(csv.find("\r\n1,h100-sxm5-80gb,2,bf16,2,1,1,1,true,76000000000,"), std::string::npos);
  // usd_per_hour, then the empty usd_per_million_tokens, node_watts and the seven fleet columns
  // (replicas, nodes, instance, instance_count, fleet_usd_per_hour, racks, binding), then score,
  // the reasons and the engine.
  EXPECT_NE(csv.find(",6.5,,,,,,,,,,6.5,\"cheapest, fits\",vllm\r\n"), std::string::npos);
  EXPECT_NE(first.find(",score,reasons,engine"), std::string::npos);
  EXPECT_NE(csv.find("\r\n,rtx-4090-24gb,"), std::string::npos);
  EXPECT_NE(csv.find(",rejected: too small,\r\n"), std::string::npos);
}

}  // namespace
}  // namespace gpusizer
