// API tests: a real server on an ephemeral loopback port, driven by an HTTP client.
#include "gpusizer/server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "embed/embedded.h"
#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "server/server.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// A server on 127.0.0.1:<any free port> and a client for it.
class Served {
 public:
  explicit Served(ServerOptions options = {}) : server_(with_any_port(std::move(options))) {
    EXPECT_TRUE(server_.start());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_.port());
    client_->set_connection_timeout(5, 0);
    client_->set_read_timeout(10, 0);
  }
  httplib::Client& client() { return *client_; }
  int port() const { return server_.port(); }

  httplib::Result post(const std::string& path, const std::string& body) {
    return client_->Post(path.c_str(), body, "application/json");
  }

 private:
  static ServerOptions with_any_port(ServerOptions options) {
    options.port = 0;
    options.threads = 4;
    return options;
  }
  HttpServer server_;
  std::unique_ptr<httplib::Client> client_;
};

/// The parsed body of a response, checked to be the contract's error object with `code`.
void expect_error(const httplib::Result& res, int status, const std::string& code = "") {
  ASSERT_TRUE(res) << "no response";
  EXPECT_EQ(res->status, status) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const json body = json::parse(res->body, nullptr, false);
  ASSERT_TRUE(body.is_object()) << res->body;
  ASSERT_TRUE(body.contains("error")) << res->body;
  EXPECT_TRUE(body["error"]["code"].is_string());
  EXPECT_TRUE(body["error"]["message"].is_string());
  EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
  if (!code.empty()) {
    EXPECT_EQ(body["error"]["code"], code) << res->body;
  }
}

std::string error_code(const httplib::Result& res) {
  if (!res) return "<no response>";
  const json body = json::parse(res->body, nullptr, false);
  if (!body.is_object() || !body.contains("error")) return "";
  return body["error"].value("code", "");
}

const char* kScenario = R"({"model": "llama-2-7b", "gpu": "a100-sxm4-80gb", "batch": 4})";

