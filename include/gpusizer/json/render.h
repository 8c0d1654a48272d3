#pragma once
// Text renderings shared by the CLI and the server: terminal tables and markdown, built from the
// contract JSON so every face shows the same numbers.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/lang.h"

namespace gpusizer {

/// An estimate as a terminal table with a bar per component against the GPU's capacity. The
/// table's own labels are in `lang` (the estimate's texts are localized before, see lang.h).
std::string render_estimate_table(const nlohmann::json& estimate, Lang lang = Lang::kEn);
/// An estimate as a markdown table (for issues and purchase requests), labels in `lang`.
std::string render_estimate_markdown(const nlohmann::json& estimate, Lang lang = Lang::kEn);
/// The GPU catalog as a table or markdown, its labels in `lang`. The rows' notes and sources are
/// not in the table; they stay as the data files write them (docs/design.md, Language).
std::string render_gpus(const nlohmann::json& gpus, bool markdown, Lang lang = Lang::kEn);
/// The model catalog as a table or markdown, labels in `lang`.
std::string render_models(const nlohmann::json& models, bool markdown, Lang lang = Lang::kEn);
/// A validation report as a table or markdown, labels in `lang` (docs/validation.md is English).
std::string render_validation(const nlohmann::json& report, bool markdown, Lang lang = Lang::kEn);

/// A recommendation (options, rejected GPUs, changes) as a table or markdown, labels in `lang`
/// (its texts are localized before, see lang.h).
std::string render_recommendation(const nlohmann::json& recommendation, bool markdown,
                                  Lang lang = Lang::kEn);
/// The reverse fit (largest models, contexts and batches for given GPUs) as a table or markdown.
std::string render_fit(const nlohmann::json& fit, bool markdown, Lang lang = Lang::kEn);
/// The buyer's report (report_json) as a markdown document for a purchase request.
std::string render_report_markdown(const nlohmann::json& report, Lang lang = Lang::kEn);

}  // namespace gpusizer
