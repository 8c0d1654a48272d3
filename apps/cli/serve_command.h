#pragma once
// `gpusizer serve`: the HTTP API and web page (include/gpusizer/server.h).
#include <CLI/CLI.hpp>

#include "gpusizer/server.h"

namespace gpusizer::cli {

/// Adds the `serve` subcommand to `app`, its flags filling `options`. When it was chosen
/// (`if (*serve)`), call run_server(options) and exit with its code.
CLI::App* add_serve_command(CLI::App& app, ServerOptions& options);

}  // namespace gpusizer::cli