TEST(Server, BindsLoopbackOnAnEphemeralPort) {
  Served s;
  EXPECT_GT(s.port(), 0);
  auto res = s.client().Get("/api/v1/gpus");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(Server, EstimateAnswersTheContractShape) {
  Served s;
  auto res = s.post("/api/v1/estimate", kScenario);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const json estimate = json::parse(res->body);
  // The server answers exactly what the library answers for the same scenario.
  EXPECT_EQ(estimate, estimate_json(json::parse(kScenario)));
  ASSERT_TRUE(estimate.contains("memory"));
  for (const char* key : {"total_bytes", "weights_bytes", "kv_cache_bytes", "overhead_bytes"})
    EXPECT_TRUE(estimate["memory"][key].is_number_integer()) << key;
  EXPECT_TRUE(estimate["memory"]["fits"].is_boolean());
}

// Llama-2-13B fp16 (26.0 GB of weights) on one RTX 4090 (24 GB) does not fit: the HTTP answer
// has "fits": false, no performance or cost, and the changes (docs/contract.md, v2).
TEST(Server, EstimateThatDoesNotFitHasNoFigures) {
  Served s;
  auto res = s.post("/api/v1/estimate",
                    R"({"model": "llama-2-13b", "weights": "fp16", "gpu": "rtx-4090-24gb"})");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json estimate = json::parse(res->body);
  EXPECT_EQ(estimate["fits"], false);
  EXPECT_FALSE(estimate.contains("performance"));
  EXPECT_FALSE(estimate.contains("cost"));
  EXPECT_FALSE(estimate["changes"].empty());
}

TEST(Server, EstimateTakesHuggingFaceIdsWhichHoldASlash) {
  Served s;
  auto res = s.post("/api/v1/estimate", R"({"model": "meta-llama/Llama-2-7b-hf"})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
}

// A quantized re-upload's id is its base model's (catalog/hub_names.h), not a path to refuse.
TEST(Server, EstimateTakesAReuploadsHubId) {
  Served s;
  auto res = s.post("/api/v1/estimate", R"({"model": "Qwen/Qwen2.5-7B-Instruct-AWQ"})");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(json::parse(res->body)["scenario"]["weights"], "awq-int4");
}

TEST(Server, CatalogsAreJson) {
  Served s;
  for (const char* path : {"/api/v1/gpus", "/api/v1/models"}) {
    auto res = s.client().Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
    const json body = json::parse(res->body);
    EXPECT_EQ(body, std::string(path) == "/api/v1/gpus" ? gpus_json() : models_json()) << path;
  }
}

TEST(Server, RecommendAnswersOptions) {
  // The advisor is part of every build: no 501 branch (the old test accepted either answer and
  // so could not fail).
  Served s;
  auto res = s.post("/api/v1/recommend", R"({"model": "llama-2-7b"})");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json body = json::parse(res->body);
  ASSERT_TRUE(body.contains("options"));
  EXPECT_FALSE(body["options"].empty());
  // Bad input is still a 400 before the advisor is asked.
  expect_error(s.post("/api/v1/recommend", "{"), 400, "bad_json");
}

TEST(Server, MalformedJsonIs400) {
  Served s;
  expect_error(s.post("/api/v1/estimate", R"({"model": "llama-2-7b",)"), 400, "bad_json");
  expect_error(s.post("/api/v1/estimate", ""), 400, "bad_json");
  expect_error(s.post("/api/v1/estimate", "\xff\xfe garbage"), 400, "bad_json");
  expect_error(s.post("/api/v1/estimate", R"(["llama-2-7b"])"), 400, "bad_input");
  expect_error(s.post("/api/v1/estimate", "42"), 400, "bad_input");
}

TEST(Server, WrongTypesAndUnknownNamesAre400) {
  Served s;
  expect_error(s.post("/api/v1/estimate", R"({"model": "llama-2-7b", "batch": "many"})"), 400);
  expect_error(s.post("/api/v1/estimate", R"({"model": 7})"), 400);
  expect_error(s.post("/api/v1/estimate", R"({"batch": 1})"), 400);
  auto res = s.post("/api/v1/estimate", R"({"model": "no-such-model-xyz"})");
  expect_error(res, 400);
  EXPECT_NE(res->body.find("no-such-model-xyz"), std::string::npos) << res->body;
  expect_error(s.post("/api/v1/estimate", R"({"model": "llama-2-7b", "gpu": "no-such-gpu"})"), 400);
  // Invalid UTF-8 echoed in a message still gives valid JSON.
  expect_error(s.post("/api/v1/estimate", "{\"model\": \"bad\xc3\x28\"}"), 400);
}

TEST(Server, BodyOverTheLimitIs413) {
  ServerOptions options;
  options.max_body_bytes = 4096;
  Served s(options);
  std::string big = R"({"model": "llama-2-7b", "pad": ")" + std::string(8192, 'x') + "\"}";
  expect_error(s.post("/api/v1/estimate", big), 413, "body_too_large");
  // Under the limit the same server still answers.
  auto res = s.post("/api/v1/estimate", kScenario);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(Server, DefaultBodyLimitIsOneMebibyte) {
  Served s;
  std::string big = R"({"model": "llama-2-7b", "pad": ")" + std::string(2 << 20, 'x') + "\"}";
  expect_error(s.post("/api/v1/estimate", big), 413);
}

TEST(Server, DeepNestingIs400BeforeParsing) {
  Served s;
  const std::string deep = R"({"model": "llama-2-7b", "x": )" + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  expect_error(s.post("/api/v1/estimate", deep), 400, "too_deep");
  const std::string ok =
      R"({"model": "llama-2-7b", "x": )" + std::string(10, '[') + std::string(10, ']') + "}";
  EXPECT_NE(error_code(s.post("/api/v1/estimate", ok)), "too_deep");
}

TEST(Server, JsonDepthIgnoresBracketsInStrings) {
  EXPECT_FALSE(server::json_too_deep(R"({"a": "[[[[[[[[[[[[[[[[[[[["})", 3));
  EXPECT_FALSE(server::json_too_deep(R"({"a": "\"[[[[[[[[[[[[[["})", 3));
  EXPECT_TRUE(server::json_too_deep(R"({"a": [[[1]]]})", 3));
  EXPECT_FALSE(server::json_too_deep(R"({"a": [[1]]})", 3));
}

TEST(Server, UnknownRouteIs404WithErrorObject) {
  Served s;
  expect_error(s.client().Get("/api/v1/nothing"), 404, "not_found");
  expect_error(s.client().Get("/assets/none.js"), 404, "not_found");
  expect_error(s.post("/api/v1/nothing", "{}"), 404, "not_found");
  expect_error(s.client().Get("/api/v1/estimate"), 405, "method_not_allowed");
}

TEST(Server, SurvivesBadRequestsAndKeepsServing) {
  Served s;
  for (int i = 0; i < 20; ++i) {
    s.post("/api/v1/estimate", std::string(static_cast<size_t>(i) * 7, '{'));
    s.post("/api/v1/estimate", R"({"model": {"hf_config": 5}})");
    s.post("/api/v1/estimate", R"({"model": {"params": "x"}})");
  }
  auto res = s.post("/api/v1/estimate", kScenario);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(Server, RefusesRequestsForOtherHostNames) {
  Served s;
  httplib::Headers headers = {{"Host", "attacker.example:80"}};
  expect_error(s.client().Get("/api/v1/gpus", headers), 403, "bad_host");
  // Another port is another origin: refused too.
  headers = {{"Host", "localhost:1234"}};
  expect_error(s.client().Get("/api/v1/gpus", headers), 403, "bad_host");
  headers = {{"Host", "localhost:" + std::to_string(s.port())}};
  auto res = s.client().Get("/api/v1/gpus", headers);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(Server, NoCorsUnlessAsked) {
  {
    Served s;
    auto res = s.client().Get("/api/v1/gpus");
    ASSERT_TRUE(res);
    EXPECT_FALSE(res->has_header("Access-Control-Allow-Origin"));
  }
  ServerOptions options;
  options.cors = true;
  Served s(options);
  auto res = s.client().Get("/api/v1/gpus");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Access-Control-Allow-Origin"), "*");
  auto pre = s.client().Options("/api/v1/estimate");
  ASSERT_TRUE(pre);
  EXPECT_EQ(pre->status, 204);
  EXPECT_EQ(pre->get_header_value("Access-Control-Allow-Origin"), "*");
}

TEST(Server, ServesThePage) {
  Served s;
  auto res = s.client().Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(res->body.find("gpusizer"), std::string::npos);
  EXPECT_TRUE(res->has_header("Content-Security-Policy"));
  const auto assets = embedded::web_files();
  if (assets.empty()) {
    // Built without web/dist: the page says how to build it, and no asset is served.
    EXPECT_NE(res->body.find("scripts/build_web.sh"), std::string::npos) << res->body;
    auto missing = s.client().Get("/assets/index.js");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);
    return;
  }
  // Every embedded asset is served with its bytes.
  for (const auto& asset : assets) {
    std::string path = "/";
    path.append(asset.path);
    auto file = s.client().Get(path.c_str());
    ASSERT_TRUE(file) << asset.path;
    EXPECT_EQ(file->status, 200) << asset.path;
    EXPECT_EQ(file->body.size(), asset.data.size()) << asset.path;
  }
}

// --- The path rule -------------------------------------------------------------------------

class PathRule : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("gpusizer_server_test_" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "allowed" / "llama");
    fs::create_directories(root_ / "outside");
    std::ofstream(root_ / "allowed" / "llama" / "config.json") << R"({"model_type": "llama"})";
    std::ofstream(root_ / "outside" / "secret.json") << R"({"model_type": "llama"})";
    fs::create_symlink(root_ / "outside", root_ / "allowed" / "escape");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string allowed() const { return (root_ / "allowed").string(); }
  fs::path root_;
};

std::string model_request(const std::string& model) {
  return json({{"model", model}}).dump();
}

TEST_F(PathRule, PathsAreRefusedWithoutAnAllowedDirectory) {
  Served s;
  for (const std::string& model : std::vector<std::string>{
           "/etc/passwd", "config.json", "./llama", "../../etc/shadow", "C:\\models\\x.gguf",
           "model.gguf", "weights.safetensors", "~/models", (root_ / "allowed" / "llama").string()})
    expect_error(s.post("/api/v1/estimate", model_request(model)), 400, "path_not_allowed");
  // The same rule holds for recommend.
  expect_error(s.post("/api/v1/recommend", model_request("/etc/passwd")), 400, "path_not_allowed");
}

TEST_F(PathRule, InsideTheAllowedDirectoryIsAllowed) {
  ServerOptions options;
  options.allow_paths_dir = allowed();
  Served s(options);
  for (const std::string& model : std::vector<std::string>{
           (root_ / "allowed" / "llama" / "config.json").string(), std::string("llama/config.json"),
           std::string("llama"), (root_ / "allowed" / "llama" / ".." / "llama").string()}) {
    auto res = s.post("/api/v1/estimate", model_request(model));
    ASSERT_TRUE(res);
    EXPECT_NE(error_code(res), "path_not_allowed") << model << ": " << res->body;
  }
  // The request reaching the estimator names the canonical file.
  json request = {{"model", "llama/./config.json"}};
  server::check_model_path(request, allowed(), Catalog::builtin());
  EXPECT_EQ(request["model"], fs::canonical(root_ / "allowed" / "llama" / "config.json").string());
}

TEST_F(PathRule, OutsideTheAllowedDirectoryIsRefused) {
  ServerOptions options;
  options.allow_paths_dir = allowed();
  Served s(options);
  for (const std::string& model : std::vector<std::string>{
           (root_ / "outside" / "secret.json").string(), std::string("../outside/secret.json"),
           std::string("llama/../../outside/secret.json"), std::string("escape/secret.json"),
           std::string("/etc/passwd"), std::string("../outside/missing.json"),
           (root_ / "allowedx" / "a.json").string()})
    expect_error(s.post("/api/v1/estimate", model_request(model)), 400, "path_not_allowed");
  // A missing file inside is a plain bad_file.
  expect_error(s.post("/api/v1/estimate", model_request("llama/missing.json")), 400, "bad_file");
}

TEST_F(PathRule, ACatalogNameIsTheCatalogsEvenWithAFileOfThatNameHere) {
  // The estimator takes a catalog name from the catalog before it tries a file (parse_scenario),
  // so the path rule does not ask the file system about one: no stat per request (issue 18).
  std::ofstream(root_ / "llama-2-7b") << "not a config";
  std::ofstream(root_ / "my-model") << "{}";
  struct Here {
    explicit Here(const fs::path& dir) : before(fs::current_path()) { fs::current_path(dir); }
    ~Here() { fs::current_path(before); }
    fs::path before;
  } here(root_);
  for (const std::string& dir : {std::string(), allowed()}) {
    json request = {{"model", "llama-2-7b"}};
    EXPECT_NO_THROW(server::check_model_path(request, dir, Catalog::builtin())) << dir;
    EXPECT_EQ(request["model"], "llama-2-7b") << dir;
  }
  // A name the catalog lacks is still a file when one is here: refused without --allow-paths.
  json unknown = {{"model", "my-model"}};
  EXPECT_THROW(server::check_model_path(unknown, "", Catalog::builtin()), InputError);
}

TEST(PathRuleNames, CatalogNamesAndInlineModelsAreNotPaths) {
  EXPECT_FALSE(server::looks_like_path("llama-2-7b"));
  EXPECT_TRUE(server::looks_like_path("meta-llama/Llama-2-7b-hf"));  // passes as a catalog id
  EXPECT_TRUE(server::looks_like_path("x.GGUF"));
  json inline_model = {{"model", {{"params", 7e9}}}};
  const json before = inline_model;
  server::check_model_path(inline_model, "", Catalog::builtin());
  EXPECT_EQ(inline_model, before);
  json hf = {{"model", "meta-llama/Llama-2-7b-hf"}};
  EXPECT_NO_THROW(server::check_model_path(hf, "", Catalog::builtin()));
  EXPECT_EQ(hf["model"], "meta-llama/Llama-2-7b-hf");
}

// --- OpenAPI ---------------------------------------------------------------------------------

TEST(OpenApi, DocumentsExactlyTheRoutes) {
  const json& doc = server::openapi_document();
  EXPECT_EQ(doc["openapi"].get<std::string>().substr(0, 2), "3.");
  std::set<std::pair<std::string, std::string>> documented, served;
  for (const auto& [path, ops] : doc["paths"].items())
    for (const auto& [method, op] : ops.items()) {
      std::string upper = method;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      documented.insert({upper, path});
      EXPECT_TRUE(op.contains("responses")) << path;
    }
  for (const auto& route : server::routes()) served.insert({route.method, route.path});
  EXPECT_EQ(documented, served);
}

TEST(OpenApi, EveryDocumentedRouteAnswersAsDocumented) {
  Served s;
  auto served_doc = s.client().Get("/api/v1/openapi.json");
  ASSERT_TRUE(served_doc);
  ASSERT_EQ(served_doc->status, 200);
  const json doc = json::parse(served_doc->body);
  EXPECT_EQ(doc, server::openapi_document());
  for (const auto& [path, ops] : doc["paths"].items()) {
    for (const auto& [method, op] : ops.items()) {
      ASSERT_TRUE(method == "get" || method == "post") << method << " " << path;
      const json& media = op.contains("requestBody")
                              ? op["requestBody"]["content"]["application/json"]
                              : json::object();
      ASSERT_TRUE(method == "get" || media.contains("example")) << path;
      httplib::Result res =
          method == "get" ? s.client().Get(path.c_str()) : s.post(path, media["example"].dump());
      ASSERT_TRUE(res) << method << " " << path;
      const std::string status = std::to_string(res->status);
      ASSERT_TRUE(op["responses"].contains(status))
          << method << " " << path << " answered undocumented " << status << ": " << res->body;
      if (res->status == 200) {
        const json& content = op["responses"]["200"]["content"];
        const std::string type = res->get_header_value("Content-Type");
        EXPECT_TRUE(content.contains(type.substr(0, type.find(';')))) << path << " " << type;
      }
    }
  }
}

}  // namespace
}  // namespace gpusizer

namespace gpusizer {
namespace {

// The socket-free handler (what fuzz_http drives) answers exactly as the running server does.
TEST(RequestHandler, AnswersAsTheServerDoes) {
  Served s;
  server::RequestHandler handler({}, Catalog::builtin());
  handler.set_port(s.port());
  struct Probe {
    std::string method, path, body;
  };
  const std::vector<Probe> probes = {
      {"GET", "/api/v1/gpus", ""},
      {"GET", "/api/v1/models", ""},
      {"GET", "/api/v1/openapi.json", ""},
      {"GET", "/", ""},
      {"GET", "/no/such/page.js", ""},
      {"POST", "/api/v1/estimate", kScenario},
      {"POST", "/api/v1/estimate", R"({"model": "llama-2-7b", "batch": "two"})"},
      {"POST", "/api/v1/estimate", "{not json"},
      {"POST", "/api/v1/estimate", "[1]"},
      {"POST", "/api/v1/estimate", R"({"model": "/etc/passwd"})"},
      {"POST", "/api/v1/recommend", R"({"model": "llama-2-7b"})"},
      {"POST", "/api/v1/nothing", "{}"},
      {"GET", "/healthz", ""},
      {"GET", "/api/v1/estimate", ""},
      {"PUT", "/api/v1/recommend", "{}"},
      {"DELETE", "/api/v1/estimate", ""},
      {"PATCH", "/api/v1/estimate", "{}"},
      {"OPTIONS", "/api/v1/estimate", ""},
  };
  for (const Probe& p : probes) {
    SCOPED_TRACE(p.method + " " + p.path + " " + p.body);
    httplib::Request req;
    req.method = p.method;
    req.path = p.path;
    req.body = p.body;
    if (!p.body.empty()) req.set_header("Content-Type", "application/json");
    auto live = s.client().send(req);
    ASSERT_TRUE(live);
    server::HttpRequest direct{
        p.method, p.path, {{"Host", "127.0.0.1:" + std::to_string(s.port())}}, p.body};
    if (!p.body.empty()) direct.headers.emplace_back("Content-Type", "application/json");
    const auto answer = handler.handle(direct);
    EXPECT_EQ(answer.status, live->status);
    EXPECT_EQ(answer.body, live->body);
  }
}

}  // namespace
}  // namespace gpusizer
