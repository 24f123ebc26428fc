// The comparator sort: a stable merge sort of 32-bit keys (and values) whose order is a checked expression in `a`
// and `b` (wgprim::comparator). The expression goes through the custom-operator front end (core/expr.cpp,
// mode::less: WGSL for the shaders, a stack program as its CPU twin) and is checked on a sample of keys to be a
// strict weak order before anything runs. Then, in one submission, in place (through a scratch buffer):
//   blocks: every tile of merge_tile keys sorted by one workgroup into the scratch buffer (sort/merge_block.wgsl:
//     the tile layer's merge sort in workgroup memory, stable); CPU adapters (policy merge.block_network) sort them
//     in place by the segmented sort's sort_mid with the COMPARATOR hook (a bitonic network on (key, index));
//   levels: neighbouring sorted runs merged pairwise, log2(n / tile) levels ping-ponging between the keys and the
//     scratch buffer, a copy back when the result ends there. Each level is two dispatches (the GPU merge sorts'
//     shape): sort/merge_tile_split.wgsl finds the merge path once per output tile of merge_tile keys, then
//     sort/merge_tile.wgsl merges each tile in workgroup memory from coalesced loads and stores (merge_keys.wgsl's
//     key_le with the same hook: ties from the left run, stable). WGPRIM_COMPARATOR_MERGE=level runs the level
//     before it instead (sort/merge_level.wgsl: each invocation searches and merges in global memory), for A/B runs.
// The keys must fit one storage binding (errc::limit otherwise).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "core/env.hpp"
#include "core/expr.hpp"
#include "primitives/backend.hpp"
#include "primitives/policy.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
// A merge tile of merge_tile = 2048 keys: 8 KiB of workgroup memory (within WebGPU's default 16 KiB), merged by
// merge_tile / items invocations (the policy's merge.items).
constexpr std::uint32_t merge_tile = 2048, split_wg = 256;
static_assert(segment_mid_max % merge_tile == 0, "a merge tile must not straddle two pairs of runs");
struct merge_shape {
  std::uint32_t wg, items;
};
merge_shape merge_shape_for(const context& ctx) {
  const std::uint32_t items = policy_for(ctx).merge.items;
  return {merge_tile / items, items};
}

struct merge_params {  // sort/merge_keys.wgsl: merge_params (the levels read la, out_count, grid_x, pairs, step,
                       // diagonals)
  std::uint32_t key_kind, descending, pairs, la, lb, a_first, a_count, b_first, b_count, out_first, out_count,
      split_base, split_index, window, step, diagonals, grid_x, mask_lo, mask_hi, pad2;
};
static_assert(sizeof(merge_params) == 80);

/// Keys of the type on which the comparator is checked: the type's edges, small values with repeats, random ones.
std::vector<std::uint32_t> sample_keys(dtype t) {
  std::vector<std::uint32_t> v;
  std::mt19937 rng(12345);
  if (t == dtype::f32) {
    const float inf = std::numeric_limits<float>::infinity();
    for (float f : {-inf, -3e38f, -1e5f, -2.5f, -1.0f, -0.5f, -1e-45f, -0.0f, 0.0f, 1e-45f, 0.5f, 1.0f, 2.5f, 3.0f,
                    1e5f, 3e38f, inf})
      v.push_back(to_bits(f));
    for (int i = 0; i < 8; ++i) v.push_back(to_bits(std::uniform_real_distribution<float>(-100.f, 100.f)(rng)));
  } else if (t == dtype::i32) {
    for (std::int32_t x : {std::numeric_limits<std::int32_t>::min(), -1000000, -100, -3, -2, -1, 0, 1, 2, 3, 7, 100,
                           1000000, std::numeric_limits<std::int32_t>::max()})
      v.push_back(static_cast<std::uint32_t>(x));
    for (int i = 0; i < 10; ++i) v.push_back(rng());
  } else {
    for (std::uint32_t x : {0u, 1u, 2u, 3u, 7u, 100u, 1000000u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu})
      v.push_back(x);
    for (int i = 0; i < 13; ++i) v.push_back(rng());
  }
  return v;
}

