// The seed's two-pass reduction, kept as the baseline: pass 1 runs 256 workgroups of 256 invocations per
// storage-binding chunk (a grid-stride loop and a workgroup tree), each chunk writing its own 256 partials;
// pass 2 is the same entry point over all partials with one workgroup.
#include "core/wgsl_compose.hpp"
#include "primitives/reduce/reduce.hpp"

namespace wgprim::detail {

struct reduce_seed_params {
  std::uint32_t n, out_offset, pad0, pad1;
};
static_assert(sizeof(reduce_seed_params) == 16);
const kernel_spec reduce_seed_spec{"baselines/reduce_seed.wgsl", "reduce", {slot::uniform, slot::storage_read, slot::storage_rw},
                                   sizeof(reduce_seed_params)};

void record_reduce_seed(recorder& rec, const reduce_args& a) {
  context& ctx = rec.ctx();
  constexpr std::uint32_t groups = 256;
  const auto& k = get_kernel(ctx, reduce_seed_spec, compose_wgsl(reduce_seed_spec.file, *a.m, {{"WG_SIZE", "256u"}}),
                             /*trusted=*/a.m->is_builtin());
  const std::uint32_t eb = dtype_bytes(a.m->type());
  const auto parts = chunks_of(a.in.count, elements_per_binding(ctx, eb));
  buffer partials = ctx.create_buffer(parts.size() * groups * eb);
  for (std::size_t c = 0; c < parts.size(); ++c) {
    reduce_seed_params p{static_cast<std::uint32_t>(parts[c].count), static_cast<std::uint32_t>(c * groups), 0, 0};
    rec.dispatch(k, {rec.params(p), bind(a.in, parts[c].first, parts[c].count), bind(view_of(partials))}, groups);
  }
  reduce_seed_params p{static_cast<std::uint32_t>(parts.size() * groups), a.result_index, 0, 0};
  rec.dispatch(k, {rec.params(p), bind(view_of(partials)), bind_result(a)}, 1);
}

}  // namespace wgprim::detail
