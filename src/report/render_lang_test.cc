// The CLI tables' own labels (gpus, models, validate, recommend, fit, report) in Chinese with
// --lang zh: header lines and titles hold no English word that is not an id, unit or name.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpusizer/json/api.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/json/render.h"
#include "gpusizer/lang.h"

namespace gpusizer {
namespace {

// Words of three or more Latin letters in `line` that are not in `allowed` (ids, units, names).
std::vector<std::string> english_words(const std::string& line,
                                       const std::set<std::string>& allowed) {
  std::vector<std::string> out;
  static const std::regex word("[A-Za-z]{3,}");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), word); it != std::sregex_iterator();
       ++it)
    if (!allowed.count(it->str())) out.push_back(it->str());
  return out;
}

// Terminal columns of a UTF-8 line: CJK ideographs and full-width punctuation take two.
size_t screen_width(const std::string& s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    // Three-byte sequences from E2 BA 80 (U+2E80) up are the wide CJK blocks used here.
    const bool wide =
        len == 3 && (c > 0xE2 || (c == 0xE2 && static_cast<unsigned char>(s[i + 1]) >= 0xBA));
    width += wide ? 2 : 1;
    i += len;
  }
  return width;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// Units and names a Chinese table keeps as they are.
const std::set<std::string> kKept = {
    "GPU",  "GPUs", "TFLOPS", "TDP",   "NVLink", "ECC",      "bf16",   "fp8",  "GiB",
    "HF",   "kW",   "BTU",    "UPS",   "kVA",    "kWh",      "JSON",   "docs", "method",
    "data", "gpus", "csv",    "costs", "json",   "gpusizer", "tokens", "cost"};

TEST(RenderLang, CatalogTablesHaveChineseHeaders) {
  const nlohmann::json gpus = gpus_json();
  for (bool markdown : {false, true}) {
    const std::string zh = first_line(render_gpus(gpus, markdown, Lang::kZh));
    EXPECT_NE(zh.find("厂商"), std::string::npos) << zh;
    EXPECT_EQ(english_words(zh, kKept), std::vector<std::string>{}) << zh;
    // English stays as it was (outside checks read it).
    EXPECT_NE(first_line(render_gpus(gpus, markdown)).find("vendor"), std::string::npos);
  }
  const nlohmann::json models = models_json();
  for (bool markdown : {false, true}) {
    const std::string zh = first_line(render_models(models, markdown, Lang::kZh));
    EXPECT_NE(zh.find("参数量"), std::string::npos) << zh;
    EXPECT_EQ(english_words(zh, kKept), std::vector<std::string>{}) << zh;
    EXPECT_NE(first_line(render_models(models, markdown)).find("family"), std::string::npos);
  }
}

TEST(RenderLang, ValidationTableHasChineseTitlesAndHeaders) {
  // A report of one memory group and one speed metric, written by hand in the shape
  // `gpusizer validate --format json` gives.
  const nlohmann::json report = nlohmann::json::parse(R"json({
    "memory": {"groups": [{"group": "QWEN25", "n": 2, "median_abs_error": 0.01,
                           "p90_abs_error": 0.02, "max_abs_error": 0.03,
                           "median_signed_error": 0.01}],
               "cases": [], "excluded": 1,
               "band_coverage": [{"use": "all", "inside": 1, "n": 2, "share": 0.5}]},
    "speed": {"summary": [{"group": "(all)", "use": "all", "metric": "decode_tokens_per_s",
                           "n": 3, "median_abs_error": 0.1, "p90_abs_error": 0.2,
                           "max_abs_error": 0.3, "median_error": -0.1}],
              "failed": 0,
              "band_coverage": [{"kind": "decode", "use": "all", "inside": 2, "n": 3,
                                 "share": 0.667}]}})json");
  const std::string zh = render_validation(report, false, Lang::kZh);
  EXPECT_NE(zh.find("显存，按来源（绝对相对误差）"), std::string::npos) << zh;
  EXPECT_NE(zh.find("1 个案例按设计排除，0 个运行失败"), std::string::npos) << zh;
  EXPECT_NE(zh.find("1/2 (50%)"), std::string::npos) << zh;  // 1 of 2 inside the band
  std::istringstream lines(zh);
  for (std::string line; std::getline(lines, line);) {
    // Row names are ids (QWEN25, decode_tokens_per_s); every other word is translated.
    if (line.find("QWEN25") != std::string::npos || line.find("_") != std::string::npos) continue;
    EXPECT_EQ(english_words(line, kKept), std::vector<std::string>{}) << line;
  }
  EXPECT_NE(render_validation(report, false).find("memory, by source (absolute relative error)"),
            std::string::npos);
}

