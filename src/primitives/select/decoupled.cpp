// The single-pass decoupled-fallback select (shaders/select/decoupled.wgsl): one dispatch per storage-binding
// chunk of the input and window of the output (one of each unless the array is larger than one binding), after
// one count_kept dispatch per chunk for stable partitions (a reversed one needs none). The last tile writes the
// count where the caller wants it (one chunk; a device count of 0 runs one workgroup to write 0); otherwise a dispatch
// copies it there (no elements: a transfer clears it).
#include <memory>
#include <optional>

#include "core/env.hpp"
#include "core/wgsl_compose.hpp"
#include "gpu/gpu.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/policy.hpp"
#include "primitives/select/policy.hpp"
#include "primitives/select/select.hpp"
#include "primitives/counted.hpp"
#include "primitives/view.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct select_params {
  std::uint32_t n, tiles, grid_x, chunk_first, win_first, win_count, carry_index, total_index, prev_index, has_prev,
      spin_limit, stress, n_total, count_at, count_write;
};
static_assert(sizeof(select_params) == 60);
namespace {
const std::vector<slot> select_layout = {slot::uniform,      slot::storage_read, slot::storage_read,
                                         slot::storage_read, slot::storage_read, slot::storage_rw,
                                         slot::storage_rw,   slot::storage_rw,    slot::storage_rw};
}
const kernel_spec select_decoupled_spec{"select/decoupled.wgsl", "select_tiles", select_layout, sizeof(select_params)};
const kernel_spec select_count_spec{"select/decoupled.wgsl", "count_kept", select_layout, sizeof(select_params)};

select_policy select_policy_for(const context& ctx, const tuning& t, bool stress, bool unique, bool partition) {
  // As the scan: on a CPU adapter a few threads run workgroups in turn, so waiting long is waste (the table's spin).
  select_policy p = policy_for(ctx).select;
  if (unique) p.tile = p.unique_tile;
  if (partition) {
    p.tile = p.partition_tile;
    p.items = p.partition_items;
  }
  p.subgroups = ctx.features().subgroups;
  // The kept mask of an invocation is one u32: at most 32 elements, 8 vec4.
  if (t.items > 8) throw error(errc::invalid_argument, "tuning: items must be 1..8 for the decoupled select");
  if (t.items) p.items = t.items;
  if (t.spin_limit) p.spin = t.spin_limit;
  if (stress) p.spin = 1;
  if (t.subgroups == 0) p.subgroups = false;
  if (t.lookback_subgroup < -1 || t.lookback_subgroup > 1)
    throw error(errc::invalid_argument, "tuning: lookback_subgroup must be -1 (the policy), 0 or 1");
  if (t.lookback_subgroup >= 0) p.subgroup_lookback = t.lookback_subgroup == 1;
  if (t.lookback_window > p.wg_size)
    throw error(errc::invalid_argument, "tuning: the look-back window must be 1.." + std::to_string(p.wg_size));
  if (t.lookback_window) p.window = t.lookback_window;
  if (t.staged < -1 || t.staged > 2)
    throw error(errc::invalid_argument, "tuning: staged must be -1 (the policy), 0 direct, 1 staged or 2 raked");
  // Writes, the select's cost beyond the scan's: blocked direct writes scatter (each invocation its own run),
  // staged ones (CUB's two-phase scatter) coalesce through TILE * 4 bytes of workgroup memory and a barrier,
  // raked ones (subgroup chunks) coalesce without either, which is why it is the GPU default where subgroups
  // exist (the scan's measurements: staging cost 1.46 vs 0.90 ms at 2^28 on the H200; the select's raked vs
  // staged is still to be measured there: tuning::staged chooses). On CPU adapters
  // coalescing buys nothing: direct (lavapipe 2^22 f32 select, loaded 2-core machine: staged 415-615 ms vs direct
  // 436-516 ms, within the noise).
  using L = select_policy::layout;
  // The table: direct on CPU adapters, raked on GPUs (staged below without subgroups).
  if (t.staged >= 0) p.tile = static_cast<L>(t.staged);
  if (p.tile == L::raked && !p.subgroups) p.tile = L::staged;
  const std::uint64_t stage_bytes = std::uint64_t(p.wg_size) * p.items * 16;
  if (p.tile == L::staged && stage_bytes + 2048 > ctx.limits().max_compute_workgroup_storage_size) p.tile = L::direct;
  return p;
}