/// Up to 8 keys of a host range at evenly spaced positions, all its values when it holds at most 16 distinct ones,
/// and for f32 its first NaN if it has one: an order
/// that holds on the type's sample may still fail on the data (`a < b` with a NaN among the keys: a NaN is
/// incomparable with 1 and with 2, which are not incomparable with each other). Device ranges add nothing (reading
/// them back would cost every call a wait).
std::vector<std::uint32_t> data_keys(const range_ref& keys, dtype t) {
  std::vector<std::uint32_t> v;
  if (keys.on_device || !keys.host || keys.count == 0) return v;
  const auto* x = static_cast<const std::uint32_t*>(keys.host);
  const std::uint64_t n = keys.count, picks = std::min<std::uint64_t>(n, 8);
  for (std::uint64_t i = 0; i < picks; ++i) v.push_back(x[i * n / picks]);
  // Keys of few distinct values (at most 16): all of them, so that an order broken only among those values is
  // refused (the scan stops at the 17th distinct value).
  std::vector<std::uint32_t> distinct;
  for (std::uint64_t i = 0; i < n && distinct.size() <= 16; ++i)
    if (std::find(distinct.begin(), distinct.end(), x[i]) == distinct.end()) distinct.push_back(x[i]);
  if (distinct.size() <= 16) v.insert(v.end(), distinct.begin(), distinct.end());
  if (t == dtype::f32)
    for (std::uint64_t i = 0; i < n; ++i)
      if ((x[i] & 0x7fffffffu) > 0x7f800000u) {
        v.push_back(x[i]);
        break;
      }
  return v;
}

/// Refuses an expression that is not a strict weak order on the type's sample and the data's keys (one line
/// naming the keys).
void check_strict_weak_order(const expr_program& p, dtype t, const std::string& text,
                             const std::vector<std::uint32_t>& data) {
  std::vector<std::uint32_t> s = sample_keys(t);
  for (std::uint32_t k : data)
    if (std::find(s.begin(), s.end(), k) == s.end()) s.push_back(k);
  const std::size_t m = s.size();
  std::vector<std::uint8_t> lt(m * m);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j) lt[i * m + j] = p.eval(s[i], s[j]) != 0;
  auto v = [&](std::size_t i) { return format_bits(t, s[i]); };
  auto fail = [&](const std::string& why) {
    throw error(errc::invalid_argument, "comparator '" + excerpt(text, 60) + "' is not a strict weak order: " + why);
  };
  for (std::size_t i = 0; i < m; ++i)
    if (lt[i * m + i]) fail("less(a, a) holds for a = " + v(i));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j)
      if (lt[i * m + j] && lt[j * m + i]) fail("less(a, b) and less(b, a) both hold for a = " + v(i) + ", b = " + v(j));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t k = 0; k < m; ++k) {
        if (lt[i * m + j] && lt[j * m + k] && !lt[i * m + k])
          fail("less(a, b) and less(b, c) but not less(a, c) for a = " + v(i) + ", b = " + v(j) + ", c = " + v(k));
        const bool ij = !lt[i * m + j] && !lt[j * m + i], jk = !lt[j * m + k] && !lt[k * m + j];
        if (ij && jk && (lt[i * m + k] || lt[k * m + i]))
          fail("a ~ b and b ~ c (neither goes first) but not a ~ c for a = " + v(i) + ", b = " + v(j) + ", c = " + v(k));
      }
}
}  // namespace

// The levels' first six slots are sort/merge_level_bindings.wgsl's (both shaders import it).
const kernel_spec sort_merge_level_spec{"sort/merge_level.wgsl",
                                        "merge_level",
                                        {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw,
                                         slot::storage_read, slot::storage_rw},
                                        sizeof(merge_params)};
const kernel_spec sort_merge_tile_split_spec{"sort/merge_tile_split.wgsl",
                                             "merge_tile_split",
                                             {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw},
                                             sizeof(merge_params)};
const kernel_spec sort_merge_block_spec{"sort/merge_block.wgsl",
                                        "merge_block",
                                        {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw,
                                         slot::storage_read, slot::storage_rw},
                                        sizeof(merge_params)};
const kernel_spec sort_merge_tile_spec{"sort/merge_tile.wgsl",
                                       "merge_tile",
                                       {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw,
                                        slot::storage_read, slot::storage_rw, slot::storage_read},
                                       sizeof(merge_params)};

