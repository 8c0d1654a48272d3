// Local model stores over fake stores in a temporary folder (layouts in model_store.cc): the
// three stores resolve to their files, the importers read them exactly, broken entries name the
// file, and names that could leave a store are not looked up.
#include "gpusizer/model_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/scenario.h"
#include "importers/test_stores.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;

class ModelStores : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("gpusizer_stores_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    testing::make_fake_stores(root_);
    env_ = {{"HOME", (root_ / "home").string()},
            {"HF_HUB_CACHE", (root_ / "hf").string()},
            {"MODELSCOPE_CACHE", (root_ / "ms").string()},
            {"OLLAMA_MODELS", (root_ / "ollama").string()}};
  }
  void TearDown() override { fs::remove_all(root_); }
  StoreAccess access(const std::string& stores = "all") const {
    auto env = env_;
    return {parse_store_list(stores, "stores"),
            [env](const std::string& k) -> std::optional<std::string> {
              auto it = env.find(k);
              return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
            }};
  }
  fs::path root_;
  std::map<std::string, std::string> env_;
};

TEST_F(ModelStores, HuggingFaceCacheFollowsRefsToTheSnapshot) {
  const auto m = find_local_model("acme/tiny", access());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->store, ModelStore::kHfCache);
  EXPECT_EQ(store_id(m->store), "hf-cache");
  EXPECT_EQ(fs::path(m->path), root_ / "hf" / "models--acme--tiny" / "snapshots" / "c0ffee1234");
  const ImportedModel im = import_local_model(*m);
  ASSERT_TRUE(im.weights);
  EXPECT_EQ(im.weights->elements, testing::kStoreTinyParams);  // 1,704 (test_stores.h)
  EXPECT_EQ(count_params(im.model).total, testing::kStoreTinyParams);
  EXPECT_EQ(im.weights->total_bytes, 2.0 * testing::kStoreTinyParams);  // BF16
}

TEST_F(ModelStores, HfHomeAndHomeGiveTheDefaultRoots) {
  // HF_HOME/hub when HF_HUB_CACHE is unset; ~/.cache/huggingface/hub when neither is.
  env_.erase("HF_HUB_CACHE");
  env_["HF_HOME"] = (root_ / "hfhome").string();
  fs::create_directories(root_ / "hfhome");
  fs::rename(root_ / "hf", root_ / "hfhome" / "hub");
  EXPECT_TRUE(find_local_model("acme/tiny", access("hf")));
  env_.erase("HF_HOME");
  fs::create_directories(root_ / "home" / ".cache" / "huggingface");
  fs::rename(root_ / "hfhome" / "hub", root_ / "home" / ".cache" / "huggingface" / "hub");
  EXPECT_TRUE(find_local_model("acme/tiny", access("hf")));
}

TEST_F(ModelStores, ModelScopeNameWithDotsMapsToItsFolder) {
  // ModelScope writes "Tiny2.5-0.5B" as "Tiny2___5-0___5B" under hub/models/ORG.
  const auto m = find_local_model("qwen/Tiny2.5-0.5B", access());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->store, ModelStore::kModelScope);
  EXPECT_EQ(import_local_model(*m).weights->elements, testing::kStoreTinyParams);
  EXPECT_FALSE(find_local_model("qwen/Tiny2.5-0.5B", access("hf,ollama")));
}

TEST_F(ModelStores, OllamaTagResolvesThroughTheManifestToTheGgufBlob) {
  const auto m = find_local_model("tiny:q4", access());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->store, ModelStore::kOllama);
  EXPECT_EQ(fs::path(m->path).filename(), std::string("sha256-") + testing::kOllamaDigest);
  const ImportedModel im = import_local_model(*m);
  EXPECT_EQ(im.weights->elements, testing::kStoreGgufParams);  // 1,692,928 (test_stores.h)
  EXPECT_EQ(count_params(im.model).total, testing::kStoreGgufParams);
  EXPECT_EQ(im.weights_format, "q4_k_m");
  // No tag means "latest", which this store does not hold; other namespaces are not library.
  EXPECT_FALSE(find_local_model("tiny", access()));
  EXPECT_FALSE(find_local_model("someone/tiny:q4", access()));
}

TEST_F(ModelStores, NamesThatCouldLeaveTheStoreAreNotLookedUp) {
  for (const char* name : {"../hf/models--acme--tiny", "acme/../tiny", "/etc/passwd", ".hidden/x",
                           "acme/tiny/extra/parts", "tiny:../q4", "acme tiny", ""})
    EXPECT_FALSE(find_local_model(name, access())) << name;
  EXPECT_FALSE(find_local_model("acme/tiny", access("none")));
  EXPECT_FALSE(find_local_model("acme/tiny", StoreAccess{}));
}

TEST_F(ModelStores, BrokenEntriesNameTheFile) {
  // refs/main names a snapshot that is gone.
  fs::remove_all(root_ / "hf" / "models--acme--tiny" / "snapshots" / "c0ffee1234");
  try {
    find_local_model("acme/tiny", access());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), "bad_file");
    EXPECT_NE(std::string(e.what()).find("refs/main"), std::string::npos) << e.what();
  }
  // A manifest whose model blob is missing, and one that is not JSON.
  fs::remove(root_ / "ollama" / "blobs" / (std::string("sha256-") + testing::kOllamaDigest));
  try {
    find_local_model("tiny:q4", access());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("manifests/registry.ollama.ai/library/tiny/q4"),
              std::string::npos)
        << e.what();
  }
  testing::write_file(
      root_ / "ollama" / "manifests" / "registry.ollama.ai" / "library" / "bad" / "latest",
      "{\"layers\": [");
  EXPECT_THROW(find_local_model("bad", access()), InputError);
}

