// Reduce-by-key and run-length encoding in one pass (shaders/select/by_key.wgsl): the head-flag compaction of the
// select with the run's value carried in the look-back's pair. One dispatch per storage-binding chunk of the
// keys and window of the outputs (one of each unless an array is larger than one binding), as the select.
#include "core/wgsl_compose.hpp"
#include "gpu/gpu.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/segmented/segmented.hpp"
#include "primitives/select/policy.hpp"
#include "primitives/select/select.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct by_key_params {
  std::uint32_t n, tiles, use_carry, carry_index, prev_index, next_index, has_prev, has_next, win_first, win_count,
      spin_limit, stress;
};
static_assert(sizeof(by_key_params) == 48);
const kernel_spec by_key_spec{"select/by_key.wgsl",
                              "reduce_by_key",
                              {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_read,
                               slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw,
                               slot::storage_rw},
                              sizeof(by_key_params)};

struct rle_heads_params {
  std::uint32_t n, capacity, stride, pad0;
};
static_assert(sizeof(rle_heads_params) == 16);
const kernel_spec rle_heads_spec{"select/rle_heads.wgsl",
                                 "rle_lengths",
                                 {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw,
                                  slot::storage_rw, slot::storage_read},
                                 sizeof(rle_heads_params)};

namespace {
// The pair monoid of by_key.wgsl over the user's monoid (V, v_identity, v_combine).
// b holds run starts (b.x of them): the runs add up, and the value restarts with b's.
std::string by_key_prelude(const monoid& m) { return pair_scan_prelude(m, "return vec2<u32>(a.x + b.x, b.y);"); }
}  // namespace

bool by_key_decoupled_serves(const segmented_args& a) {
  return !is_wide(a.m->type()) && dtype_bytes(a.key_type) == 4;
}

segmented_workspace record_by_key_decoupled(recorder& rec, const segmented_args& a) {
  context& ctx = rec.ctx();
  const bool stress = lookback_stress(ctx);
  const select_policy pol = select_policy_for(ctx, tuning{}, stress);
  const std::string lanes = lanes_module(pol.subgroups);
  const bool sub_walk = pol.subgroups && pol.subgroup_lookback;
  const std::string& src = compose_wgsl_with_prelude(
      by_key_spec.file, by_key_prelude(*a.m),
      {{"WG_SIZE", std::to_string(pol.wg_size) + "u"}, {"ITEMS", std::to_string(pol.items) + "u"},
       {"WINDOW", std::to_string(pol.window) + "u"}, {"SUBGROUP_LOOKBACK", sub_walk ? "true" : "false"},
       {"ONES", a.ones ? "true" : "false"}, {"KEY_F32", a.key_type == dtype::f32 ? "true" : "false"}},
      {lanes});
  // Trusted only for built-in operators: a custom one is an expression of the user's, checked as everywhere.
  const auto& k = get_kernel(ctx, by_key_spec, src, a.m->is_builtin());
  const std::uint64_t n = a.n;
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  const std::uint64_t per_binding = elements_per_binding(ctx, 4, tile);
  const auto parts = chunks_of(n, per_binding);
  const std::uint64_t chunks = parts.size();
  const std::uint64_t max_tiles = (parts.front().count + tile - 1) / tile;
  // carry: [2 c, 2 c + 1] the pair before chunk c (c <= chunks: [2 chunks] is the number of runs), then the key
  // before chunk c at prev_base + c and the key after it at next_base + c.
  const std::uint64_t prev_base = 2 * (chunks + 1), next_base = prev_base + chunks;
  // Workspaces kept by the context (no allocation, and no zero-fill by wgpu, per call): carry is zeroed per call,
  // state per pass; the run count in carry is copied or read back by the caller before another call records.
  // Carry words and tile states in one workspace (one clearing dispatch for one chunk).
  const lookback_workspace work(ctx, "by_key.work", (next_base + chunks) * 4, (2 + 4 * max_tiles) * 4);
  const binding carry = work.carry(), state = work.states();
  segmented_workspace ws;
  ws.tiles = &work.buf();  // the carry words from offset 0
  ws.runs_index = 2 * chunks;
  // Placeholders: read-only ones for RLE's values and short chunks' vectors, one writable one per output.
  const buffer& dummy_vec = scratch(ctx, "by_key.dummy_vec", 16);
  const buffer& dummy = scratch(ctx, "by_key.dummy", 16);
  const buffer& dummy_keys_out = scratch(ctx, "by_key.dummy_keys_out", 16);
  const buffer& dummy_sums_out = scratch(ctx, "by_key.dummy_sums_out", 16);
  // Dispatches (the compute pass stays open); one chunk: the carry and the states together.
  const bool one_clear = chunks == 1;
  if (one_clear) work.clear(rec, (2 + 4 * ((parts[0].count + tile - 1) / tile)) * 4);
  else work.clear_carry(rec);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    if (c > 0) rec.copy_raw(a.keys.buf, a.keys.offset + (parts[c].first - 1) * 4, carry.buf, (prev_base + c) * 4, 4);
    if (c + 1 < chunks)
      rec.copy_raw(a.keys.buf, a.keys.offset + (parts[c].first + parts[c].count) * 4, carry.buf,
                   (next_base + c) * 4, 4);
  }
  auto vec = [&](const device_view& v, const chunk& ch) {
    return bind_vec4(v, ch.first, ch.count, dummy_vec);
  };
  const std::uint64_t capacity = a.capacity;
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const chunk& ch = parts[c];
    const std::uint64_t tiles = (ch.count + tile - 1) / tile;
    std::uint32_t gx, gy;
    grid_2d(tiles, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    // Runs of this chunk have indices below ch.first + ch.count (at most one per key): one dispatch per output
    // window of one binding up to there (and up to the capacity: runs past it are not written).
    const std::uint64_t reach = std::min(capacity, ch.first + ch.count);
    for (std::uint64_t w = 0; w == 0 || w * per_binding < reach; ++w) {
      const std::uint64_t win_first = w * per_binding;
      const std::uint64_t win_count = win_first < capacity ? std::min(per_binding, capacity - win_first) : 0;
      const by_key_params p{static_cast<std::uint32_t>(ch.count), static_cast<std::uint32_t>(tiles), c > 0 ? 1u : 0u,
                            static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(prev_base + c),
                            static_cast<std::uint32_t>(next_base + c), c > 0 ? 1u : 0u, c + 1 < chunks ? 1u : 0u,
                            static_cast<std::uint32_t>(win_first), static_cast<std::uint32_t>(win_count), pol.spin,
                            stress ? 1u : 0u};
      if (!one_clear) work.clear_states(rec, (2 + 4 * tiles) * 4);
      auto out = [&](const device_view& v, const buffer& placeholder) {
        return win_count ? bind(v, win_first, win_count) : bind(view_of(placeholder));
      };
      rec.dispatch(k, {rec.params(p), bind(a.keys, ch.first, ch.count), vec(a.keys, ch),
                       a.ones ? bind(view_of(dummy)) : bind(a.values, ch.first, ch.count),
                       a.ones ? bind(view_of(dummy_vec)) : vec(a.values, ch), out(a.unique_keys, dummy_keys_out), out(a.sums, dummy_sums_out),
                       state, carry},
                   gx, gy);
    }
  }
  return ws;
}

