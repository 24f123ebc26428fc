// The pictures: the reduce's partials as bars and the scan's running total, drawn by WebGPU render pipelines
// straight from the GPU buffers, labelled with cairo and written as PNG; and the benchmark chart (cairo only).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgprim/wgprim.hpp"

namespace plot {

constexpr int width = 900, height = 520;

/// Bars of the seed reduce's 256 workgroup partials of `in`, with a title and text lines beneath.
void reduce_partials(wgprim::context& ctx, const wgprim::buffer& in, std::size_t n, const wgprim::monoid& m,
                     const std::string& title, const std::vector<std::string>& lines, const std::string& path);

/// The scanned array `out` as a filled curve, the input's per-block averages as bars, with labels.
void scan_curve(wgprim::context& ctx, const wgprim::buffer& in, const wgprim::buffer& out, std::size_t n,
                const wgprim::monoid& m, double max_input, const std::string& title,
                const std::vector<std::string>& lines, const std::string& path);

/// GB/s against n (log scale) for every algorithm of `ours` (a `wgprim bench --json` document), with the copy
/// kernel, and CUB's curve when `cub` is not null. One panel per primitive and type.
void bench_chart(const nlohmann::json& ours, const nlohmann::json* cub, const std::string& path);

}  // namespace plot
