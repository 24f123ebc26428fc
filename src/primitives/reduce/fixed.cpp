// The reproducible reduce: blocks of 4,096 in a fixed tree, level after level, with double-word accumulation.
// The first level reads the data in binding-sized chunks of whole blocks; block numbering is global, so the
// chunking does not change the shape. The result (a pair) lands in result[result_index].
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "primitives/reduce/reduce.hpp"

namespace wgprim::detail {

struct fixed_params {
  std::uint32_t n, blocks, grid_x, out_offset;
};
static_assert(sizeof(fixed_params) == 16);
const kernel_spec reduce_fixed_spec{"reduce/fixed.wgsl", "reduce_block",
                                    {slot::uniform, slot::storage_read, slot::storage_rw}, sizeof(fixed_params)};

void record_reduce_reproducible(recorder& rec, const reduce_args& a) {
  context& ctx = rec.ctx();
  const monoid& m = *a.m;
  const std::uint64_t n = a.in.count;
  constexpr std::uint64_t block = 256 * 16;
  const auto& k_data = get_kernel(
      ctx, reduce_fixed_spec, compose_wgsl(reduce_fixed_spec.file, m, {}, {}, accum::double_word, false), true);
  const auto& k_pairs = get_kernel(
      ctx, reduce_fixed_spec, compose_wgsl(reduce_fixed_spec.file, m, {}, {}, accum::double_word, true), true);
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  std::uint64_t blocks = (n + block - 1) / block;
  buffer level[2] = {ctx.create_buffer(blocks * 8), ctx.create_buffer(((blocks + block - 1) / block) * 8)};
  auto dispatch = [&](const kernel& k, binding src, std::uint64_t count, binding dst, std::uint64_t out_offset) {
    std::uint64_t b = (count + block - 1) / block;
    std::uint32_t gx, gy;
    grid_2d(b, max_dim, gx, gy);
    fixed_params p{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(b), gx,
                   static_cast<std::uint32_t>(out_offset)};
    rec.dispatch(k, {rec.params(p), src, dst}, gx, gy);
  };
  if (blocks == 1) {
    dispatch(k_data, bind(a.in), n, bind_result(a), a.result_index);
    return;
  }
  for (const chunk& c : chunks_of(n, elements_per_binding(ctx, 4, block)))
    dispatch(k_data, bind(a.in, c.first, c.count), c.count, bind(view_of(level[0])), c.first / block);
  int cur = 0;
  while (blocks > block) {
    std::uint64_t next = (blocks + block - 1) / block;
    dispatch(k_pairs, bind(view_of(level[cur], blocks, 8)), blocks, bind(view_of(level[1 - cur])), 0);
    blocks = next;
    cur = 1 - cur;
  }
  dispatch(k_pairs, bind(view_of(level[cur], blocks, 8)), blocks, bind_result(a), a.result_index);
}

}  // namespace wgprim::detail
