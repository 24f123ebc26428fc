// Segmented scan and reduce over CSR offsets in one decoupled look-back pass (shaders/segmented/decoupled.wgsl):
// a bounds pass over the offsets, then one pass over the values in which each tile's state is the (head, value)
// pair of the segmented operator, so a walk stops at the first tile that holds a head. Replaces the streaming
// tiles passes (tile pairs, spine, and for the scan a rescan: the values read twice) where the values, offsets and
// outputs each fit one binding; the reduce writes each segment's value from the tile that owns its end offset.
#include "core/wgsl_compose.hpp"
#include "gpu/gpu.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/segmented/segmented.hpp"
#include "primitives/select/policy.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
struct seg_scan_params {
  std::uint32_t n, n_seg, tiles, exclusive, spin_limit, stress, pad0, pad1;
};
static_assert(sizeof(seg_scan_params) == 32);
const std::vector<slot> seg_scan_layout = {slot::uniform,    slot::storage_read, slot::storage_read,
                                           slot::storage_read, slot::storage_rw, slot::storage_rw,
                                           slot::storage_rw,   slot::storage_rw, slot::storage_rw};

// The pair monoid of scan.wgsl over the user's monoid (V, v_identity, v_combine). A head in the right operand
// drops the left one's value: the segmented operator. Its flag is an "or", so a tile's inclusive pair equals
// its aggregate as soon as it holds a head (the early INCLUSIVE state of decoupled.wgsl relies on it).
// A segment head (b.x != 0) starts a new sum: b itself.
std::string seg_scan_prelude(const monoid& m) { return pair_scan_prelude(m, "return b;"); }
}  // namespace

std::string pair_scan_prelude(const monoid& m, const std::string& when_b_word) {
  const std::string v = dtype_name(m.type());
  return "alias V = " + v + ";\nfn v_identity() -> V {\n  return " + wgsl_constant(m.type(), m.identity_raw()) +
         ";\n}\nfn v_combine(a: V, b: V) -> V {\n  return " + m.wgsl_expression() +
         ";\n}\n"
         "alias T = vec2<u32>;\n"
         "fn identity() -> T {\n  return vec2<u32>(0u, bitcast<u32>(v_identity()));\n}\n"
         "fn combine(a: T, b: T) -> T {\n  if (b.x != 0u) {\n    " + when_b_word + "\n  }\n"
         "  return vec2<u32>(a.x, bitcast<u32>(v_combine(bitcast<V>(a.y), bitcast<V>(b.y))));\n}\n"
         "const T_WORDS = 2u;\nfn t_to_words(v: T) -> vec2<u32> {\n  return v;\n}\n"
         "fn t_from_words(w: vec2<u32>) -> T {\n  return w;\n}\n";
}

const kernel_spec seg_decoupled_bounds_spec{"segmented/decoupled.wgsl", "prepare", seg_scan_layout,
                                            sizeof(seg_scan_params)};
const kernel_spec seg_decoupled_spec{"segmented/decoupled.wgsl", "seg_decoupled", seg_scan_layout,
                                     sizeof(seg_scan_params)};

