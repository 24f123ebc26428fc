// The pictures, written as PNG: PLplot lays out the axes, ticks, labels and legends and draws them into a cairo
// surface (its extcairo device); cairo paints the page and writes the PNG. The reduce's error per block partial
// (tree against the naive loop against the exact sum), the scan's running total with the input's block means, and
// the benchmark chart (GB/s against log2 n, CUB beside). Every title names the backend and adapter that ran.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgprim/wgprim.hpp"

namespace plot {

constexpr int width = 900, height = 520;

/// The reduce of 256 equal blocks of `in`, each through the public API on `ctx`. For f32 sums: each block's error
/// in ulps (the tree's and the naive loop's, against the exact sum), and the whole array's; otherwise each block's
/// result. `lines` (the command's report) is not drawn: the picture computes and labels its own numbers.
void reduce_partials(wgprim::context& ctx, const wgprim::buffer& in, std::size_t n, const wgprim::op& o,
                     wgprim::dtype t,
                     const std::string& title, const std::vector<std::string>& lines, const std::string& path);

/// The scanned array `out` as a curve against the index, the input's per-block means as bars, `lines` as a note.
void scan_curve(wgprim::context& ctx, const wgprim::buffer& in, const wgprim::buffer& out, std::size_t n,
                wgprim::dtype t, double max_input, const std::string& title,
                const std::vector<std::string>& lines, const std::string& path);

/// GB/s against n (log2 axis) for every algorithm of `ours` (a `wgprim bench --json` document), one panel per
/// primitive / type / op, with the copy kernel dashed and CUB's curve (and cudaMemcpy) when `cub` is not null.
void bench_chart(const nlohmann::json& ours, const nlohmann::json* cub, const std::string& path);

/// Where a context ran, for a title: "the native CPU backend (NAME)" or "NAME through WebGPU (vulkan, CPU adapter)".
std::string ran_on(const wgprim::context& ctx);

/// A tick label: SI prefixes from ten thousand up ("20k", "1.5M"), plain below ("8000", "0.25").
std::string si_label(double v);

/// A count with thousands separators ("4,194,304").
std::string grouped(double v);

}  // namespace plot