// Run-length encoding in two passes. Unique's pass is the select's fastest (a read-mostly compaction, H200 2^28
// u32: 0.54 ms of GPU time against 0.89 for the one by-key pass, whose look-back carries a pair); it writes where
// each run starts, and the second pass, a grid-stride loop over the runs, reads two neighbouring starts and each
// run's first key. Keys past one storage binding take the one pass (the second pass binds the keys whole).
bool rle_heads_serves(const context& ctx, const segmented_args& a) {
  if (!a.ones || dtype_bytes(a.key_type) != 4) return false;
  const select_policy pol = select_policy_for(ctx, tuning{}, false, /*unique=*/true);
  return a.n <= elements_per_binding(ctx, 4, std::uint64_t(pol.wg_size) * pol.items * 4);
}

segmented_workspace record_rle_heads(recorder& rec, const segmented_args& a) {
  context& ctx = rec.ctx();
  const std::uint64_t n = a.n;
  // Workspaces kept by the context: where each run starts (n words at most) and the run count.
  const buffer& heads = scratch(ctx, "rle.heads", n * 4);
  const buffer& runs = scratch(ctx, "rle.runs", 16);
  static const run_options defaults;
  select_args s;
  s.in = a.keys;
  s.out = view_of(heads, n);
  s.count = view_of(runs, 1);
  s.mode = select_mode::unique;
  s.partition = false;
  s.type = a.key_type;
  s.pred = nullptr;
  s.opt = &defaults;
  s.fallbacks = nullptr;
  s.heads = true;
  record_select_decoupled(rec, s);
  // The second pass: a grid-stride loop over the runs (at most n), on a grid sized from n.
  constexpr std::uint32_t wg = 256;
  const std::uint32_t groups = static_cast<std::uint32_t>(std::min<std::uint64_t>((n + wg - 1) / wg, 4096));
  const std::string& src =
      compose_wgsl_with_prelude(rle_heads_spec.file, "", {{"WG_SIZE", std::to_string(wg) + "u"}}, {});
  const kernel& k = get_kernel(ctx, rle_heads_spec, src, /*trusted=*/true);
  const std::uint64_t out_count = std::min(a.capacity, n);
  const rle_heads_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(out_count), groups * wg, 0};
  auto out = [&](const device_view& v, const char* placeholder) {
    return out_count ? bind(v, 0, out_count) : bind(view_of(scratch(ctx, placeholder, 16)));
  };
  rec.dispatch(k, {rec.params(p), bind(a.keys, 0, n), bind(view_of(heads, n)), out(a.unique_keys, "rle.none_values"),
                   out(a.sums, "rle.none_lengths"), bind(view_of(runs, 1))},
               groups);
  segmented_workspace ws;
  ws.tiles = &runs;
  ws.runs_index = 0;
  return ws;
}

}  // namespace wgprim::detail
