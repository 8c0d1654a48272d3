// Hugging Face names of re-uploads, read as the catalog model they were made from.
#include "catalog/hub_names.h"

#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

TEST(HubNames, SpellingsTakeOffOrganisationQuantizationDateAndPostTraining) {
  EXPECT_EQ(hub_spellings("Qwen/Qwen2.5-72B-Instruct-AWQ"),
            (std::vector<std::string>{"qwen2.5-72b-instruct-awq", "qwen2.5-72b-instruct",
                                      "qwen2.5-72b"}));
  EXPECT_EQ(hub_spellings("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"),
            (std::vector<std::string>{"qwen3-235b-a22b-instruct-2507-fp8",
                                      "qwen3-235b-a22b-instruct-2507", "qwen3-235b-a22b-instruct",
                                      "qwen3-235b-a22b"}));
  EXPECT_EQ(hub_spellings("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4"),
            (std::vector<std::string>{"meta-llama-3.1-70b-instruct-awq-int4",
                                      "meta-llama-3.1-70b-instruct", "meta-llama-3.1-70b",
                                      "llama-3.1-70b-instruct-awq-int4", "llama-3.1-70b-instruct",
                                      "llama-3.1-70b"}));
  EXPECT_EQ(hub_spellings("gemma-2-9b-it"), (std::vector<std::string>{"gemma-2-9b"}));
  EXPECT_TRUE(hub_spellings("llama-3.1-8b").empty());
  EXPECT_TRUE(hub_spellings("-awq").empty());  // a suffix alone names nothing
}

TEST(HubNames, SuffixFormat) {
  EXPECT_EQ(hub_suffix_format("Qwen/Qwen2.5-72B-Instruct-AWQ"), "awq-int4");
  EXPECT_EQ(hub_suffix_format("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8"), "gptq-int8");
  EXPECT_EQ(hub_suffix_format("Qwen/Qwen-7B-Chat-Int4"), "gptq-int4");
  EXPECT_EQ(hub_suffix_format("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic"), "fp8");
  EXPECT_EQ(hub_suffix_format("unsloth/Llama-3.1-8B-Instruct-bnb-4bit"), "nf4");
  EXPECT_EQ(hub_suffix_format("Qwen/Qwen3-8B"), "");
  EXPECT_EQ(hub_suffix_format("google/gemma-2-9b-it"), "");
  EXPECT_EQ(hub_suffix_format(""), "");
}

// The catalog names the model these were made from; the scenario serves the format the name
// says, and a name the catalog cannot shorten to one of its own still fails.
TEST(HubNames, CatalogAndScenarioReadAReuploadAsItsBaseModel) {
  const Catalog& c = Catalog::builtin();
  auto base_id = [&c](const char* name) {
    const std::optional<ModelRef> base = c.reupload_base(name);
    return base ? (*base)->id : std::string("none");
  };
  EXPECT_EQ(base_id("Llama-3.1-8B-Instruct"), "llama-3.1-8b");
  EXPECT_EQ(base_id("unsloth/Llama-3.1-8B-Instruct"), "llama-3.1-8b");
  EXPECT_EQ(base_id("Qwen2.5-7B-Instruct"), "qwen2.5-7b");
  EXPECT_EQ(base_id("Qwen/Qwen3-235B-A22B-Instruct-2507"), "qwen3-235b-a22b");
  EXPECT_EQ(base_id("deepseek-ai/DeepSeek-R1-0528"), "none");  // an alias: model() answers it
  EXPECT_EQ(base_id("llama-3.3-70b-instruct"), "none");  // a catalog name: model() answers it
  EXPECT_EQ(base_id("Qwen/Qwen9-8B-Instruct"), "none");
  EXPECT_THROW(c.model("Llama-3.1-8B-Instruct"), InputError);  // the catalog's own names only
  EXPECT_EQ(parse_scenario({{"model", "Llama-3.1-8B-Instruct"}}, c).model->id, "llama-3.1-8b");

  const Scenario awq = parse_scenario({{"model", "Qwen/Qwen2.5-72B-Instruct-AWQ"}}, c);
  EXPECT_EQ(awq.model->id, "qwen2.5-72b");
  EXPECT_EQ(awq.weights->id, "awq-int4");
  const Scenario fp8 = parse_scenario({{"model", "Qwen/Qwen3-8B-FP8"}}, c);
  EXPECT_EQ(fp8.weights->id, "fp8");
  // Training upcasts, as for any quantized checkpoint (scenario.cc default_weights).
  const Scenario lora = parse_scenario({{"model", "Qwen/Qwen3-8B-FP8"}, {"task", "lora"}}, c);
  EXPECT_EQ(lora.weights->id, "bf16");
  const Scenario bnb =
      parse_scenario({{"model", "unsloth/Llama-3.1-8B-Instruct-bnb-4bit"}, {"task", "qlora"}}, c);
  EXPECT_EQ(bnb.weights->id, "nf4");
}

}  // namespace
}  // namespace gpusizer