namespace {
// reduce: out gets n_segments reductions instead of the n-element scan.
segmented_workspace record_decoupled(recorder& rec, const monoid& m, const device_view& values, std::uint64_t n,
                                     const device_view& offsets, std::uint64_t n_segments, const device_view& out,
                                     bool exclusive, bool reduce, const tuning& tune) {
  context& ctx = rec.ctx();
  const bool stress = lookback_stress(ctx);
  // The select's knobs (tile size, spin, look-back walk, layout: raked where the policy has it, which needs
  // subgroups; staged is taken as blocked here). tune.items above 8 is the streaming spine's knob, not a tile size.
  tuning t = tune;
  if (t.items > 8) t.items = 0;
  select_policy pol = select_policy_for(ctx, t, stress);
  const bool raked = pol.tile == select_policy::layout::raked && pol.subgroups;
  // The reduce keeps a tile of values in workgroup memory (4 bytes each, beside about 3 KiB of head bits, look-back
  // window and the lanes' WG_SIZE pairs).
  while (reduce && pol.items > 1 &&
         std::uint64_t(pol.wg_size) * pol.items * 16 + 4096 > ctx.limits().max_compute_workgroup_storage_size)
    --pol.items;
  const bool sub_walk = pol.subgroups && pol.subgroup_lookback;
  const std::string& src = compose_wgsl_with_prelude(
      seg_decoupled_spec.file, seg_scan_prelude(m),
      {{"WG_SIZE", std::to_string(pol.wg_size) + "u"}, {"ITEMS", std::to_string(pol.items) + "u"},
       {"WINDOW", std::to_string(pol.window) + "u"}, {"SUBGROUP_LOOKBACK", sub_walk ? "true" : "false"},
       {"REDUCE", reduce ? "true" : "false"}, {"RAKED", raked ? "true" : "false"},
       {"REDUCE_WORDS", std::to_string(reduce ? pol.wg_size * pol.items * 4 : 1) + "u"}},
      {lanes_module(pol.subgroups)});
  // Trusted only for built-in operators: a custom one is an expression of the user's, checked as everywhere.
  const kernel& bounds_k = get_kernel(ctx, seg_decoupled_bounds_spec, src, m.is_builtin());
  const kernel& scan_k = get_kernel(ctx, seg_decoupled_spec, src, m.is_builtin());
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  const std::uint64_t tiles = (n + tile - 1) / tile;
  segmented_workspace ws;
  ws.words = 0;
  // [0] offsets out of order, [1] look-back fallbacks (copied from the state); a context scratch buffer, as every
  // workspace here (no allocation per call).
  const buffer& heads = scratch(ctx, "segmented_scan.heads", 16);
  ws.heads = &heads;
  // The state: cleared by the prepare pass (heads[0] too); its word 1 counts the look-back's fallbacks, read from there
  // after the submission (no dispatch copies it out).
  const buffer& state = scratch(ctx, "segmented_scan.state", (2 + 4 * tiles) * 4);
  const buffer& bounds = scratch(ctx, "segmented_scan.bounds", (tiles + 1) * 4);
  const buffer& dummy_in = scratch(ctx, "segmented_scan.dummy_in", 16);
  const buffer& dummy_out = scratch(ctx, "segmented_scan.dummy_out", 16);
  const seg_scan_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n_segments),
                          static_cast<std::uint32_t>(tiles), exclusive ? 1u : 0u, pol.spin, stress ? 1u : 0u, 0, 0};
  auto vec = [&](const device_view& v, const buffer& placeholder) {
    return n / 4 ? binding{v.buf, v.offset, n / 4 * 16} : bind(view_of(placeholder));
  };
  const binding vals = bind(values, 0, n), vals4 = vec(values, dummy_in), offs = bind(offsets, 0, n_segments + 1),
                bnd = bind(view_of(bounds)), o = bind(out, 0, reduce ? n_segments : n),
                o4 = reduce ? bind(view_of(dummy_out)) : vec(out, dummy_out), st = bind(view_of(state)),
                brk = bind(view_of(heads, 4));
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  std::uint32_t bx, by, tx, ty;
  grid_2d((tiles + 1 + pol.wg_size - 1) / pol.wg_size, max_dim, bx, by);
  grid_2d(tiles, max_dim, tx, ty);
  rec.dispatch(bounds_k, {rec.params(p), vals, vals4, offs, bnd, o, o4, st, brk}, bx, by);
  rec.dispatch(scan_k, {rec.params(p), vals, vals4, offs, bnd, o, o4, st, brk}, tx, ty);
  ws.fallbacks = &state;
  return ws;
}
}  // namespace

segmented_workspace record_segmented_scan_decoupled(recorder& rec, const monoid& m, const device_view& values,
                                                    std::uint64_t n, const device_view& offsets,
                                                    std::uint64_t n_segments, const device_view& out, bool exclusive,
                                                    const tuning& tune) {
  return record_decoupled(rec, m, values, n, offsets, n_segments, out, exclusive, false, tune);
}

segmented_workspace record_segmented_reduce_decoupled(recorder& rec, const monoid& m, const device_view& values,
                                                      std::uint64_t n, const device_view& offsets,
                                                      std::uint64_t n_segments, const device_view& out,
                                                      const tuning& tune) {
  return record_decoupled(rec, m, values, n, offsets, n_segments, out, false, true, tune);
}

}  // namespace wgprim::detail
