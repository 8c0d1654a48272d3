// Over HTTP a model name is looked up in the local stores only when the server was allowed to
// (serve --model-stores, given to its catalog with Catalog::allow_model_stores); off, the name is
// a refused path.
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
  // The same requests to a server whose catalog allows no store, then the Hugging Face cache.
  Catalog allowed = Catalog::builtin();
  const std::map<std::string, std::string> env = {{"HF_HUB_CACHE", (root / "hf").string()}};
  allowed.allow_model_stores({parse_store_list("hf", "--model-stores"),
                              [env](const std::string& k) -> std::optional<std::string> {
                                auto it = env.find(k);
                                return it == env.end() ? std::nullopt
                                                       : std::optional<std::string>(it->second);
                              }});
  HttpServer closed(options, Catalog::builtin()), allowing(options, allowed);
  ASSERT_TRUE(closed.start());
  ASSERT_TRUE(allowing.start());
  httplib::Client closed_client("127.0.0.1", closed.port()), client("127.0.0.1", allowing.port());
  closed_client.set_read_timeout(10, 0);
  client.set_read_timeout(10, 0);
  const std::string body = R"({"model": "acme/tiny"})";

  auto off = closed_client.Post("/api/v1/estimate", body, "application/json");
  ASSERT_TRUE(off);
  EXPECT_EQ(off->status, 400);
  // An ORG/NAME the catalog lacks is a Hugging Face id, not a path: the answer says what works
  // (issue 15 item 7), not "file paths are not allowed".
  EXPECT_NE(off->body.find("unknown_name"), std::string::npos) << off->body;
  EXPECT_NE(off->body.find("config.json"), std::string::npos) << off->body;

  auto on = client.Post("/api/v1/estimate", body, "application/json");
  auto ollama = client.Post("/api/v1/estimate", R"({"model": "tiny:q4"})", "application/json");
  closed.stop();
  allowing.stop();
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