namespace {
// The comparator sort's checks of its arguments; the order as a checked program.
expr_program checked_comparator(const range_ref& keys, const range_ref* vals, dtype key_type, const comparator& less,
                                const run_options& opt) {
  if (key_type != dtype::u32 && key_type != dtype::i32 && key_type != dtype::f32)
    throw error(errc::unsupported, std::string("comparator sort: keys of type ") + dtype_name(key_type) +
                                       " are not supported (u32, i32, f32)");
  const expr_program prog(less.expression(), key_type, expr_program::mode::less);
  if (opt.check_operator) check_strict_weak_order(prog, key_type, less.expression(), data_keys(keys, key_type));
  const bool pairs = vals != nullptr;
  const std::uint64_t n = keys.count;
  if (pairs && vals->on_device != keys.on_device)
    throw error(errc::invalid_argument, "sort: keys and values must both be on the device or both on the host");
  if (pairs && vals->count != n) throw error(errc::invalid_argument, "sort: the keys and values ranges differ in length");
  if (pairs && dtype_bytes(vals->type) != 4)
    throw error(errc::unsupported, std::string("sort: values of type ") + dtype_name(vals->type) +
                                       " are not supported (values are 32-bit)");
  if (n > 0xffffffffull) throw error(errc::limit, "comparator sort: more than 2^32 - 1 keys");
  return prog;
}
void comparator_sort_gpu(context& ctx, const range_ref& keys, const range_ref* vals, dtype key_type,
                         const expr_program& prog, const run_options& opt, phase_timer* phases);
}  // namespace

void comparator_sort_run(context& ctx, const range_ref& keys, const range_ref* vals, dtype key_type,
                         const comparator& less, const run_options& opt) {
  const expr_program prog = checked_comparator(keys, vals, key_type, less, opt);
  backend_of(ctx).comparator_sort(ctx, keys, vals, key_type, prog, opt);
}

