// wgprim run 'STAGE | STAGE | ...': a chain of primitives recorded once as a wgprim::pipeline (cmd_run.cpp).
#pragma once
#include <functional>
#include <vector>

#include "bench.hpp"

namespace CLI { class App; }


/// The bench row of issue 27's chain, as bench/cub's "chain": select the even values of x & 0xffff, sort them on
/// bits 0:16, unique, count, with x the u32 data of bench/cub/cub_bench.cu. A wgprim::pipeline, one submission and
/// one count read back per call; x & 0xffff is materialised (CUB fuses it as a transform iterator).
void add_chain_bench_cases(wgprim::context& ctx, std::size_t n_max, const bench_wants& wants,
                           std::vector<bench_case>& cases);
