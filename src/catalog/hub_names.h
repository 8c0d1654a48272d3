#pragma once
// Hugging Face repository names the catalog does not list as written: a fine-tuned or quantized
// re-upload of a catalog model keeps its architecture ("Qwen/Qwen2.5-72B-Instruct-AWQ" is
// Qwen2.5-72B with AWQ weights), so Catalog::reupload_base tries it under shorter spellings.
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// The spellings `name` is tried under when the catalog lacks it, longest first: without its
/// organisation ("unsloth/"), without the suffix of a quantized re-upload ("-AWQ", "-GPTQ-Int4",
/// "-FP8", "-bnb-4bit"), a release date ("-2507", "-0528") and a post-training suffix
/// ("-Instruct", "-Chat", "-it"), which leave the architecture as it is; "Meta-Llama-3.1-..." is
/// also tried as "Llama-3.1-...". Lower case; empty when nothing can be taken off.
std::vector<std::string> hub_spellings(std::string_view name);

/// The weights format a repository name's quantization suffix says it ships: "awq-int4" for
/// "-AWQ", "gptq-int4" for "-GPTQ-Int4" and Qwen's "-Int4", "gptq-int8", "fp8" for "-FP8" (and
/// "-FP8-Dynamic"), "nf4" for unsloth's "-bnb-4bit"; empty without one.
std::string_view hub_suffix_format(std::string_view name);

}  // namespace gpusizer