namespace {
// The sort itself; with `phases`, each phase (the blocks, every level's split and merge, the copy back) is
// submitted and timed alone (comparator_sort_phases) and opt.stats is left alone.
void comparator_sort_gpu(context& ctx, const range_ref& keys, const range_ref* vals, dtype key_type,
                         const expr_program& prog, const run_options& opt, phase_timer* phases) {
  using clock = std::chrono::steady_clock;
  const bool pairs = vals != nullptr;
  const std::uint64_t n = keys.count;
  const algorithm_entry& alg = pick_algorithm(ctx, "comparator_sort", opt.algorithm);
  if (keys.on_device) {
    check_view(ctx, keys.view, "sort keys");
    if (pairs) check_view(ctx, vals->view, "sort values");
    if (pairs && n && vals->view.buf == keys.view.buf)
      throw error(errc::invalid_argument, "sort: keys and values must be in different buffers");
  }
  if (n * 4 > ctx.binding_limit())
    throw error(errc::limit, "comparator sort: " + std::to_string(n) + " keys exceed one storage binding (" +
                                 std::to_string(ctx.binding_limit() / 4) + " keys)");
  if (n < 2) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, alg.name, 0};
    return;
  }
  auto t0 = clock::now();
  const in_place_keys in(ctx, keys, vals);  // host ranges uploaded (device ranges wait for nothing here)
  device_view kv = in.kv, vv = in.vv;
  const double upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();

  std::optional<recorder> own;
  recorder* rec = phases ? phases->cur.get() : &own.emplace(ctx, opt.timestamps || opt.stats != nullptr);
  bindable_output ok = bindable_in_place(*rec, kv), ov;
  if (pairs) ov = bindable_in_place(*rec, vv);
  key_compare c;
  c.less = &prog;
  c.type = key_type;
  // Trusted kernels (no naga bounds checks or loop bounding) with the caller's comparator, for the reason select
  // gives (src/primitives/select/decoupled.cpp): the expression is re-emitted by the expression front end, a
  // parenthesised expression in a and b with no indexing, loops or calls but WGSL built-ins, so it cannot reach
  // memory the kernels' own indexing does not.
  const merge_shape shape = merge_shape_for(ctx);
  wgsl_constants constants = sort_constants(shape.wg, shape.items, 1);
  constants.push_back({"RUNS", "false"});
  const buffer& tmp_k = scratch(ctx, "sort.level_keys", n * 4);
  device_view yk = view_of(tmp_k, n), yv;
  if (pairs) yv = view_of(scratch(ctx, "sort.level_vals", n * 4), n);
  const buffer& none_in = scratch(ctx, "sort.none_vals_in", 16);
  const buffer& none_out = scratch(ctx, "sort.none_vals_x", 16);
  device_view src_k = kv, dst_k = yk, src_v = vv, dst_v = yv;
  auto swap_buffers = [&] {
    std::swap(src_k, dst_k);
    std::swap(src_v, dst_v);
  };
  auto value_bindings = [&] {
    return std::make_pair(pairs ? bind(src_v) : bind(none_in), pairs ? bind(dst_v) : bind(none_out));
  };
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  // One workgroup per tile of merge_tile keys: the blocks, and the levels' output tiles.
  const std::uint64_t tile = merge_tile, tiles = (n + tile - 1) / tile;
  std::uint32_t gx, gy;
  grid_2d(tiles, max_dim, gx, gy);
  merge_params p{};
  p.pairs = pairs ? 1u : 0u;
  p.out_count = static_cast<std::uint32_t>(n);
  p.step = merge_tile;
  p.diagonals = static_cast<std::uint32_t>(tiles);
  p.grid_x = gx;
  unsigned passes = 0;  // dispatches that wrote src into dst (the buffers swapped after each)
  buffer off_buf, list_buf;  // the network's segments (kept until the submission)
  if (policy_for(ctx).merge.block_network) {
    // The blocks as segments of the segmented sort's workgroup network (sort_mid with the COMPARATOR hook), in
    // place: tile boundaries and the list of every tile (the policy's choice on CPU adapters).
    std::vector<std::uint32_t> off(tiles + 1), list(tiles);
    for (std::uint64_t i = 0; i <= tiles; ++i) off[i] = static_cast<std::uint32_t>(std::min(i * tile, n));
    for (std::uint64_t i = 0; i < tiles; ++i) list[i] = static_cast<std::uint32_t>(i);
    off_buf = ctx.create_buffer(off.size() * 4);
    list_buf = ctx.create_buffer(list.size() * 4);
    ctx.write(off_buf, 0, off.data(), off.size() * 4);
    ctx.write(list_buf, 0, list.data(), list.size() * 4);
    const std::uint64_t last = n - (tiles - 1) * tile;  // sort_mid's size classes: only the last tile may be short
    record_segment_sorts(*rec, c, kv, pairs ? &vv : nullptr, off_buf, tiles, false, list_buf, tiles,
                         /*mid_small=*/last <= segment_mid_split, /*mid_big=*/n > segment_mid_split);
  } else {
    wgsl_constants block_constants = constants;
    block_constants.push_back({"PAIRS", pairs ? "true" : "false"});
    block_constants.push_back({"MS_POSITIONS", pairs ? "true" : "false"});
    const kernel& k_block =
        get_kernel(ctx, sort_merge_block_spec, sort_compare_source(sort_merge_block_spec.file, c, block_constants),
                   /*trusted=*/true);
    const auto [vin, vout] = value_bindings();
    rec->dispatch(k_block, {rec->params(p), bind(src_k), bind(src_k), bind(dst_k), vin, vout}, gx, gy);
    swap_buffers();
    ++passes;
  }
  if (phases) rec = &phases->next("blocks of " + std::to_string(tile) + " keys");

  if (tiles > 1) {
    const bool tiled = !env::comparator_merge_level();
    const auto& k_level =
        tiled ? get_kernel(ctx, sort_merge_tile_spec, sort_compare_source(sort_merge_tile_spec.file, c, constants),
                           /*trusted=*/true)
              : get_kernel(ctx, sort_merge_level_spec,
                           sort_compare_source(sort_merge_level_spec.file, c, constants), /*trusted=*/true);
    // The tiled level first finds one split per output tile (the merge path at its first output).
    std::uint32_t sx = 0, sy = 0;
    const kernel* k_split = nullptr;
    const buffer* splits = nullptr;
    if (tiled) {
      wgsl_constants split_constants = sort_constants(split_wg, 1, 1);
      split_constants.push_back({"RUNS", "false"});
      k_split = &get_kernel(ctx, sort_merge_tile_split_spec,
                            sort_compare_source(sort_merge_tile_split_spec.file, c, split_constants),
                            /*trusted=*/true);
      splits = &scratch(ctx, "sort.level_splits", tiles * 4);
      grid_2d((tiles + split_wg - 1) / split_wg, max_dim, sx, sy);
    }
    unsigned levels = 0;
    for (std::uint64_t run = tile; run < n; run *= 2, ++levels) {
      merge_params q = p;
      q.la = static_cast<std::uint32_t>(run);
      const auto [vin, vout] = value_bindings();
      auto level = [&] { return "level " + std::to_string(levels + 1) + " (runs of " + std::to_string(run) + ")"; };
      if (tiled) {
        q.grid_x = sx;
        rec->dispatch(*k_split, {rec->params(q), bind(src_k), bind(src_k), bind(*splits)}, sx, sy);
        if (phases) rec = &phases->next(level() + ": split");
        q.grid_x = gx;
        rec->dispatch(k_level, {rec->params(q), bind(src_k), bind(src_k), bind(dst_k), vin, vout, bind(*splits)}, gx,
                      gy);
      } else {
        rec->dispatch(k_level, {rec->params(q), bind(src_k), bind(src_k), bind(dst_k), vin, vout}, gx, gy);
      }
      if (phases) rec = &phases->next(level() + ": merge");
      swap_buffers();
      ++passes;
    }
  }
  if (passes % 2) {  // the result is in the scratch buffers
    rec->copy_raw(src_k.buf, src_k.offset, kv.buf, kv.offset, n * 4);
    if (pairs) rec->copy_raw(src_v.buf, src_v.offset, vv.buf, vv.offset, n * 4);
  }
  ok.finish(*rec);
  if (pairs) ov.finish(*rec);
  if (phases) {
    phases->next("copy back");
  } else {
    fill_stats(opt, rec->submit(), alg.name);
    if (opt.stats) opt.stats->upload_ms = keys.on_device ? 0 : upload_ms;
  }
  in.write_back(ctx);
}
}  // namespace

