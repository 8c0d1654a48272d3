#pragma once
// Translating a JSON result in place, and the contract's error object in a language.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/lang.h"

namespace gpusizer {

/// Translates, in place, every human-readable text of a result of estimate, recommend, fit,
/// report, check or an error object: warnings, reasons, rejections (why), changes and their
/// costs, verdicts, basis explanations, error messages. Keys, ids and numbers stay.
void localize(nlohmann::json& result, Lang lang);

/// The error object of the contract, extended: {"error": {"code", "message", "field"}} with
/// `field` the field the message names ("" when none) and, when the message offers names
/// ("did you mean a, b?", "it matches a, b"), "suggestions": ["a", "b"]. The message is in
/// `lang`.
nlohmann::json error_json(const std::string& code, const std::string& message,
                          const std::string& field, Lang lang);

}  // namespace gpusizer
