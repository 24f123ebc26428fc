// The regl document's render-pass reduction (see shaders/baselines/reduce_render.wgsl): a fragment shader folds
// 2x2 texels into a half-size target until 1x1 remains. The data must fit one storage binding; targets are at most
// 4,096 texels wide.
#include "core/wgsl_compose.hpp"
#include "primitives/reduce/reduce.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct render_params {
  std::uint32_t n, per_texel, width, pad0;
};
static_assert(sizeof(render_params) == 16);

void record_reduce_render(recorder& rec, const reduce_args& a) {
  context& ctx = rec.ctx();
  const monoid& m = *a.m;
  const std::uint64_t n = a.in.count;
  if (n * 4 > ctx.binding_limit())
    throw error(errc::limit, "the render reduction takes arrays of at most one storage binding (" +
                                 std::to_string(ctx.binding_limit() / 4) + " elements)");
  const tex_format fmt = m.type() == dtype::f32   ? tex_format::r32float
                         : m.type() == dtype::i32 ? tex_format::r32sint
                                                  : tex_format::r32uint;
  const rslot tex_slot = m.type() == dtype::f32   ? rslot::texture_float
                         : m.type() == dtype::i32 ? rslot::texture_sint
                                                  : rslot::texture_uint;
  const std::string& src = compose_wgsl("baselines/reduce_render.wgsl", m, {});
  const std::vector<rslot> layout{rslot::uniform, rslot::storage_read, tex_slot};
  const auto& k_first = get_render_kernel(ctx, src, "full_target", "first", layout, fmt);
  const auto& k_fold = get_render_kernel(ctx, src, "full_target", "fold", layout, fmt);
  std::uint32_t w = 1;
  while (w < 4096 && std::uint64_t(w) * w < n) w *= 2;
  const std::uint64_t per_texel = (n + std::uint64_t(w) * w - 1) / (std::uint64_t(w) * w);
  const std::uint32_t h = static_cast<std::uint32_t>(((n + per_texel - 1) / per_texel + w - 1) / w);
  const double clear[4] = {0, 0, 0, 0};
  texture dummy(ctx, 1, 1, fmt);
  texture first(ctx, w, h, fmt);
  render_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(per_texel), w, 0};
  rec.draw(k_first, {rbind(rec.params(p)), rbind(bind(a.in)), rbind(dummy)}, first, clear, 4);
  std::vector<texture> chain;
  chain.push_back(std::move(first));
  while (chain.back().width() > 1 || chain.back().height() > 1) {
    const texture& prev = chain.back();
    texture next(ctx, (prev.width() + 1) / 2, (prev.height() + 1) / 2, fmt);
    rec.draw(k_fold, {rbind(rec.params(p)), rbind(bind(a.in)), rbind(prev)}, next, clear, 4);
    chain.push_back(std::move(next));
  }
  buffer texel = ctx.create_buffer(256);
  rec.copy(chain.back(), texel);
  rec.copy_raw(texel.native(), 0, a.result, std::uint64_t(a.result_index) * 4, 4);
}

}  // namespace wgprim::detail
