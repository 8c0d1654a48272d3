// The server answers in the language asked for (contract v2, "Language"), with the error's field,
// and says what works for a Hugging Face id the catalog lacks.
#include <gtest/gtest.h>
#include <httplib.h>

#include "gpusizer/server.h"
#include "server/server.h"

namespace gpusizer {
namespace {

using nlohmann::json;

class LangServer : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.port = 0;
    options.threads = 2;
    server_ = std::make_unique<HttpServer>(options);
    ASSERT_TRUE(server_->start());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(20, 0);
  }
  json post(const std::string& path, const json& body, const httplib::Headers& headers = {}) {
    auto res = client_->Post(path.c_str(), headers, body.dump(), "application/json");
    EXPECT_TRUE(res);
    if (!res) return json();
    status_ = res->status;
    return json::parse(res->body);
  }
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
  int status_ = 0;
};

const json k70bOnH100 = {{"model", "llama-2-70b"}, {"gpu", "h100"}};

TEST_F(LangServer, QueryAndHeaderChooseChineseAndNumbersStay) {
  const json en = post("/api/v1/estimate", k70bOnH100);
  const json zh = post("/api/v1/estimate?lang=zh", k70bOnH100);
  const json header = post("/api/v1/estimate", k70bOnH100, {{"Accept-Language", "zh-CN,zh;q=0.9"}});
  // 70B in bf16 needs about 138 GB of weights alone: it does not fit an H100, said in Chinese.
  // Which warning comes first is the estimator's order (an engine's budget warning may lead).
  size_t fit = 0;
  while (fit < en["warnings"].size() &&
         en["warnings"][fit].get<std::string>().rfind("does not fit", 0) != 0)
    ++fit;
  ASSERT_LT(fit, en["warnings"].size()) << en["warnings"];
  EXPECT_EQ(zh["warnings"][fit].get<std::string>().rfind("显存放不下", 0), 0u) << zh["warnings"];
  EXPECT_EQ(header["warnings"], zh["warnings"]);
  json zh_memory = zh["memory"], en_memory = en["memory"];
  zh_memory.erase("units");  // "bytes per GPU" is text
  en_memory.erase("units");
  EXPECT_EQ(zh_memory, en_memory);
  EXPECT_EQ(zh["scenario"], en["scenario"]);
  // ?lang= wins over the header.
  const json query_wins = post("/api/v1/estimate?lang=en", k70bOnH100, {{"Accept-Language", "zh"}});
  EXPECT_EQ(query_wins["warnings"], en["warnings"]);
}

TEST_F(LangServer, ErrorsCarryFieldSuggestionsAndTheLanguage) {
  const json e = post("/api/v1/estimate?lang=zh", {{"model", "llama-2-7b"}, {"batch", -1}});
  EXPECT_EQ(status_, 400);
  EXPECT_EQ(e["error"]["field"], "batch");
  EXPECT_EQ(e["error"]["message"], "batch：必须在 1 到 10000000 之间，而不是 -1");
  const json typo = post("/api/v1/estimate", {{"model", "lama-2-7b"}});
  EXPECT_EQ(typo["error"]["field"], "model");
  ASSERT_TRUE(typo["error"]["suggestions"].is_array());
  EXPECT_EQ(typo["error"]["suggestions"][0], "llama-2-7b");
  const json bad_lang = post("/api/v1/estimate?lang=fr", k70bOnH100);
  EXPECT_EQ(status_, 400);
  EXPECT_EQ(bad_lang["error"]["field"], "lang");
}

TEST_F(LangServer, HuggingFaceIdOutsideTheCatalogSaysWhatWorks) {
  const json e = post("/api/v1/estimate", {{"model", "Qwen/NotAModel-7B"}});
  EXPECT_EQ(status_, 400);
  EXPECT_EQ(e["error"]["code"], "unknown_name");
  const std::string message = e["error"]["message"];
  EXPECT_EQ(message.find("file paths"), std::string::npos) << message;
  EXPECT_NE(message.find("config.json"), std::string::npos) << message;
  EXPECT_NE(message.find("24B"), std::string::npos) << message;
  EXPECT_FALSE(e["error"]["suggestions"].empty());
  // A catalog model's own HF id still works, and an alias is said aloud, never swapped silently.
  const json alias = post("/api/v1/estimate", {{"model", "meta-llama/Meta-Llama-3-70B"}});
  EXPECT_EQ(status_, 200);
  EXPECT_EQ(alias["scenario"]["model"], "llama-3.1-70b");
  EXPECT_EQ(alias["scenario"]["model_requested"], "meta-llama/Meta-Llama-3-70B");
  bool said = false;
  for (const auto& w : alias["warnings"])
    said = said || w.get<std::string>().find("estimated as llama-3.1-70b") != std::string::npos;
  EXPECT_TRUE(said) << alias["warnings"];
  // A size is a model: 24B parameters in bf16 are 48 GB of weights (24e9 x 2 bytes).
  const json sized = post("/api/v1/estimate", {{"model", "24B"}});
  EXPECT_EQ(status_, 200);
  EXPECT_EQ(sized["scenario"]["model_origin"], "params");
  EXPECT_EQ(sized["model"]["params"], 24000000000);
}

}  // namespace
}  // namespace gpusizer
