// Segmented reduce/scan (--segments), reduce-by-key (--keys), run-length encoding (wgprim rle) and their bench
// rows.
#include "cmd_hist.hpp"

using namespace wgprim;

cli_command add_rle_command(CLI::App& app) { return {nullptr, [] { return -1; }}; }
cli_command add_segmented_options(CLI::App*, CLI::App*) { return {nullptr, [] { return -1; }}; }

void add_hist_bench_cases(context& ctx, std::size_t n_max, std::vector<bench_case>& cases,
                          const std::function<bool(const std::string&, const std::string&)>& wants) {}
