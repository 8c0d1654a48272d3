#include "serve_command.h"

namespace gpusizer::cli {

CLI::App* add_serve_command(CLI::App& app, ServerOptions& opts) {
  ServerOptions* options = &opts;
  CLI::App* serve = app.add_subcommand("serve", "Serve the HTTP API and the web page");
  serve->add_option("--host", options->host, "Interface to listen on (loopback by default)")
      ->capture_default_str();
  serve->add_option("--port", options->port, "Port to listen on; 0 picks a free one")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  serve
      ->add_option("--allow-paths", options->allow_paths_dir,
                   "Directory whose model files requests may name (none by default)")
      ->check(CLI::ExistingDirectory);
  serve->add_option("--model-stores", options->model_stores,
                    "Local model stores requests may name models from: hf,modelscope,ollama "
                    "(none by default)");
  serve->add_flag("--cors", options->cors, "Send CORS headers (Access-Control-Allow-Origin: *)");
  serve->add_option("--threads", options->threads, "Worker threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  serve->add_option("--max-body", options->max_body_bytes, "Largest request body in bytes")
      ->capture_default_str();
  serve->add_flag("--log", options->log_requests, "Log one line per request on stderr");
  return serve;
}

}  // namespace gpusizer::cli
