// The commands of `wgprim`. Each command lives in tools/cli/cmd_<name>.cpp and is added by one function,
//   command add_<name>_command(CLI::App& app);
// which adds the CLI11 subcommand with its options and returns it with what runs it; main.cpp calls these in the
// order `wgprim --help` lists them, then runs the one that was parsed. A new command: write cmd_<name>.cpp (the
// CLI's CMake target globs tools/cli/*.cpp), declare add_<name>_command below, add one line to main.cpp's list.
#pragma once
#include <functional>
#include <string>

namespace CLI { class App; }

/// A subcommand: the CLI11 app (parsed() says whether it was asked for) and what runs it (the exit code).
struct command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

command add_info_command(CLI::App& app);       // cmd_info.cpp
command add_reduce_command(CLI::App& app);     // cmd_reduce.cpp (with --segments/--keys: segmented.cpp)
command add_scan_command(CLI::App& app);       // cmd_scan.cpp (with --segments: segmented.cpp)
command add_sort_command(CLI::App& app);       // cmd_sort.cpp
command add_demo_command(CLI::App& app);       // cmd_demo.cpp
command add_histogram_command(CLI::App& app);  // cmd_histogram.cpp
command add_rle_command(CLI::App& app);        // cmd_rle.cpp
// select, partition and unique: one kernel family, one runner and one set of options (cmd_select.cpp).
command add_select_command(CLI::App& app);
command add_partition_command(CLI::App& app);
command add_unique_command(CLI::App& app);
command add_run_command(CLI::App& app);        // cmd_run.cpp (a chain of primitives as one wgprim::pipeline)
command add_bench_command(CLI::App& app);      // cmd_bench.cpp
command add_bench_cpu_command(CLI::App& app);  // cmd_bench_cpu.cpp
command add_tune_command(CLI::App& app);       // cmd_tune.cpp

/// `wgprim reduce|scan|sort` under mpirun or with --adapters (cmd_mpi.cpp), tried before the commands above are
/// parsed: returns -1 when the command line is not a distributed one, else the exit code.
int run_distributed_command(int argc, char** argv);
/// The MPI tests' hooks, called by every rank in its local step (test_hooks.cpp): nothing in `wgprim`; in its test
/// build `wgprim-test-hooks`, WGPRIM_TEST_FAIL_RANK=r makes rank r fail and WGPRIM_TEST_STALL_RANK=r stall.
void mpi_test_hooks(int rank);

/// `wgprim info` printed for `adapter` (demo ends with it); returns the exit code.
int print_info(const std::string& adapter, bool as_json);