void comparator_sort_webgpu(context& ctx, const range_ref& keys, const range_ref* vals, dtype key_type,
                            const expr_program& prog, const run_options& opt) {
  comparator_sort_gpu(ctx, keys, vals, key_type, prog, opt, nullptr);
}
}  // namespace wgprim::detail

namespace wgprim {
void check_comparator(const comparator& less, dtype key_type, const std::uint32_t* keys, std::size_t n) {
  using namespace detail;
  if (key_type != dtype::u32 && key_type != dtype::i32 && key_type != dtype::f32)
    throw error(errc::unsupported, std::string("comparator sort: keys of type ") + dtype_name(key_type) +
                                       " are not supported (u32, i32, f32)");
  range_ref k;
  k.host = keys;
  k.count = keys ? n : 0;
  k.type = key_type;
  const expr_program prog(less.expression(), key_type, expr_program::mode::less);
  check_strict_weak_order(prog, key_type, less.expression(), data_keys(k, key_type));
}

std::vector<sort_phase> comparator_sort_phases(context& ctx, buffer& keys, std::size_t n, dtype key_type,
                                               const comparator& less, buffer* values, const run_options& opt) {
  using namespace detail;
  range_ref k = in_place_ref(device_span<std::uint32_t>(keys, 0, n)), v;
  k.type = key_type;
  if (values) v = in_place_ref(device_span<std::uint32_t>(*values, 0, n));
  const expr_program prog = checked_comparator(k, values ? &v : nullptr, key_type, less, opt);
  if (ctx.backend() == backend_choice::native)
    return whole_sort_phase(
        [&] { backend_of(ctx).comparator_sort(ctx, k, values ? &v : nullptr, key_type, prog, opt); });
  std::vector<sort_phase> out;
  phase_timer split(ctx, out);
  comparator_sort_gpu(ctx, k, values ? &v : nullptr, key_type, prog, opt, &split);
  return out;
}
}  // namespace wgprim

