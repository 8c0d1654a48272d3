#pragma once
// `gpusizer serve`: the HTTP API and web page (include/gpusizer/server.h).
#include <CLI/CLI.hpp>

namespace gpusizer::cli {

/// Adds the `serve` subcommand to `app`; when chosen it runs the server in the foreground and
/// exits with run_server's code.
void add_serve_command(CLI::App& app);

}  // namespace gpusizer::cli
