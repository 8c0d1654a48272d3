// The one door for data: every data file loads from the embedded copy or a directory, file by
// file, through Catalog; a bad value is an error naming the file.
#include "gpusizer/catalog.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "embed/embedded.h"
#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;

class DataDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpusizer-data-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Writes data file `name` with `text`.
  void write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // The embedded copy of `name` with the first match of `pattern` replaced.
  static std::string edited(const std::string& name, const std::string& pattern,
                            const std::string& replacement) {
    const std::string text(embedded::find(name));
    return std::regex_replace(text, std::regex(pattern), replacement,
                              std::regex_constants::format_first_only);
  }
  // The InputError message of loading the directory ("" when it loads).
  std::string load_error() {
    try {
      (void)Catalog::load(dir_.string());
    } catch (const InputError& e) {
      EXPECT_EQ(e.code(), "bad_file");
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

double decode_tokens_per_s(const Catalog& catalog) {
  const Scenario s = resolve_scenario(
      {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", "vllm"}}, catalog);
  return *estimate(s, catalog).performance->decode_tokens_per_s;
}

// usable_for is a ';'-separated list (data/formats.csv): a role is usable when it is one of the
// entries, whole; empty entries are entries too.
TEST(NumberFormatRoles, EachEntryWhole) {
  NumberFormat f;
  f.usable_for = "weights;kv";
  EXPECT_TRUE(f.usable_for_role("weights"));
  EXPECT_TRUE(f.usable_for_role("kv"));
  EXPECT_FALSE(f.usable_for_role("k"));
  EXPECT_FALSE(f.usable_for_role("kvx"));
  EXPECT_FALSE(f.usable_for_role("weight"));
  EXPECT_FALSE(f.usable_for_role("weights;kv"));
  EXPECT_FALSE(f.usable_for_role(""));
  f.usable_for = "activations";
  EXPECT_TRUE(f.usable_for_role("activations"));
  EXPECT_FALSE(f.usable_for_role("kv"));
  f.usable_for = "a;;b";
  EXPECT_TRUE(f.usable_for_role(""));
  EXPECT_TRUE(f.usable_for_role("b"));
  f.usable_for = "";
  EXPECT_TRUE(f.usable_for_role(""));
  EXPECT_FALSE(f.usable_for_role("kv"));
  // Every catalog row that names a role is found for it, and not for another.
  for (const NumberFormat& row : Catalog::builtin().formats())
    EXPECT_EQ(row.usable_for_role("kv"),
              (";" + row.usable_for + ";").find(";kv;") != std::string::npos)
        << row.id;
}

// A thread keeps its last format look-ups (catalog.cc FoundFormats): each answers only for its
// own spelling, role and table. From data/formats.csv: bf16 is 16 bits and usable for weights,
// kv, activations and optimizer; tf32 for activations alone; nf4 (4.127 bits) for weights alone.
TEST(CatalogFormats, KeptLookUpsAnswerForTheirSpellingRoleAndTable) {
  const Catalog& built_in = Catalog::builtin();
  const std::string weights = "weights", kv = "kv", activations = "activations";
  const NumberFormat& bf16 = built_in.format("bf16", weights, "weights");
  EXPECT_EQ(bf16.id, "bf16");
  EXPECT_EQ(bf16.bits_per_value, 16);
  EXPECT_EQ(&built_in.format("bf16", weights, "weights"), &bf16);  // kept: the same row
  EXPECT_EQ(&built_in.format("bf16", kv, "kv_cache"), &bf16);
  EXPECT_EQ(&built_in.format("BF16", weights, "weights"), &bf16);  // another spelling of it
  // A spelling kept for one role says nothing of another.
  EXPECT_EQ(built_in.format("tf32", activations, "x").id, "tf32");
  EXPECT_THROW((void)built_in.format("tf32", weights, "weights"), InputError);
  EXPECT_EQ(built_in.format("nf4", weights, "weights").bits_per_value, 4.127);
  EXPECT_THROW((void)built_in.format("nf4", kv, "kv_cache"), InputError);
  // Another catalog's table, where tf32 also holds weights: its own rows, each way round.
  const std::string formats(embedded::find("formats.csv"));
  const std::string tf32_row = "tf32,float,32,,,activations,";
  ASSERT_NE(formats.find(tf32_row), std::string::npos);
  std::string edited = formats;
  edited.replace(edited.find(tf32_row), tf32_row.size(), "tf32,float,32,,,activations;weights,");
  {
    const Catalog own = Catalog::from_texts({{"formats.csv", edited}});
    const NumberFormat& own_bf16 = own.format("bf16", weights, "weights");
    EXPECT_NE(&own_bf16, &bf16);
    EXPECT_EQ(&own_bf16, &own.formats()[2]);  // bf16 is the table's third row
    EXPECT_EQ(own.format("tf32", weights, "weights").usable_for, "activations;weights");
    EXPECT_THROW((void)built_in.format("tf32", weights, "weights"), InputError);
    EXPECT_EQ(&built_in.format("bf16", weights, "weights"), &bf16);
  }
  // More spellings than are kept: the first is found again, and is the same row.
  for (const char* id : {"fp32", "fp16", "fp8", "int8", "int4"})
    EXPECT_EQ(built_in.format(id, weights, "weights").id, id);
  EXPECT_EQ(&built_in.format("bf16", weights, "weights"), &bf16);
  EXPECT_EQ(&built_in.formats()[2], &bf16);
}

// The same for GPUs and models: a spelling kept answers for its own catalog's tables. From
// data/aliases.csv: "h100" is h100-sxm5-80gb and "a100-80g" a100-sxm4-80gb; from
// data/models.jsonl: mixtral-8x7b-v0.1 has 32 layers and Hugging Face id
// mistralai/Mixtral-8x7B-v0.1.
TEST(CatalogLookUps, KeptGpusAndModelsAnswerForTheirTables) {
  const Catalog& built_in = Catalog::builtin();
  const Gpu& h100 = built_in.gpu("h100");
  EXPECT_EQ(h100.id, "h100-sxm5-80gb");
  EXPECT_EQ(&built_in.gpu("h100"), &h100);
  EXPECT_EQ(&built_in.gpu("h100-sxm5-80gb"), &h100);
  EXPECT_EQ(built_in.gpu("a100-80g").id, "a100-sxm4-80gb");
  EXPECT_THROW((void)built_in.gpu("h100x"), InputError);
  const Model& mixtral = built_in.model("mixtral-8x7b-v0.1");
  EXPECT_EQ(mixtral.num_layers, 32);
  EXPECT_EQ(&built_in.model("mixtral-8x7b-v0.1"), &mixtral);
  EXPECT_EQ(&built_in.model("mistralai/Mixtral-8x7B-v0.1"), &mixtral);
  EXPECT_EQ(&built_in.model("mistralai/Mixtral-8x7B-v0.1"), &mixtral);
  // Another catalog, where "h100" is the PCIe card: its own rows for the same spellings.
  const std::string aliases(embedded::find("aliases.csv"));
  const std::string h100_row = "h100,gpu,h100-sxm5-80gb,";
  ASSERT_NE(aliases.find(h100_row), std::string::npos);
  std::string edited = aliases;
  edited.replace(edited.find(h100_row), h100_row.size(), "h100,gpu,h100-pcie-80gb,");
  {
    const Catalog own = Catalog::from_texts({{"aliases.csv", edited}});
    EXPECT_EQ(own.gpu("h100").id, "h100-pcie-80gb");
    EXPECT_EQ(own.gpu("h100").id, "h100-pcie-80gb");
    EXPECT_EQ(&built_in.gpu("h100"), &h100);
    const Model& own_mixtral = own.model("mixtral-8x7b-v0.1");
    EXPECT_NE(&own_mixtral, &mixtral);
    EXPECT_EQ(own_mixtral.num_layers, 32);
  }
  // More spellings than are kept: the first is found again, the same row.
  for (const char* id : {"a100-80g", "rtx4090", "3090", "4090d", "4090"}) (void)built_in.gpu(id);
  EXPECT_EQ(&built_in.gpu("h100"), &h100);
}

TEST_F(DataDir, MissingDirectoryIsAnError) {
  EXPECT_THROW((void)Catalog::load((dir_ / "nope").string()), InputError);
  write("gpus.csv", std::string(embedded::find("gpus.csv")));
  EXPECT_THROW((void)Catalog::load((dir_ / "gpus.csv").string()), InputError);  // a file
}

TEST_F(DataDir, EmptyDirectoryIsTheBuiltInData) {
  const Catalog c = Catalog::load(dir_.string());
  EXPECT_EQ(c.gpus().size(), Catalog::embedded().gpus().size());
  EXPECT_EQ(c.speed().links().nvlink_eff, Catalog::embedded().speed().links().nvlink_eff);
}

TEST_F(DataDir, SpeedProfileFromTheDirectoryIsUsed) {
  // Batch-1 decode is memory-bound: bytes / (bandwidth x bw_eff) plus a fixed step overhead, so
  // cutting vLLM's bw_eff from 0.80 to 0.08 must slow it several-fold (it was ignored before:
  // --data-dir read speed.json from GPUSIZER_DATA_DIR only).
  // The first bw_eff in vllm's entry is the engine's (its vendors' builds come after).
  write("speed.json", edited("speed.json", R"(("vllm": \{[^}]*?"bw_eff": )[0-9.]+)", "$010.08"));
  const Catalog slow = Catalog::load(dir_.string());
  EXPECT_DOUBLE_EQ(slow.speed().inference("vllm").bw_eff, 0.08);
  EXPECT_LT(decode_tokens_per_s(slow), decode_tokens_per_s(Catalog::embedded()) / 5);
}

TEST_F(DataDir, CostsAndFacilityFromTheDirectoryAreUsed) {
  write("costs.json", edited("costs.json", R"("pue": 1.5)", R"("pue": 1.2)"));
  write("facility.json",
        edited("facility.json", R"("rack_budget_watts": 6000)", R"("rack_budget_watts": 3000)"));
  const Catalog c = Catalog::load(dir_.string());
  EXPECT_DOUBLE_EQ(c.cost_defaults().pue, 1.2);
  EXPECT_DOUBLE_EQ(c.facility_defaults().rack_budget_watts, 3000);
  const Scenario s = resolve_scenario({{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}}, c);
  EXPECT_DOUBLE_EQ(*estimate(s, c).power.rack_budget_watts, 3000);
}

TEST_F(DataDir, NonFiniteOrNegativeGpuFiguresNameFileLineAndColumn) {
  // Row 2 of gpus.csv is the first GPU; its memory_gb is the 9th column.
  write("gpus.csv",
        edited("gpus.csv",
               R"(\n([^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,)[0-9.]+,)",
               "\n$1inf,"));
  EXPECT_NE(load_error().find("gpus.csv line 2: memory_gb"), std::string::npos) << load_error();
  write(
      "gpus.csv",
      edited(
          "gpus.csv",
          R"(\n([^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,)[0-9.]+,)",
          "\n$1-900,"));
  EXPECT_NE(load_error().find("memory_bandwidth_gbps"), std::string::npos) << load_error();
}

TEST_F(DataDir, NulByteNamesTheFile) {
  write("models.jsonl", std::string(embedded::find("models.jsonl")) + std::string(1, '\0'));
  EXPECT_NE(load_error().find("models.jsonl"), std::string::npos);
}

TEST_F(DataDir, MisspeltProfileKeyIsAnErrorNotADefault) {
  write("speed.json", edited("speed.json", R"("vllm": \{)", R"("vllm": {"bw_efff": 0.5,)"));
  const std::string e = load_error();
  EXPECT_NE(e.find("bw_efff"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'bw_eff'"), std::string::npos) << e;
  write("speed.json", std::string(embedded::find("speed.json")));
  write("engines.json",
        edited("engines.json", R"("stage3_max_live_parameters")", R"("stage3_max_live_params")"));
  EXPECT_NE(load_error().find("stage3_max_live_params"), std::string::npos);
}

TEST_F(DataDir, MissingSiteFigureIsAnError) {
  write("costs.json", edited("costs.json", R"("pue": 1.5,)", ""));
  EXPECT_NE(load_error().find("costs.json.pue"), std::string::npos) << load_error();
}

// Figures that live in data files have no C++ stand-in: before, a speed.json without them took 256
// sequences and a LoRA cost of 0.1 from C++ initialisers, and a missing server class the PCIe
// figure.
TEST_F(DataDir, MissingFittedFigureIsAnErrorNotACppDefault) {
  write("speed.json", edited("speed.json", R"("max_num_seqs": 256,)", ""));
  EXPECT_NE(load_error().find("speed.json inference.defaults.max_num_seqs"), std::string::npos)
      << load_error();
  write("speed.json", edited("speed.json", R"("lora_extra_cost": 0.0,)", ""));
  EXPECT_NE(load_error().find("lora_extra_cost"), std::string::npos) << load_error();
  write("speed.json", std::string(embedded::find("speed.json")));
  // costs.json without the SXM class: the catalog loads; a scenario that prices its own servers
  // by class (costs.server_usd_per_node) for A100 SXM GPUs finds no SXM figure, and the error
  // names the key instead of taking the PCIe one.
  write("costs.json", edited("costs.json", R"("SXM": 60000,)", ""));
  const Catalog c = Catalog::load(dir_.string());
  const nlohmann::json scenario = {{"model", "llama-2-7b"},
                                   {"gpu", "a100-sxm4-80gb"},
                                   {"gpu_count", 8},
                                   {"costs", {{"server_usd_per_node", {{"PCIe", 1}}}}}};
  try {
    (void)estimate(resolve_scenario(scenario, c), c);
    ADD_FAILURE() << "an SXM server's price was assumed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("server_usd_per_node.SXM"), std::string::npos) << e.what();
  }
}

// The speed and engine figures that had C++ stand-ins (a CV efficiency of 0.4, kernel scales of
// 1, an attention fraction of 0.6, a ZeRO limit of 3, flags off) are required keys now.
TEST_F(DataDir, MissingSpeedOrEngineFigureNamesTheFileAndKey) {
  write("speed.json", edited("speed.json", R"(,\s*"tf32": 0.4)", ""));
  EXPECT_NE(load_error().find("speed.json cv.eff.tf32: is missing"), std::string::npos)
      << load_error();
  write("speed.json", edited("speed.json", R"("AMD": \{\s*"bw_scale": [0-9.]+,)", R"("AMD": {)"));
  EXPECT_NE(load_error().find("speed.json vendors.AMD.bw_scale: is missing"), std::string::npos)
      << load_error();
  write("speed.json", std::string(embedded::find("speed.json")));
  write("engines.json", edited("engines.json", R"("naive_pipeline": true,)", ""));
  EXPECT_NE(load_error().find("engines.json hf.naive_pipeline: is missing"), std::string::npos)
      << load_error();
}

TEST_F(DataDir, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_ / "gpus.csv").c_str(), 0600), 0);
  EXPECT_NE(load_error().find("not a regular file"), std::string::npos);
}

TEST(CatalogFormats, EmbeddingAndHeadFormatsResolveToTheirBits) {
  // q4_k_m keeps the token embedding in q4_k (4.5 bits) and the head in q6_k (6.5625 bits),
  // as llama.cpp's llama_model_quantize does (data/formats.csv).
  const Catalog& c = Catalog::builtin();
  const NumberFormat& f = c.format("q4_k_m", "weights", "weights");
  const NumberFormat& head = c.format(f.lm_head_format, "weights", "weights");
  EXPECT_DOUBLE_EQ(f.lm_head_bytes_per_value(), head.bits_per_value / 8);
  EXPECT_DOUBLE_EQ(c.format("bf16", "weights", "weights").embedding_bytes_per_value(), 2.0);
}

TEST(CatalogFormats, Mxfp4KeepsTheMatricesOutsideTheExpertsInBf16) {
  // gpt-oss's mxfp4 covers the routed experts only (4 + 8/32 bits); attention is bf16 (2 B).
  const Catalog& c = Catalog::builtin();
  const NumberFormat& f = c.format("mxfp4", "weights", "weights");
  EXPECT_DOUBLE_EQ(f.bytes_per_value(), 4.25 / 8);
  EXPECT_DOUBLE_EQ(f.dense_bytes_per_value(true), 2.0);
  // A dense model has no routed experts: every matrix takes the format.
  EXPECT_DOUBLE_EQ(f.dense_bytes_per_value(false), 4.25 / 8);
  EXPECT_DOUBLE_EQ(c.format("nf4", "weights", "weights").dense_bytes_per_value(true), 4.127 / 8);
}

// A model row's checkpoint_format is the default weights format of serving it (scenario.cc
// default_weights), so it must name a weights format; six rows ship quantized checkpoints.
TEST(CatalogModels, CheckpointFormatsAreWeightsFormats) {
  const Catalog& c = Catalog::builtin();
  int quantized = 0;
  for (const Model& m : c.models()) {
    if (m.checkpoint_format.empty()) continue;
    ++quantized;
    EXPECT_NO_THROW(c.format(m.checkpoint_format, "weights", "weights")) << m.name;
  }
  EXPECT_EQ(quantized, 6);
  EXPECT_EQ(c.model("kimi-k2-instruct").checkpoint_format, "fp8");
}

}  // namespace
}  // namespace gpusizer