namespace wgprim::detail {

buffer record_merge_runs(recorder& rec, const key_compare& c, const device_view& keys, const device_view* vals,
                         const std::vector<std::uint64_t>& run_counts) {
  context& ctx = rec.ctx();
  const bool pairs = vals != nullptr;
  struct run {
    std::uint64_t first, count;
  };
  std::vector<run> runs;  // the non-empty ones (an empty run merges into nothing)
  std::uint64_t n = 0;
  for (std::uint64_t k : run_counts) {
    if (k) runs.push_back({n, k});
    n += k;
  }
  if (runs.size() < 2) return {};
  if (n * 4 > ctx.binding_limit() || n > 0xffffffffull)
    throw error(errc::limit, "merge of sorted runs: " + std::to_string(n) + " keys exceed one storage binding");
  const std::uint64_t tile = merge_tile;
  const merge_shape shape = merge_shape_for(ctx);
  wgsl_constants tile_constants = sort_constants(shape.wg, shape.items, 1), split_constants = sort_constants(split_wg, 1, 1);
  tile_constants.push_back({"RUNS", "true"});
  split_constants.push_back({"RUNS", "true"});
  const auto& k_tile = get_kernel(ctx, sort_merge_tile_spec,
                                  sort_compare_source(sort_merge_tile_spec.file, c, tile_constants), /*trusted=*/true);
  const auto& k_split = get_kernel(
      ctx, sort_merge_tile_split_spec, sort_compare_source(sort_merge_tile_split_spec.file, c, split_constants), true);

  // Every level's pair table and tile splits, each level's region at a bindable offset, written at once.
  const std::uint64_t align = std::max<std::uint64_t>(ctx.limits().min_storage_buffer_offset_alignment, 4) / 4;
  struct level {
    std::uint64_t at, words, pairs, tiles;
  };
  std::vector<level> levels;
  std::vector<std::uint32_t> table;
  for (std::vector<run> cur = runs; cur.size() > 1;) {
    std::vector<run> next;
    level l{table.size(), 0, 0, 0};
    for (std::size_t i = 0; i < cur.size(); i += 2) {
      const std::uint64_t la = cur[i].count, lb = i + 1 < cur.size() ? cur[i + 1].count : 0;
      table.insert(table.end(), {static_cast<std::uint32_t>(cur[i].first), static_cast<std::uint32_t>(la),
                                 static_cast<std::uint32_t>(lb), static_cast<std::uint32_t>(l.tiles)});
      l.tiles += (la + lb + tile - 1) / tile;
      ++l.pairs;
      next.push_back({cur[i].first, la + lb});
    }
    l.words = 4 * l.pairs + l.tiles;
    table.resize((l.at + l.words + align - 1) / align * align, 0u);  // the splits, then padding
    levels.push_back(l);
    cur = std::move(next);
  }
  buffer tables = ctx.create_buffer(table.size() * 4);
  ctx.write(tables, 0, table.data(), table.size() * 4);

  merge_params base{};
  base.key_kind = static_cast<std::uint32_t>(c.kind);
  base.descending = c.ord == order::descending ? 1u : 0u;
  base.pairs = pairs ? 1u : 0u;
  const std::uint64_t mask = sort_bit_mask(c.begin_bit, c.end_bit);
  base.mask_lo = static_cast<std::uint32_t>(mask);
  base.mask_hi = static_cast<std::uint32_t>(mask >> 32);
  base.out_count = static_cast<std::uint32_t>(n);
  base.step = static_cast<std::uint32_t>(tile);
  device_view src_k = keys, dst_k = view_of(scratch(ctx, "sort.level_keys", n * 4), n), src_v, dst_v;
  if (pairs) {
    src_v = *vals;
    dst_v = view_of(scratch(ctx, "sort.level_vals", n * 4), n);
  }
  const buffer& none_in = scratch(ctx, "sort.none_vals_in", 16);
  const buffer& none_out = scratch(ctx, "sort.none_vals_x", 16);
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  for (const level& l : levels) {
    merge_params q = base;
    q.split_base = static_cast<std::uint32_t>(4 * l.pairs);
    q.diagonals = static_cast<std::uint32_t>(l.tiles);
    const binding t = bind(tables, l.at * 4, l.words * 4);
    const binding vin = pairs ? bind(src_v) : bind(none_in), vout = pairs ? bind(dst_v) : bind(none_out);
    std::uint32_t gx, gy;
    grid_2d((l.tiles + split_wg - 1) / split_wg, max_dim, gx, gy);
    q.grid_x = gx;
    rec.dispatch(k_split, {rec.params(q), bind(src_k), bind(src_k), t}, gx, gy);
    grid_2d(l.tiles, max_dim, gx, gy);
    q.grid_x = gx;
    rec.dispatch(k_tile, {rec.params(q), bind(src_k), bind(src_k), bind(dst_k), vin, vout, t}, gx, gy);
    std::swap(src_k, dst_k);
    std::swap(src_v, dst_v);
  }
  if (levels.size() % 2) {  // the result is in the scratch buffers
    rec.copy_raw(src_k.buf, src_k.offset, keys.buf, keys.offset, n * 4);
    if (pairs) rec.copy_raw(src_v.buf, src_v.offset, vals->buf, vals->offset, n * 4);
  }
  return tables;
}

}  // namespace wgprim::detail
