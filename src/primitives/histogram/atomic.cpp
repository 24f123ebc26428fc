// The atomic histogram: one dispatch per storage-binding chunk of the input; workgroup-private bins when
// they fit in workgroup memory (one global add per bin and workgroup), global atomics beyond.
#include <algorithm>
#include <memory>

#include "core/env.hpp"
#include "core/wgsl_compose.hpp"
#include "primitives/histogram/histogram.hpp"
#include "primitives/histogram/policy.hpp"
#include "primitives/policy.hpp"
#include "primitives/view.hpp"

namespace wgprim::detail {

struct histogram_params {
  std::uint32_t n, reach, use_estimate, pad;
  float lo, scale, margin;
  std::uint32_t pad2;
};
static_assert(sizeof(histogram_params) == 32);
const kernel_spec histogram_atomic_spec{
    "histogram/atomic.wgsl",
    "histogram",
    {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw, slot::storage_read},
    sizeof(histogram_params)};

histogram_policy histogram_policy_for(const context& ctx, std::uint64_t bins) {
  // On a CPU adapter a few threads run the workgroups in turn: more workgroups only add private-bin flushes (the table).
  histogram_policy p = policy_for(ctx).histogram;
  std::uint64_t size = 64;
  while (size < bins) size *= 2;
  // Workgroup memory: 32 KiB on lavapipe (8,192 bins), 48 KiB or more on NVIDIA; keep 1 KiB for the compiler.
  const std::uint64_t budget = ctx.limits().max_compute_workgroup_storage_size;
  if (size * 4 + 1024 <= budget) p.private_bins = static_cast<std::uint32_t>(size);
  // Then the edges, where the rest of the budget holds them: every value's bin search reads two or more edges.
  const std::uint64_t edges = (bins + 1 + 63) / 64 * 64;
  if (std::uint64_t(p.private_bins) * 4 + edges * 4 + 1024 <= budget) p.edge_cache = static_cast<std::uint32_t>(edges);
  // lavapipe (2 busy cores, 2^22 f32, 256 bins): the cached edges and four values per step measured 298-326 ms
  // against 163-264 ms without: CPU adapters keep the earlier shape. H200 (2026-12-01, GPU time, f32 uniform):
  // cached edges for 256 bins 0.885 ms at 2^28 against 1.061 without, but for 4096 bins 2.943 against 1.630
  // without. (Since 2026-12-02 the f32 shortcut reads no edge for most values.)
  if (!p.vec_loads || bins > 256) p.edge_cache = 0;  // the table: scalar loads on CPU adapters
  return p;
}

void record_histogram(recorder& rec, const histogram_args& a) {
  context& ctx = rec.ctx();
  histogram_policy pol = histogram_policy_for(ctx, a.bins);
  const algorithm_id alg = pick_algorithm(ctx, "histogram", a.opt ? a.opt->algorithm : std::string()).id;
  const bool named = a.opt && !a.opt->algorithm.empty();
  if (named && alg == algorithm_id::histogram_atomic && ctx.adapter().kind == adapter_kind::cpu) {
    // Named explicitly: the GPU shape on a CPU adapter too (tests cover it on lavapipe).
    histogram_policy gpu = pol;
    const std::uint64_t budget = ctx.limits().max_compute_workgroup_storage_size;
    const std::uint64_t edges = (a.bins + 1 + 63) / 64 * 64;
    gpu.step_values = 4;
    gpu.vec_loads = true;
    gpu.run_merge = false;
    if (std::uint64_t(pol.private_bins) * 4 + edges * 4 + 1024 <= budget) gpu.edge_cache = static_cast<std::uint32_t>(edges);
    pol = gpu;
  }
  // atomic-plain: the earlier kernel's shape (edges read from their binding, one value per step), to compare.
  const bool plain = alg == algorithm_id::histogram_atomic_plain;
  if (plain) {
    pol.edge_cache = 0;
    pol.step_values = 1;
    pol.vec_loads = false;
    pol.run_merge = true;
  }
  const env::histogram_ab ab = env::histogram_variant();
  if (ab.step) pol.step_values = ab.step;
  if (ab.scalar) pol.vec_loads = false;
  if (ab.merge >= 0) pol.run_merge = ab.merge == 1;
  // A view (fused, or a buffer with a transform) is read through load_input + view_lift, one value per load.
  const view_desc* view = a.view && (view_fused(a.view) || a.view->tr) ? a.view : nullptr;
  if (view) pol.vec_loads = false;
  static const monoid dummy(op::sum(), dtype::u32);  // the prelude's T is unused here (E: the values' bits)
  const char* kind = a.type == dtype::f32 ? "0u" : a.type == dtype::i32 ? "1u" : "2u";
  wgsl_constants constants{
       {"WG_SIZE", std::to_string(pol.wg_size) + "u"}, {"KIND", kind},
       {"PRIVATE_BINS", std::to_string(pol.private_bins) + "u"},
       {"PRIVATE_SIZE", std::to_string(std::max<std::uint32_t>(pol.private_bins, 1)) + "u"},
       {"EDGE_CACHE", std::to_string(pol.edge_cache) + "u"},
       {"STEP", std::to_string(pol.step_values) + "u"},
       {"VEC_LOADS", pol.vec_loads ? "true" : "false"},
       {"RUN_MERGE", pol.run_merge ? "true" : "false"},
       {"ABLATE_ATOMICS", ab.no_atomics ? "true" : "false"},
       {"EDGE_SIZE", std::to_string(std::max<std::uint32_t>(pol.edge_cache, 1)) + "u"}};
  for (auto& c : view_constants(view)) constants.push_back(c);
  const std::string& body = compose_wgsl(histogram_atomic_spec.file, dummy, constants);
  const std::string& src = view ? prefixed_wgsl(view_lift_wgsl(view), body) : body;
  const auto& k = get_kernel(ctx, histogram_atomic_spec, src, /*trusted=*/true);
  // Each workgroup takes at least 16 values per invocation and, with private bins, 8 per bin, so that the
  // per-workgroup flush stays small next to the counting.
  const std::uint64_t per_wg = std::max<std::uint64_t>(std::uint64_t(pol.wg_size) * 16, std::uint64_t(pol.private_bins) * 8);
  const buffer& dummy_vec = scratch(ctx, "histogram.dummy_vec", 16);
  const auto parts = chunks_of(a.in.count, elements_per_binding(ctx, 4, 64));
  const std::unique_ptr<bound_view> bv = view ? std::make_unique<bound_view>(ctx, *view, parts) : nullptr;
  for (std::size_t part = 0; part < parts.size(); ++part) {
    const chunk& c = parts[part];
    histogram_params p{static_cast<std::uint32_t>(c.count), a.reach, a.use_estimate ? 1u : 0u, 0, a.lo, a.scale, a.margin, 0};
    const std::uint64_t groups = std::min<std::uint64_t>(pol.max_workgroups, (c.count + per_wg - 1) / per_wg);
    const binding vec = bv                ? bv->slot1(part, bind(dummy_vec))
                        : pol.vec_loads ? bind_vec4(a.in, c.first, c.count, dummy_vec)
                                        : bind(dummy_vec);
    rec.dispatch(k, {rec.params(p), bv ? bv->src(part) : bind(a.in, c.first, c.count), bind(a.edges), bind(a.counts), vec},
                 static_cast<std::uint32_t>(std::max<std::uint64_t>(groups, 1)));
  }
}

}  // namespace wgprim::detail
