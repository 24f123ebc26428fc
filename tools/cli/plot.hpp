// The pictures, drawn with cairo and written as PNG: the reduce's block partials as bars (each computed on the GPU
// through the public API), the scan's running total with the input's block averages, and the benchmark chart.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgprim/wgprim.hpp"

namespace plot {

constexpr int width = 900, height = 520;

/// Bars of the reductions of 256 equal blocks of `in`, with a title and text lines beneath.
void reduce_partials(wgprim::context& ctx, const wgprim::buffer& in, std::size_t n, const wgprim::op& o,
                     wgprim::dtype t,
                     const std::string& title, const std::vector<std::string>& lines, const std::string& path);

/// The scanned array `out` as a filled curve, the input's per-block averages as bars, with labels.
void scan_curve(wgprim::context& ctx, const wgprim::buffer& in, const wgprim::buffer& out, std::size_t n,
                wgprim::dtype t, double max_input, const std::string& title,
                const std::vector<std::string>& lines, const std::string& path);

/// GB/s against n (log scale) for every algorithm of `ours` (a `wgprim bench --json` document), with the copy
/// kernel, and CUB's curve when `cub` is not null. One panel per primitive and type.
void bench_chart(const nlohmann::json& ours, const nlohmann::json* cub, const std::string& path);

}  // namespace plot
