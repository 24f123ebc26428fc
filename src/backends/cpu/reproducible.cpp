// The reproducible f32 sum of the native backend. It must give the GPU's accuracy::reproducible bits, so it is
// the fixed-shape tree of shaders/reduce/fixed.wgsl (as cpu::reduce_reproducible_f32 mirrors it), evaluated with
// the same double-word operations (core/double_word.hpp) in the same order, and only parallelised where the
// shape allows: blocks of 4,096 are independent (oneTBB over blocks), and inside a block the 256 invocations are
// independent (vectorised over invocations). When the GPU's reproducible algorithm changes (the integer
// superaccumulator of branch `exact`), this file is what changes: nothing else in the backend depends on the shape.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <vector>

#include "backends/cpu/backend.hpp"
#include "core/double_word.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

constexpr std::size_t wg = 256, items = 16, block = wg * items;

// One block of one level: invocation l folds elements k * 256 + l (k = 0..15) into accumulator k % 4, the four
// are combined as (0+1)+(2+3), then a halving tree over the 256 invocations. `Src` is f32 (the data level,
// add_one) or dw (levels over block results, combine). `full`: all 4,096 elements present (no bounds test,
// so the invocation loops vectorise).
template <bool full, class Src>
dw fixed_block(const Src* src, std::size_t count) {
  alignas(64) float hi[4][wg] = {}, lo[4][wg] = {};
  for (std::size_t k = 0; k < items; ++k) {
    float* h = hi[k % 4];
    float* o = lo[k % 4];
    const Src* row = src + k * wg;
    const std::size_t valid = full ? wg : (count > k * wg ? std::min(wg, count - k * wg) : 0);
    for (std::size_t l = 0; l < (full ? wg : valid); ++l) {
      dw r;
      if constexpr (std::is_same_v<Src, float>) r = dw_add_one({h[l], o[l]}, row[l]);
      else r = dw_add({h[l], o[l]}, row[l]);
      h[l] = r.hi;
      o[l] = r.lo;
    }
  }
  alignas(64) float sh[wg], sl[wg];
  for (std::size_t l = 0; l < wg; ++l) {
    dw a = dw_add({hi[0][l], lo[0][l]}, {hi[1][l], lo[1][l]});
    dw b = dw_add({hi[2][l], lo[2][l]}, {hi[3][l], lo[3][l]});
    dw s = dw_add(a, b);
    sh[l] = s.hi;
    sl[l] = s.lo;
  }
  for (std::size_t stride = wg / 2; stride > 0; stride >>= 1)
    for (std::size_t l = 0; l < stride; ++l) {
      dw s = dw_add({sh[l], sl[l]}, {sh[l + stride], sl[l + stride]});
      sh[l] = s.hi;
      sl[l] = s.lo;
    }
  return {sh[0], sl[0]};
}

template <class Src>
std::vector<dw> fixed_level(const Src* src, std::size_t n) {
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<dw> out(blocks);
  auto run = [&](std::size_t b) {
    const std::size_t first = b * block, count = std::min(block, n - first);
    out[b] = count == block ? fixed_block<true>(src + first, count) : fixed_block<false>(src + first, count);
  };
  if (blocks < 8) {
    for (std::size_t b = 0; b < blocks; ++b) run(b);
  } else {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 4), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t b = r.begin(); b != r.end(); ++b) run(b);
    });
  }
  return out;
}

}  // namespace

float reproducible_sum_f32(const float* x, std::size_t n) {
  if (n == 0) return 0.0f;
  std::vector<dw> level = fixed_level(x, n);
  while (level.size() > 1) level = fixed_level(level.data(), level.size());
  return level[0].hi;
}

}  // namespace wgprim::detail::cpu_backend