TEST(RenderLang, RecommendationTableHasChineseLabels) {
  // A 70B model: cards too small even when split (RTX 2080 Ti, 3080 10GB) are rejected, so the
  // table has its rejected section.
  nlohmann::json rec = recommend_json({{"model", "llama-2-70b"}, {"limit", 3}});
  localize(rec, Lang::kZh);
  const std::string zh = render_recommendation(rec, false, Lang::kZh);
  // The advisor keeps 10% of memory free unless told otherwise (docs/advisor.md).
  EXPECT_EQ(first_line(zh), "方案，按 cost 排序，最优在前（预留显存 10%）");
  for (const char* english :
       {"Options, best first", "headroom", "throughput", "machines", "binding", "score",
        "objective:", "lower is better", "Rejected", "warning:", " node", " rack"})
    EXPECT_EQ(zh.find(english), std::string::npos) << english << " in\n" << zh;
  EXPECT_NE(zh.find("限制因素"), std::string::npos) << zh;
  EXPECT_NE(zh.find("已排除"), std::string::npos) << zh;
  // The terminal columns line up: every cell is padded to its column, so every line of the table
  // is as wide on screen as the header, a Chinese character taking two columns (UAX #11).
  std::istringstream lines(zh);
  std::string line;
  std::getline(lines, line);  // title
  std::getline(lines, line);  // blank
  std::getline(lines, line);  // header
  const size_t width = screen_width(line);
  EXPECT_NE(line.find("卡数"), std::string::npos) << line;
  for (int row = 0; row < 3 && std::getline(lines, line); ++row)
    EXPECT_EQ(screen_width(line), width) << line;
  const std::string en = render_recommendation(recommend_json({{"model", "llama-2-7b"}}), false);
  EXPECT_NE(en.find("Options, best first by cost (memory kept free: 10%)"), std::string::npos);
}

TEST(RenderLang, BuyersReportHasChineseHeadings) {
  nlohmann::json report = report_json({{"model", "llama-2-7b"}, {"gpus", {"h100-sxm5-80gb"}}});
  localize(report, Lang::kZh);
  const std::string zh = render_report_markdown(report, Lang::kZh);
  for (const char* heading : {"# GPU 采购申请：", "## 1. 模型与场景", "## 3. 方案",
                              "## 4. 上云还是自建", "## 5. 功耗与机房", "## 6. 风险"})
    EXPECT_NE(zh.find(heading), std::string::npos) << heading << " missing in\n" << zh;
  for (const char* english : {"Model and scenario", "Why the first option",
                              "Break-even:", "Verdict:", "Rack budget", "Cooling"})
    EXPECT_EQ(zh.find(english), std::string::npos) << english << " in\n" << zh;
}

TEST(RenderLang, FitTableHasChineseLabels) {
  nlohmann::json fit = fit_models_json({{"gpu", "h100-sxm5-80gb"}});
  localize(fit, Lang::kZh);
  const std::string zh = render_fit(fit, false, Lang::kZh);
  EXPECT_NE(zh.find("能放下的最大模型"), std::string::npos) << zh;
  EXPECT_NE(zh.find("最大上下文"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("Largest models"), std::string::npos) << zh;
}

}  // namespace
}  // namespace gpusizer