namespace {
std::string element_prelude(dtype t, const bound_predicate* pred) {
  // Module-scope declarations are order-independent in WGSL, so these can precede the composed module.
  return std::string("alias ELEM = ") + dtype_name(t) + ";\nfn keep_predicate(a: ELEM) -> bool {\n  return " +
         (pred ? pred->wgsl_expression() : std::string("true")) + ";\n}\n";
}

}  // namespace

void record_select_decoupled(recorder& rec, const select_args& a) {
  context& ctx = rec.ctx();
  const bool stress = lookback_stress(ctx);
  const select_policy pol =
      select_policy_for(ctx, a.opt->tune, stress, a.mode == select_mode::unique, a.partition);
  const bool staged = pol.tile == select_policy::layout::staged;
  // cub::DevicePartition::If's order: the rejected part written from the end down, so no count pass first.
  const bool reversed = a.partition && a.opt->rejected == rejected_order::reversed;
  // A view (fused, or a buffer with a transform) is read through load_input + view_lift.
  const view_desc* view = a.view && (view_fused(a.view) || a.view->tr) ? a.view : nullptr;
  const bool unroll = env::unroll_or(pol.unroll);
  auto compose = [&]() -> const std::string& {
    const monoid counts(op::sum(), dtype::u32);
    const std::string lanes = lanes_module(pol.subgroups);
    const char* mode = a.mode == select_mode::flags ? "1u" : a.mode == select_mode::unique ? "2u" : "0u";
    wgsl_constants constants{{"WG_SIZE", std::to_string(pol.wg_size) + "u"}, {"ITEMS", std::to_string(pol.items) + "u"},
                             {"ITEMS4", std::to_string(pol.items * 4) + "u"}, {"UNROLL", unroll ? "true" : "false"},
                             {"WINDOW", std::to_string(pol.window) + "u"}, {"MODE", mode},
                             {"PARTITION", a.partition ? "true" : "false"}, {"HEADS", a.heads ? "true" : "false"},
                             {"REVERSED", reversed ? "true" : "false"},
                             {"IS_F32", a.type == dtype::f32 ? "true" : "false"}, {"STAGED", staged ? "true" : "false"},
                             {"RAKED", pol.tile == select_policy::layout::raked ? "true" : "false"},
                             {"STAGE_SIZE", staged ? std::to_string(pol.wg_size * pol.items * 4) + "u" : "1u"},
                             {"SUBGROUP_LOOKBACK", pol.subgroups && pol.subgroup_lookback ? "true" : "false"}};
    for (auto& c : view_constants(view)) constants.push_back(c);
    return prefixed_wgsl(element_prelude(a.type, a.pred) + view_lift_wgsl(view),
                         compose_wgsl(select_decoupled_spec.file, counts, constants, {lanes}));
  };
  // Without a view, everything the text depends on is in a short key: a repeat call builds no strings.
  const std::string& src =
      view ? compose()
           : memo_text(text_key{&select_decoupled_spec,
                                {pol.wg_size, pol.items, pol.window, static_cast<std::uint32_t>(a.mode), a.partition,
                                 static_cast<std::uint32_t>(a.type), static_cast<std::uint32_t>(pol.tile),
                                 pol.subgroups, pol.subgroup_lookback, a.heads, reversed, unroll},
                                a.pred ? a.pred->wgsl_expression() : std::string()},
                       compose);
  // Trusted (no naga bounds checks, no loop bounding) even with a user predicate: the predicate is re-emitted by
  // the expression front end (core/expr.cpp), a parenthesised expression in `a` with no indexing, no loops and
  // no calls but WGSL built-ins and shared/predicate.wgsl, so it cannot reach memory the kernel's proven indexing
  // does not. The checked module forced naga's loop counters into every tile loop (the loops over vals[] stay
  // dynamic-indexed, out of registers): H200 2^28, select_if f32 (checked) 2.32 ms vs unique u32 (trusted)
  // 1.12 ms on the same kernel.
  const bool trusted = true;
  // A counted input (a.in_count): every pass over the capacity, its grid and the count words of its parameter
  // block sized on the device (primitives/counted.hpp); one chunk, so the chunk's n is the whole count.
  const bool counted = a.in_count.buf != nullptr;
  const auto& k = counted ? counted_kernel(ctx, select_decoupled_spec, src, trusted)
                          : get_kernel(ctx, select_decoupled_spec, src, trusted);
  const std::uint64_t n = a.in.count;
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  const std::uint64_t per_binding = elements_per_binding(ctx, 4, tile);  // whole tiles per chunk and window
  const auto parts = chunks_of(n, per_binding);
  const std::uint64_t chunks = parts.size();
  if (counted && chunks > 1)
    throw error(errc::limit, "select: a counted input must fit one storage binding (" +
                                 std::to_string(per_binding) + " elements here)");
  if (chunks == 0) {
    // No elements: the count is 0, cleared by a transfer, so that an empty call (a pipeline's run on an empty input)
    // makes no kernel that its non-empty calls did not (they clear their workspace in other dispatches).
    rec.clear_raw(a.count.buf, a.count.offset, 4);
    return;
  }
  const std::uint64_t max_tiles = chunks ? (parts.front().count + tile - 1) / tile : 1;
  // carry: [0, chunks] kept before each chunk, [chunks + 1] the partition's total, [chunks + 2 + c] the element
  // before chunk c (unique).
  const std::uint64_t total_index = chunks + 1, prev_base = chunks + 2;
  // One workspace kept by the context (no allocation, and no zero-fill by wgpu, per call): the carry words, then the
  // tile states at state_at (a binding offset). Cleared by dispatches (record_zero): a transfer command would end the
  // compute pass between calls. One chunk (one output window): carry and states with one dispatch, as nothing
  // writes either before the select's pass (the stable partition's count pass only adds to the zeroed carry).
  const lookback_workspace ws(ctx, "select.work", (prev_base + chunks) * 4, (2 + 2 * max_tiles) * 4);
  const binding carry = ws.carry(), state = ws.states();
  const buffer& dummy_vec = scratch(ctx, "select.dummy_vec", 16);
  const buffer& dummy_flags = scratch(ctx, "select.dummy_flags", 16);
  const bool one_clear = chunks == 1;
  // A counted input: the first counted pass's sizing dispatch zeroes them (count_args_fill.wgsl), one dispatch fewer.
  std::optional<binding> zero_in_sizing;
  const std::uint64_t used_states = one_clear ? (2 + 2 * ((parts[0].count + tile - 1) / tile)) * 4 : 0;
  if (one_clear && counted) zero_in_sizing = ws.cleared(used_states);
  else if (one_clear) ws.clear(rec, used_states);
  else ws.clear_carry(rec);
  if (view && a.mode == select_mode::unique && chunks > 1)
    throw error(errc::limit, "unique over a view: at most one storage binding of elements (" +
                                 std::to_string(per_binding) + ")");
  const std::unique_ptr<bound_view> bv = view ? std::make_unique<bound_view>(ctx, *view, parts) : nullptr;
  auto in_bind = [&](std::uint64_t c) { return bv ? bv->src(c) : bind(a.in, parts[c].first, parts[c].count); };
  auto in_vec = [&](std::uint64_t c) {
    return bv ? bv->slot1(c, bind(view_of(dummy_vec))) : bind_vec4(a.in, parts[c].first, parts[c].count, dummy_vec);
  };
  if (a.mode == select_mode::unique)
    for (std::uint64_t c = 1; c < chunks; ++c)
      rec.copy_raw(a.in.buf, a.in.offset + (parts[c].first - 1) * 4, carry.buf, (prev_base + c) * 4, 4);

  // The caller's count written by the select pass's last tile (no dispatch after it to copy it from carry): with one
  // chunk and some elements (a device count of 0 runs one workgroup that writes 0), and the count in none of the
  // buffers the pass reads (a read-only binding and a writable one of one buffer may not meet in a dispatch).
  const buffer& dummy_count = scratch(ctx, "select.dummy_count", 16);
  std::uint32_t count_at = 0;
  bool count_fused = chunks == 1 && n > 0;
  if (count_fused)
    for (const binding& r : {in_bind(0), in_vec(0)})
      count_fused = count_fused && r.buf != a.count.buf;
  if (count_fused && a.mode == select_mode::flags) count_fused = a.flags.buf != a.count.buf;
  const binding count_out =
      count_fused ? bind_from_aligned(ctx, a.count.buf, a.count.offset, 4, &count_at) : bind(view_of(dummy_count));
  auto run = [&](const kernel& kk, const select_params& p, std::initializer_list<binding> rest, std::uint32_t gx,
                 std::uint32_t gy) {
    std::vector<binding> all;
    counted_pass cp;
    if (counted) {
      // n, tiles, grid_x and the window's width (the whole output: one chunk) follow the count; a reversed
      // partition's n_total takes the count instead of the width (which stays the capacity: every write lands below
      // the count).
      count_words w;
      w.n = 0; w.tiles = 1; w.grid_x = 2; w.n2 = reversed ? 12 : 5;
      w.one_group = count_fused && &kk == &k;  // the select pass writes the count, 0 included
      cp = record_counted_pass(rec, a.in_count, &p, sizeof p, w, tile, n, zero_in_sizing ? &*zero_in_sizing : nullptr);
      zero_in_sizing.reset();  // once, before the first counted pass
      all.push_back(cp.params);
    } else {
      all.push_back(rec.params(p));
    }
    all.insert(all.end(), rest.begin(), rest.end());
    // select_layout: 9 slots.
    const std::initializer_list<binding> b = {all[0], all[1], all[2], all[3], all[4], all[5], all[6], all[7], all[8]};
    if (counted) rec.dispatch_indirect(kk, b, cp.args, cp.args_offset);
    else rec.dispatch(kk, b, gx, gy);
  };
  auto params_for = [&](std::uint64_t c, std::uint64_t tiles, std::uint32_t gx, std::uint64_t win_first,
                        std::uint64_t win_count) {
    return select_params{static_cast<std::uint32_t>(parts[c].count), static_cast<std::uint32_t>(tiles), gx,
                         static_cast<std::uint32_t>(parts[c].first), static_cast<std::uint32_t>(win_first),
                         static_cast<std::uint32_t>(win_count), static_cast<std::uint32_t>(c),
                         static_cast<std::uint32_t>(total_index), static_cast<std::uint32_t>(prev_base + c),
                         (a.mode == select_mode::unique && c > 0) ? 1u : 0u, pol.spin, stress ? 1u : 0u,
                         static_cast<std::uint32_t>(n), count_at, count_fused ? 1u : 0u};
  };
  // Fewer than 4 elements: no whole vec4 to bind, so the vector views bind (unused) placeholders.
  auto vec = [&](const device_view& v, const chunk& ch) {
    return bind_vec4(v, ch.first, ch.count, dummy_vec);
  };
  const bool flagged = a.mode == select_mode::flags;
  auto flag_bind = [&](const chunk& ch) { return flagged ? bind(a.flags, ch.first, ch.count) : bind(view_of(dummy_flags)); };
  auto flag_vec = [&](const chunk& ch) { return flagged ? vec(a.flags, ch) : bind(view_of(dummy_vec)); };

  if (a.partition && !reversed) {
    // The total kept, so that rejected elements can be written in input order in the same pass as the kept ones.
    const auto& kc = counted ? counted_kernel(ctx, select_count_spec, src, trusted)
                              : get_kernel(ctx, select_count_spec, src, trusted);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      const chunk& ch = parts[c];
      const std::uint64_t tiles = (ch.count + tile - 1) / tile;
      std::uint32_t gx, gy;
      grid_2d(tiles, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
      run(kc, params_for(c, tiles, gx, 0, 0),
          {in_bind(c), in_vec(c), flag_bind(ch), flag_vec(ch), bind(a.out, 0, 1),
           state, carry, count_out},
          gx, gy);
    }
  }
  std::uint64_t slot_index = 0;
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const chunk& ch = parts[c];
    const std::uint64_t tiles = (ch.count + tile - 1) / tile;
    std::uint32_t gx, gy;
    grid_2d(tiles, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    // Destinations of this chunk's elements: below ch.first + ch.count when selecting (nothing moves right),
    // anywhere in [0, n) for a partition. Each output window of one binding gets its own dispatch.
    const std::uint64_t reach = a.partition ? n : ch.first + ch.count;
    for (std::uint64_t w = 0; w * per_binding < reach; ++w) {
      const std::uint64_t win_first = w * per_binding, win_count = std::min(per_binding, n - win_first);
      if (!one_clear) ws.clear_states(rec, (2 + 2 * tiles) * 4);
      run(k, params_for(c, tiles, gx, win_first, win_count),
          {in_bind(c), in_vec(c), flag_bind(ch), flag_vec(ch), bind(a.out, win_first, win_count), state, carry,
           count_out},
          gx, gy);
      if (a.fallbacks) ws.copy_state_word(rec, 1, *a.fallbacks, 4 * slot_index++);
    }
  }
  // Not written by the pass (several chunks, or the count in a buffer the pass reads): copied from carry.
  if (!count_fused) record_copy_words(rec, carry.buf, chunks * 4, a.count.buf, a.count.offset, 4);
}

}  // namespace wgprim::detail
