// Segmented reduce and scan with one subgroup per segment (shaders/segmented/per_subgroup.wgsl): one dispatch over
// the segments; segments longer than `long_len` values are cut into chunks that workgroups fold (and, for the scan,
// scan with their carries: indirect dispatches sized on the GPU, empty when no segment is long). The default when
// segments hold 32 or more values on average (segmented_reduce_webgpu: built-in operators; segmented_scan_webgpu).
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/segmented/segmented.hpp"

namespace wgprim::detail {

namespace {
constexpr std::uint32_t wg_size = 256, segs_per_wg = 8, long_len = 8192, chunk_len = 8192;
// A subgroup of `size` lanes takes segments up to min(long_len, 256 x size) values alone (the f32 scan's carry
// chain): the capacities are sized for the narrowest subgroup WGSL allows (4 lanes).
constexpr std::uint32_t min_long_len = 256 * 4;

struct sgr_params {
  std::uint32_t n, n_seg, grid_x, long_cap, chunk_cap, max_dim, exclusive, pad;
};
static_assert(sizeof(sgr_params) == 32);
using s = slot;
}  // namespace

const kernel_spec segr_subgroup_spec{"segmented/per_subgroup.wgsl", "segments",
                                     {s::uniform, s::storage_read, s::storage_read, s::storage_rw, s::storage_rw,
                                      s::storage_rw, s::storage_rw},
                                     sizeof(sgr_params)};
const kernel_spec segr_chunk_args_spec{"segmented/per_subgroup.wgsl", "chunk_args",
                                       {s::uniform, s::storage_read, s::storage_read, s::storage_rw, s::storage_rw,
                                        s::storage_rw, s::storage_rw},
                                       sizeof(sgr_params)};
// The passes whose grid is the args buffer (binding 6 of the file above): a file without that binding.
const kernel_spec segr_chunks_spec{"segmented/per_subgroup_long.wgsl", "chunks",
                                   {s::uniform, s::storage_read, s::storage_read, s::storage_rw, s::storage_rw,
                                    s::storage_rw},
                                   sizeof(sgr_params)};
const kernel_spec segr_longs_spec{"segmented/per_subgroup_long.wgsl", "longs",
                                  {s::uniform, s::storage_read, s::storage_read, s::storage_rw, s::storage_rw,
                                   s::storage_rw},
                                  sizeof(sgr_params)};
const kernel_spec segr_chunk_scan_spec{"segmented/per_subgroup_long.wgsl", "chunk_scan",
                                       {s::uniform, s::storage_read, s::storage_read, s::storage_rw, s::storage_rw,
                                        s::storage_rw},
                                       sizeof(sgr_params)};

bool segmented_per_subgroup_serves(const context& ctx, std::uint64_t n, std::uint64_t n_segments) {
  return ctx.features().subgroups && segmented_reduce_streams(ctx, n, n_segments);
}

namespace {
// scan: the segmented scan (out holds n values; groups before the first offset and after the last included).
segmented_workspace record_per_subgroup(recorder& rec, const monoid& m, const device_view& values, std::uint64_t n,
                                        const device_view& offsets, std::uint64_t n_segments, const device_view& out,
                                        bool scan, bool exclusive) {
  context& ctx = rec.ctx();
  // Trusted only for built-in operators: a custom one is an expression of the user's, checked as everywhere.
  auto kernel_for = [&](const kernel_spec& spec) -> const kernel& {
    const std::string& src = compose_wgsl(spec.file, m,
                                          {{"WG_SIZE", std::to_string(wg_size) + "u"},
                                           {"SEGS", std::to_string(segs_per_wg) + "u"},
                                           {"LONG", std::to_string(long_len) + "u"},
                                           {"CHUNK", std::to_string(chunk_len) + "u"},
                                           {"SCAN", scan ? "true" : "false"}},
                                          {lanes_module(true)});
    return get_kernel(ctx, spec, src, m.is_builtin());
  };
  // Capacities: at most n / (min_long_len + 1) long groups (they partition at most n values), and their chunks
  // number at most n / chunk_len plus one per long group.
  const std::uint64_t long_cap = n / (min_long_len + 1) + 1, chunk_cap = n / chunk_len + long_cap + 1;
  const std::uint64_t groups = scan ? n_segments + 2 : n_segments;
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  const buffer& work = scratch(ctx, "segr_subgroup.work", (4 + 2 * long_cap + 2 * chunk_cap) * 4);
  const buffer& partial = scratch(ctx, "segr_subgroup.partial", chunk_cap * 4);
  const buffer& args = scratch(ctx, "segr_subgroup.args", 32);
  record_zero(rec, work, 0, 16);  // a dispatch: the compute pass stays open
  std::uint32_t x, y;
  grid_2d((groups + segs_per_wg - 1) / segs_per_wg, max_dim, x, y);
  const sgr_params p{static_cast<std::uint32_t>(n),        static_cast<std::uint32_t>(n_segments), x,
                     static_cast<std::uint32_t>(long_cap), static_cast<std::uint32_t>(chunk_cap),  max_dim,
                     exclusive ? 1u : 0u, 0};
  const binding vals = bind(values, 0, n), offs = bind(offsets, 0, n_segments + 1),
                o = bind(out, 0, scan ? n : n_segments), w = bind(work), part = bind(partial), a = bind(args);
  rec.dispatch(kernel_for(segr_subgroup_spec), {rec.params(p), vals, offs, o, w, part, a}, x, y);
  if (n > min_long_len) {  // else no group is long
    rec.dispatch(kernel_for(segr_chunk_args_spec), {rec.params(p), vals, offs, o, w, part, a}, 1);
    rec.dispatch_indirect(kernel_for(segr_chunks_spec), {rec.params(p), vals, offs, o, w, part}, args.native(), 0);
    rec.dispatch_indirect(kernel_for(segr_longs_spec), {rec.params(p), vals, offs, o, w, part}, args.native(), 12);
    if (scan)
      rec.dispatch_indirect(kernel_for(segr_chunk_scan_spec), {rec.params(p), vals, offs, o, w, part}, args.native(), 0);
  }
  segmented_workspace ws;
  ws.words = 0;
  ws.heads = &work;
  return ws;
}
}  // namespace

segmented_workspace record_segmented_reduce_per_subgroup(recorder& rec, const monoid& m, const device_view& values,
                                                         std::uint64_t n, const device_view& offsets,
                                                         std::uint64_t n_segments, const device_view& out) {
  return record_per_subgroup(rec, m, values, n, offsets, n_segments, out, false, false);
}

segmented_workspace record_segmented_scan_per_subgroup(recorder& rec, const monoid& m, const device_view& values,
                                                       std::uint64_t n, const device_view& offsets,
                                                       std::uint64_t n_segments, const device_view& out,
                                                       bool exclusive) {
  return record_per_subgroup(rec, m, values, n, offsets, n_segments, out, true, exclusive);
}

}  // namespace wgprim::detail
