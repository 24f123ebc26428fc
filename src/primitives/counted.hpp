// Device-side counts in the dispatch layer: a pass whose element count is a u32 on the device (a
// wgprim::device_count) gets its grid from an indirect dispatch and its parameter block patched on the device by
// shaders/pipeline/count_args.wgsl, so that its kernel runs unchanged. Used by the compactions' counted inputs
// (src/primitives/select/decoupled.cpp), the counted sort and reduce (their WebGPU rows in counted.cpp) and pipelines.
#pragma once
#include <cstdint>
#include <string>

#include "primitives/primitive.hpp"

namespace wgprim::detail {

/// Which u32 words of a pass's parameter block depend on the element count (none: no such word).
struct count_words {
  static constexpr std::uint32_t none = 0xffffffffu;
  std::uint32_t n = none;       // the count, clamped to the capacity
  std::uint32_t tiles = none;   // ceil(n / tile)
  std::uint32_t grid_x = none;  // workgroups per row of the 2-D grid (detail::grid_2d's x)
  std::uint32_t n2 = none;      // a second word that takes the count
  bool one_group = false;       // a count of 0 still runs one workgroup (whose kernel writes what an empty range
                                // gives, e.g. the select's count of 0), with tiles 0
};

/// What a counted pass binds: its parameter block (a work block of the parameter ring, patched on the device
/// before the pass) and its indirect grid (in the same block).
struct counted_pass {
  binding params;
  WGPUBuffer args = nullptr;
  std::uint64_t args_offset = 0;
};

/// Records the sizing of one pass of `tile` elements per workgroup over at most `capacity` elements from the u32
/// at `count`: one dispatch inside the current compute pass (no buffer made, no copy, no queue write) that writes
/// the grid and patches the block (`bytes` <= 240, a multiple of 4) in a work block of the parameter ring. Record
/// the pass right after, with rec.dispatch_indirect(kernel, {result.params, ...}, result.args, result.args_offset).
/// `zero` (a storage-bindable range, e.g. the pass's tile states; another buffer than the count's): zeroed by the
/// same dispatch (pipeline/count_args_fill.wgsl) instead of a fill of its own before.
counted_pass record_counted_pass(recorder& rec, const device_view& count, const void* block, std::size_t bytes,
                                 const count_words& words, std::uint64_t tile, std::uint64_t capacity,
                                 const binding* zero = nullptr);

/// Records writes of `pad` into the u32 words [count, v.count) of `v` (a bindable view; count clamped).
void record_pad_tail(recorder& rec, const device_view& count, const device_view& v, std::uint32_t pad);

/// The kernel of a counted pass: the spec's kernel with its parameter block always a uniform (never immediates,
/// which the host sets: the device patches this one).
const kernel& counted_kernel(context& ctx, const kernel_spec& spec, const std::string& source, bool trusted);

/// Reads a u32 count of a native-backend view (the native backend runs counted calls eagerly).
std::uint64_t host_count(const device_view& count);

extern const kernel_spec count_args_size_spec, count_args_fill_spec, count_args_pad_spec;

}  // namespace wgprim::detail
