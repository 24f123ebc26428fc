// wgprim run 'STAGE | STAGE | ...': a chain of primitives recorded once as a wgprim::pipeline (cmd_run.cpp).
#pragma once
#include <functional>

namespace CLI { class App; }

/// Adds the `run` subcommand; the returned function runs it when it was parsed and returns its exit code, or -1.
std::function<int()> add_run_command(CLI::App& app);
