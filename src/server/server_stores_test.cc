// Over HTTP a model name is looked up in the local stores only when the server was allowed to
// (serve --model-stores, applied with set_model_store_access); off, the name is a refused path.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "gpusizer/model_store.h"
#include "gpusizer/server.h"
#include "importers/test_stores.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;

TEST(ServerStores, OffUnlessAllowedThenResolved) {
  const fs::path root =
      fs::temp_directory_path() / ("gpusizer_server_stores_" + std::to_string(::getpid()));
  fs::remove_all(root);
  testing::make_fake_stores(root);
  ServerOptions options;
  options.port = 0;
  options.threads = 2;
  HttpServer server(options);
  ASSERT_TRUE(server.start());
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(10, 0);
  const std::string body = R"({"model": "acme/tiny"})";

  auto off = client.Post("/api/v1/estimate", body, "application/json");
  ASSERT_TRUE(off);
  EXPECT_EQ(off->status, 400);
  // An ORG/NAME the catalog lacks is a Hugging Face id, not a path: the answer says what works
  // (issue 15 item 7), not "file paths are not allowed".
  EXPECT_NE(off->body.find("unknown_name"), std::string::npos) << off->body;
  EXPECT_NE(off->body.find("config.json"), std::string::npos) << off->body;

  const std::map<std::string, std::string> env = {{"HF_HUB_CACHE", (root / "hf").string()}};
  set_model_store_access({parse_store_list("hf", "--model-stores"),
                          [env](const std::string& k) -> std::optional<std::string> {
                            auto it = env.find(k);
                            return it == env.end() ? std::nullopt
                                                   : std::optional<std::string>(it->second);
                          }});
  auto on = client.Post("/api/v1/estimate", body, "application/json");
  auto ollama = client.Post("/api/v1/estimate", R"({"model": "tiny:q4"})", "application/json");
  set_model_store_access({});
  server.stop();
  fs::remove_all(root);
  ASSERT_TRUE(on);
  EXPECT_EQ(on->status, 200) << on->body;
  const auto j = nlohmann::json::parse(on->body);
  EXPECT_EQ(j["scenario"]["model_origin"], "hf-cache");
  EXPECT_EQ(j["model"]["params"], testing::kStoreTinyParams);
  // Ollama was not named: its model is an unknown name.
  ASSERT_TRUE(ollama);
  EXPECT_EQ(ollama->status, 400);
}

}  // namespace
}  // namespace gpusizer
