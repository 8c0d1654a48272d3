#include "catalog/hub_names.h"

#include <array>

namespace gpusizer {

namespace {

struct QuantSuffix {
  std::string_view text;    ///< lower case, with its leading '-'
  std::string_view format;  ///< formats.csv id
};

// The suffixes of quantized re-uploads and the format each ships, longest first where one ends
// another ("-gptq-int4" before "-int4"): Qwen's own "-AWQ", "-GPTQ-Int4/8" and (Qwen 1) "-Int4/8"
// repositories hold AWQ and GPTQ checkpoints (their config.json quantization_config), "-FP8"
// (Qwen3, RedHatAI's "-FP8-dynamic") FP8 ones, hugging-quants' "-AWQ-INT4" AWQ, and unsloth's
// "-bnb-4bit" bitsandbytes NF4.
constexpr std::array<QuantSuffix, 12> kQuantSuffixes = {{
    {"-unsloth-bnb-4bit", "nf4"},
    {"-bnb-4bit", "nf4"},
    {"-awq-int4", "awq-int4"},
    {"-awq", "awq-int4"},
    {"-gptq-int4", "gptq-int4"},
    {"-gptq-int8", "gptq-int8"},
    {"-gptq", "gptq-int4"},
    {"-int4", "gptq-int4"},
    {"-int8", "gptq-int8"},
    {"-fp8-dynamic", "fp8"},
    {"-fp8-static", "fp8"},
    {"-fp8", "fp8"},
}};

// Suffixes of post-trained releases of the same architecture.
constexpr std::array<std::string_view, 6> kPostTraining = {"-instruct", "-chat", "-it",
                                                           "-thinking", "-base", "-hf"};

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;
}

// Whether `s` ends with `suffix` (lower case), ASCII case aside.
bool ends_with_nocase(std::string_view s, std::string_view suffix) {
  if (s.size() <= suffix.size()) return false;  // a suffix alone is no name
  const std::string_view tail = s.substr(s.size() - suffix.size());
  for (size_t i = 0; i < tail.size(); ++i)
    if (lower(tail[i]) != suffix[i]) return false;
  return true;
}

// A release date such as "-2507" or "-0528" (DeepSeek-R1-0528, Qwen3-...-2507).
bool ends_with_date(std::string_view s) {
  if (s.size() < 6 || s[s.size() - 5] != '-') return false;
  for (size_t i = s.size() - 4; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// Takes one suffix off `s`: a quantization suffix, a date or a post-training suffix.
bool strip_one(std::string& s) {
  for (const QuantSuffix& q : kQuantSuffixes)
    if (ends_with_nocase(s, q.text)) {
      s.resize(s.size() - q.text.size());
      return true;
    }
  if (ends_with_date(s)) {
    s.resize(s.size() - 5);
    return true;
  }
  for (const std::string_view p : kPostTraining)
    if (ends_with_nocase(s, p)) {
      s.resize(s.size() - p.size());
      return true;
    }
  return false;
}

}  // namespace

std::vector<std::string> hub_spellings(std::string_view name) {
  std::string s;
  s.reserve(name.size());
  for (const char c : name) s += lower(c);
  std::vector<std::string> out;
  if (const size_t slash = s.rfind('/'); slash != std::string::npos) {
    s.erase(0, slash + 1);
    out.push_back(s);
  }
  // "-Instruct-2507-FP8" holds three suffixes: each is taken off in turn.
  while (strip_one(s)) out.push_back(s);
  // Meta publishes "Meta-Llama-3.1-8B"; the catalog names it "Llama-3.1-8B".
  constexpr std::string_view prefix = "meta-llama-", dropped = "meta-";
  const size_t spelled = out.size();
  for (size_t i = 0; i < spelled; ++i)
    if (out[i].size() > prefix.size() && out[i].starts_with(prefix))
      out.push_back(out[i].substr(dropped.size()));
  return out;
}

std::string_view hub_suffix_format(std::string_view name) {
  for (const QuantSuffix& q : kQuantSuffixes)
    if (ends_with_nocase(name, q.text)) return q.format;
  return {};
}

}  // namespace gpusizer