TEST(OllamaManifest, ParsesTheModelLayerAndChecksTheDigest) {
  const std::string hex(64, 'a');
  const auto m = parse_ollama_manifest(
      R"({"layers":[{"mediaType":"application/vnd.ollama.image.template","size":10},
                    {"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
          hex + R"(","size":4000}]})",
      "m");
  EXPECT_EQ(m.model_digest, "sha256:" + hex);
  EXPECT_EQ(m.layer_bytes, 4010);
  EXPECT_THROW(parse_ollama_manifest(R"({"layers":[]})", "m"), InputError);
  EXPECT_THROW(parse_ollama_manifest(
                   R"({"layers":[{"mediaType":"application/vnd.ollama.image.model",
                                  "digest":"sha256:../../etc/passwd"}]})",
                   "m"),
               InputError);
  EXPECT_THROW(parse_ollama_manifest(std::string(100, '['), "m"), InputError);
  EXPECT_THROW(parse_ollama_manifest("[1]", "m"), InputError);
}

TEST(StoreList, ParsesNamesAndRefusesUnknownOnes) {
  EXPECT_EQ(parse_store_list("hf,ollama", "f").size(), 2u);
  EXPECT_EQ(parse_store_list("all", "f").size(), 3u);
  EXPECT_TRUE(parse_store_list("", "f").empty());
  EXPECT_TRUE(parse_store_list("none", "f").empty());
  EXPECT_THROW(parse_store_list("hf,civitai", "--model-stores"), InputError);
}

TEST_F(ModelStores, ListingShowsEveryEntryWithSizes) {
  testing::write_file(root_ / "hf" / "models--acme--broken" / "refs" / "main", "deadbeef");
  const auto all = list_local_models(access());
  std::map<std::string, const LocalListing*> by_name;
  for (const auto& l : all) by_name[l.model.name] = &l;
  ASSERT_EQ(all.size(), 4u);
  ASSERT_TRUE(by_name.count("acme/tiny") && by_name.count("qwen/Tiny2.5-0.5B") &&
              by_name.count("tiny:q4") && by_name.count("acme/broken"));
  // The snapshot's bytes are its config and safetensors file, followed through the links.
  const double st =
      static_cast<double>(testing::safetensors_file(testing::store_tiny_tensors()).size() +
                          std::string(testing::kStoreTinyConfig).size());
  EXPECT_EQ(by_name["acme/tiny"]->bytes, st);
  EXPECT_EQ(by_name["qwen/Tiny2.5-0.5B"]->bytes, st);
  // Ollama: the manifest's layers, model plus parameters (100 bytes).
  EXPECT_EQ(by_name["tiny:q4"]->bytes,
            static_cast<double>(testing::tiny_llama_gguf().size()) + 100.0);
  EXPECT_NE(by_name["acme/broken"]->error.find("snapshot"), std::string::npos);
}

TEST_F(ModelStores, ScenarioNamesResolveWhenTheCatalogAllowsIt) {
  const nlohmann::json input = {{"model", "acme/tiny"}};
  EXPECT_THROW(parse_scenario(input, Catalog::builtin()), InputError);  // off by default
  Catalog hf = Catalog::builtin(), ollama = Catalog::builtin();
  hf.allow_model_stores(access("hf"));
  ollama.allow_model_stores(access("ollama"));
  const Scenario s = parse_scenario(input, hf);
  const Scenario o = parse_scenario({{"model", "tiny:q4"}}, ollama);
  // Each catalog reads only its own store.
  EXPECT_THROW(parse_scenario(input, ollama), InputError);
  EXPECT_EQ(s.model_origin, "hf-cache");
  ASSERT_TRUE(s.weights_file);
  EXPECT_EQ(s.weights_file->elements, testing::kStoreTinyParams);
  bool noted = false;
  for (const auto& n : s.notes) noted |= n.find("snapshots/c0ffee1234") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(o.model_origin, "ollama");
  EXPECT_EQ(o.weights->id, "q4_k_m");
}

// A re-upload in a store is read from its own config.json there; only without one is its id read
// as the catalog model it was made from (Catalog::reupload_base).
TEST_F(ModelStores, AReuploadInAStoreIsReadFromItsOwnFiles) {
  const fs::path repo = root_ / "hf" / "models--Qwen--Qwen2.5-7B-Instruct-AWQ";
  testing::write_file(repo / "refs" / "main", "abc\n");
  testing::write_file(repo / "snapshots" / "abc" / "config.json", testing::kStoreTinyConfig);
  const nlohmann::json input = {{"model", "Qwen/Qwen2.5-7B-Instruct-AWQ"}};
  Catalog hf = Catalog::builtin();
  hf.allow_model_stores(access("hf"));
  const Scenario stored = parse_scenario(input, hf);
  EXPECT_EQ(stored.model_origin, "hf-cache");
  EXPECT_EQ(stored.model->hidden_size, 8);
  const Scenario base = parse_scenario(input, Catalog::builtin());
  EXPECT_EQ(base.model_origin, "catalog");
  EXPECT_EQ(base.model->id, "qwen2.5-7b");
  EXPECT_EQ(base.weights->id, "awq-int4");
}

}  // namespace
}  // namespace gpusizer
