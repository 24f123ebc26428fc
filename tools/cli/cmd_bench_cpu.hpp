#pragma once
#include <CLI/CLI.hpp>
#include <functional>

/// A subcommand: the CLI11 app (parsed() says whether it was asked for) and what runs it.
struct subcommand {
  CLI::App* app;
  std::function<int()> run;
};
/// `wgprim bench-cpu`: the native CPU backend against lavapipe, libstdc++'s parallel algorithms and plain loops.
subcommand register_bench_cpu(CLI::App& app);
