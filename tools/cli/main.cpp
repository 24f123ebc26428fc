// The wgprim command: every command is added by its file (tools/cli/cmd_<name>.cpp, see command.hpp); this file
// only wires them. Every error is one line on stderr, "wgprim: error: ...", and an exit code: 2 for usage (bad
// arguments, as CLI11 reports them too), 3-11 the errc codes of include/wgprim/error.hpp, 1 for a result that
// differs from the CPU twin. --help and --version exit 0.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "util.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

using namespace wgprim;

namespace {
// The version of the wgprim project (CMakeLists.txt's project(VERSION); cli_test.sh checks that they agree).
constexpr const char* wgprim_version = "0.1.0";
}  // namespace

int main(int argc, char** argv) {
  if (int rc = run_distributed_command(argc, argv); rc >= 0) return rc;
  io::install_interrupt_cleanup();
  CLI::App app{"wgprim: GPU parallel primitives (reduce, scan, select, histogram, segmented ops, sort) on WebGPU"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // --help shows every default
  app.set_version_flag("--version", [] {
    return std::string("wgprim ") + wgprim_version + ", wgpu-native " + context::wgpu_version();
  });
  app.footer("Exit codes: 0 done; 1 a result differs from the CPU twin; 2 bad usage or argument; 3 file; "
             "4 unsupported; 5 limit; 6 shader; 7 no adapter; 8 device lost; 9 out of memory; 10 GPU; 11 timeout.");
  // The commands, in the order --help lists them.
  const std::vector<command> commands = {
      add_info_command(app),      add_reduce_command(app),    add_scan_command(app),
      add_sort_command(app),      add_demo_command(app),      add_histogram_command(app),
      add_rle_command(app),       add_select_command(app),    add_partition_command(app),
      add_unique_command(app),    add_run_command(app),       add_bench_command(app),
      add_bench_cpu_command(app), add_tune_command(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: printed on stdout, exit 0
    std::cerr << "wgprim: error: " << one_line(e.what()) << " (see wgprim --help)\n";
    return static_cast<int>(errc::invalid_argument);
  }
  // Every output file stays a temporary file until the command ends: a failed run (exit != 0, a mismatch
  // against the CPU twin included) never renames its output into place (issue 29, row 5).
  auto dispatch = [&]() -> int {
    refuse_empty_values(app);
    refuse_shared_outputs(app);
    refuse_shared_stdin(app);
    io::hold_outputs();
    for (const command& c : commands)
      if (c.app->parsed()) return c.run();
    return 1;
  };
  try {
    const int rc = dispatch();
    if (rc == 0) io::commit_outputs();
    else io::discard_outputs();
    return rc;
  } catch (const wgprim::error& e) {
    io::discard_outputs();
    std::cerr << "wgprim: error: " << one_line(e.what()) << "\n";
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    io::discard_outputs();
    std::cerr << "wgprim: error: out of host memory\n";
    return static_cast<int>(errc::out_of_memory);
  } catch (const std::exception& e) {
    io::discard_outputs();
    std::cerr << "wgprim: error: " << one_line(e.what()) << "\n";
    return 1;
  }
}
