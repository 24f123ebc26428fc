// Dispatch layer of reduce: picks the algorithm and its policy, sizes the grid, binds chunks of arrays larger
// than one storage binding, orders the passes, reads the result back.
#include "wgprim/reduce.hpp"

#include <algorithm>

#include "gpu/gpu.hpp"
#include "wgprim/error.hpp"
#include "core/wgsl_compose.hpp"

namespace wgprim {

std::vector<std::string> reduce_algorithms() { return {"fast", "seed", "render"}; }

const char* accuracy_name(accuracy a) {
  switch (a) {
    case accuracy::fast: return "fast";
    case accuracy::compensated: return "compensated";
    case accuracy::reproducible: return "reproducible";
  }
  return "?";
}

accuracy parse_accuracy(const std::string& s) {
  if (s == "fast") return accuracy::fast;
  if (s == "compensated") return accuracy::compensated;
  if (s == "reproducible") return accuracy::reproducible;
  throw error(errc::invalid_argument, "unknown accuracy '" + s + "' (expected fast, compensated or reproducible)");
}

namespace {

struct reduce_params {
  std::uint32_t n, n_vec, out_offset, pad0;
};

// The policy of the fast reduce, from the adapter unless run_options.tune overrides it.
struct reduce_policy {
  std::uint32_t wg_size = 256;
  std::uint32_t items = 4;           // vec4 per invocation per tile: a tile is 4,096 elements
  std::uint32_t max_groups = 1024;   // H200: 132 SMs x 8 resident workgroups of 256 ~ 1,056
  std::uint64_t small_n = 16384;     // one workgroup, one dispatch (launch latency dominates below this)
  bool subgroups = true;
  bool vec_loads = true;
};

reduce_policy pick_policy(context& ctx, const tuning& t) {
  reduce_policy p;
  p.subgroups = ctx.features().subgroups;
  if (ctx.adapter().type == "cpu") {
    // lavapipe, 2 cores, 2026-11-29, n = 2^24 f32 sum, median of 15 runs, wall ms: 64 workgroups 15.2,
    // 256 workgroups 12.9, 256 with subgroups 11.2-12.4, 1,024 22.4; vec4 loads 26-28 (scalar loads consecutive
    // across invocations vectorise better here); the seed 35.6-36.0.
    p.max_groups = 256;
    p.small_n = 65536;
    p.vec_loads = false;
  }
  if (t.workgroups) p.max_groups = t.workgroups;
  if (t.items) p.items = t.items;
  if (t.subgroups == 0) p.subgroups = false;
  if (t.subgroups == 1) p.subgroups = ctx.features().subgroups;
  if (t.vec_loads >= 0) p.vec_loads = t.vec_loads != 0;
  if (t.small_n) p.small_n = t.small_n;
  return p;
}

// The seed's two-pass reduction. Pass 1 runs 256 workgroups per chunk of the input, each chunk writing its own
// 256 partials; pass 2 is the same entry point over all partials with one workgroup.
void reduce_seed(detail::recorder& rec, const buffer& in, std::size_t n, const monoid& m, const buffer& result,
                 std::uint32_t result_index) {
  context& ctx = rec.ctx();
  constexpr std::uint32_t groups = 256;
  const std::string src = detail::compose_wgsl("reduce/seed.wgsl", m, {{"WG_SIZE", "256u"}});
  const auto& k = detail::get_kernel(ctx, src, "reduce",
                                     {detail::slot::uniform, detail::slot::storage_read, detail::slot::storage_rw},
                                     /*trusted=*/m.is_builtin());
  const std::uint64_t chunk = ctx.binding_limit() / 4;
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  buffer partials = ctx.create_buffer(chunks * groups * 4);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    std::uint64_t first = c * chunk, count = std::min<std::uint64_t>(chunk, n - first);
    reduce_params p{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(c * groups), 0, 0};
    rec.dispatch(k, {rec.params(p), detail::bind(in, first * 4, count * 4), detail::bind(partials)}, groups);
  }
  reduce_params p{static_cast<std::uint32_t>(chunks * groups), result_index, 0, 0};
  rec.dispatch(k, {rec.params(p), detail::bind(partials), detail::bind(result)}, 1);
}

// The fast reduce: vec4 loads, a grid sized to fill the GPU (not more), subgroup reductions, and a single
// dispatch of one workgroup for small n.
// With double-word accumulation (compensated f32 sums) the partials and the result are (hi, lo) pairs, and the
// pass over the partials uses a module whose elements are pairs too (scalar loads).
void reduce_fast(detail::recorder& rec, const buffer& in, std::size_t n, const monoid& m, const buffer& result,
                 std::uint32_t result_index, const run_options& opt, detail::accum acc = detail::accum::plain) {
  context& ctx = rec.ctx();
  const reduce_policy pol = pick_policy(ctx, opt.tune);
  const std::string lanes = pol.subgroups ? "shared/lanes_subgroup.wgsl" : "shared/lanes_workgroup.wgsl";
  const bool dw = acc == detail::accum::double_word;
  auto module = [&](bool vec_loads, bool elements_are_accumulators) {
    return detail::compose_wgsl("reduce/fast.wgsl", m,
                                {{"WG_SIZE", std::to_string(pol.wg_size) + "u"},
                                 {"ITEMS", std::to_string(pol.items) + "u"},
                                 {"VEC_LOADS", vec_loads ? "true" : "false"}},
                                {lanes}, acc, elements_are_accumulators);
  };
  using detail::slot;
  const std::vector<slot> layout{slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw};
  const auto& k = detail::get_kernel(ctx, module(pol.vec_loads, false), "reduce", layout, /*trusted=*/m.is_builtin());
  const auto& k_partials =
      dw ? detail::get_kernel(ctx, module(false, true), "reduce", layout, /*trusted=*/true) : k;
  const std::uint64_t acc_bytes = dw ? 8 : 4;
  const std::uint64_t chunk = ctx.binding_limit() / 4;
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  buffer dummy = ctx.create_buffer(32);
  auto vec_binding = [&](const buffer& b, std::uint64_t first, std::uint64_t count) {
    return count / 4 ? detail::bind(b, first * 4, count / 4 * 16) : detail::bind(dummy);
  };
  auto params = [](std::uint64_t count, std::uint64_t offset) {
    return reduce_params{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(count / 4),
                         static_cast<std::uint32_t>(offset), 0};
  };

  if (n <= pol.small_n) {
    rec.dispatch(k, {rec.params(params(n, result_index)), vec_binding(in, 0, n), detail::bind(in, 0, n * 4), detail::bind(result)},
                 1);
  } else {
    // Groups per chunk: enough to fill the GPU, never more than there are tiles.
    auto groups_for = [&](std::uint64_t count) {
      return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(pol.max_groups, (count + tile - 1) / tile)));
    };
    std::uint64_t total_groups = 0;
    for (std::uint64_t c = 0; c < chunks; ++c)
      total_groups += groups_for(std::min<std::uint64_t>(chunk, n - c * chunk));
    buffer partials = ctx.create_buffer(std::max<std::uint64_t>(16, total_groups * acc_bytes));
    std::uint64_t offset = 0;
    for (std::uint64_t c = 0; c < chunks; ++c) {
      std::uint64_t first = c * chunk, count = std::min<std::uint64_t>(chunk, n - first);
      std::uint32_t g = groups_for(count);
      rec.dispatch(k, {rec.params(params(count, offset)), vec_binding(in, first, count),
                       detail::bind(in, first * 4, count * 4), detail::bind(partials)}, g);
      offset += g;
    }
    if (dw)
      rec.dispatch(k_partials, {rec.params(params(total_groups, result_index)), detail::bind(dummy),
                                detail::bind(partials, 0, total_groups * acc_bytes), detail::bind(result)}, 1);
    else
      rec.dispatch(k, {rec.params(params(total_groups, result_index)), vec_binding(partials, 0, total_groups),
                       detail::bind(partials, 0, total_groups * 4), detail::bind(result)}, 1);
  }
}

struct fixed_params {
  std::uint32_t n, blocks, grid_x, out_offset;
};

// The reproducible reduce: blocks of 4,096 in a fixed tree, level after level, with double-word accumulation.
// The first level reads the data in binding-sized chunks of whole blocks; block numbering is global, so the
// chunking does not change the shape. The result (a pair) lands in result[result_index].
void reduce_reproducible(detail::recorder& rec, const buffer& in, std::size_t n, const monoid& m,
                         const buffer& result, std::uint32_t result_index) {
  context& ctx = rec.ctx();
  constexpr std::uint64_t block = 256 * 16;
  using detail::slot;
  const std::vector<slot> layout{slot::uniform, slot::storage_read, slot::storage_rw};
  const auto& k_data = detail::get_kernel(
      ctx, detail::compose_wgsl("reduce/fixed.wgsl", m, {}, {}, detail::accum::double_word, false), "reduce_block",
      layout, true);
  const auto& k_pairs = detail::get_kernel(
      ctx, detail::compose_wgsl("reduce/fixed.wgsl", m, {}, {}, detail::accum::double_word, true), "reduce_block",
      layout, true);
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  const std::uint64_t chunk = ctx.binding_limit() / 4 / block * block;
  std::uint64_t blocks = (n + block - 1) / block;
  buffer level[2] = {ctx.create_buffer(blocks * 8), ctx.create_buffer(((blocks + block - 1) / block) * 8)};
  auto dispatch = [&](const detail::kernel& k, detail::binding src, std::uint64_t count, const buffer& dst,
                      std::uint64_t out_offset) {
    std::uint64_t b = (count + block - 1) / block;
    std::uint32_t gx, gy;
    detail::grid_2d(b, max_dim, gx, gy);
    fixed_params p{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(b), gx,
                   static_cast<std::uint32_t>(out_offset)};
    rec.dispatch(k, {rec.params(p), src, detail::bind(dst)}, gx, gy);
  };
  if (blocks == 1) {
    dispatch(k_data, detail::bind(in, 0, n * 4), n, result, result_index);
    return;
  }
  for (std::uint64_t first = 0; first < n; first += chunk) {
    std::uint64_t count = std::min<std::uint64_t>(chunk, n - first);
    dispatch(k_data, detail::bind(in, first * 4, count * 4), count, level[0], first / block);
  }
  int cur = 0;
  while (blocks > block) {
    std::uint64_t next = (blocks + block - 1) / block;
    dispatch(k_pairs, detail::bind(level[cur], 0, blocks * 8), blocks, level[1 - cur], 0);
    blocks = next;
    cur = 1 - cur;
  }
  dispatch(k_pairs, detail::bind(level[cur], 0, blocks * 8), blocks, result, result_index);
}

struct render_params {
  std::uint32_t n, per_texel, width, pad0;
};

// The regl document's render-pass reduction (see shaders/reduce_render.wgsl). The data must fit one storage
// binding; targets are at most 4,096 texels wide.
void reduce_render(detail::recorder& rec, const buffer& in, std::size_t n, const monoid& m, const buffer& result,
                   std::uint32_t result_index) {
  context& ctx = rec.ctx();
  if (n * 4 > ctx.binding_limit())
    throw error(errc::limit, "the render reduction takes arrays of at most one storage binding (" +
                                 std::to_string(ctx.binding_limit() / 4) + " elements)");
  using detail::rslot;
  const detail::tex_format fmt = m.type() == dtype::f32   ? detail::tex_format::r32float
                                 : m.type() == dtype::i32 ? detail::tex_format::r32sint
                                                          : detail::tex_format::r32uint;
  const rslot tex_slot = m.type() == dtype::f32   ? rslot::texture_float
                         : m.type() == dtype::i32 ? rslot::texture_sint
                                                  : rslot::texture_uint;
  const std::string src = detail::compose_wgsl("reduce/render.wgsl", m, {});
  const std::vector<rslot> layout{rslot::uniform, rslot::storage_read, tex_slot};
  const auto& k_first = detail::get_render_kernel(ctx, src, "full_target", "first", layout, fmt);
  const auto& k_fold = detail::get_render_kernel(ctx, src, "full_target", "fold", layout, fmt);
  std::uint32_t w = 1;
  while (w < 4096 && std::uint64_t(w) * w < n) w *= 2;
  const std::uint64_t per_texel = (n + std::uint64_t(w) * w - 1) / (std::uint64_t(w) * w);
  const std::uint32_t h = static_cast<std::uint32_t>(((n + per_texel - 1) / per_texel + w - 1) / w);
  const double clear[4] = {0, 0, 0, 0};
  detail::texture dummy(ctx, 1, 1, fmt);
  detail::texture a(ctx, w, h, fmt);
  render_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(per_texel), w, 0};
  rec.draw(k_first, {detail::rbind(rec.params(p)), detail::rbind(detail::bind(in, 0, n * 4)), detail::rbind(dummy)},
           a, clear, 4);
  std::vector<detail::texture> chain;
  chain.push_back(std::move(a));
  while (chain.back().width() > 1 || chain.back().height() > 1) {
    const detail::texture& prev = chain.back();
    detail::texture next(ctx, (prev.width() + 1) / 2, (prev.height() + 1) / 2, fmt);
    rec.draw(k_fold, {detail::rbind(rec.params(p)), detail::rbind(detail::bind(in, 0, n * 4)), detail::rbind(prev)},
             next, clear, 4);
    chain.push_back(std::move(next));
  }
  buffer texel = ctx.create_buffer(256);
  rec.copy(chain.back(), texel);
  rec.copy(texel, 0, result, result_index * 4, 4);
}

std::string pick_algorithm(const run_options& opt) {
  std::string alg = opt.algorithm.empty() ? "fast" : opt.algorithm;
  if (alg != "seed" && alg != "fast" && alg != "render")
    throw error(errc::invalid_argument, "unknown reduce algorithm '" + alg + "' (available: fast, seed, render)");
  return alg;
}

void check_size(const buffer& in, std::size_t n) {
  if (n * 4ull > in.size_bytes())
    throw error(errc::invalid_argument, "n = " + std::to_string(n) + " elements exceeds the buffer's " +
                                            std::to_string(in.size_bytes()) + " bytes");
}

// Records the reduction of in[0, n) into result[result_index] (n > 0).
// Whether this call accumulates in double words (the result is then a (hi, lo) pair).
bool uses_pairs(const monoid& m, const run_options& opt) {
  return m.is_sum() && m.type() == dtype::f32 && opt.accuracy != accuracy::fast;
}

void record_reduce(detail::recorder& rec, const std::string& alg, const buffer& in, std::size_t n, const monoid& m,
                   const buffer& result, std::uint32_t result_index, const run_options& opt) {
  if (uses_pairs(m, opt) && opt.accuracy == accuracy::reproducible)
    reduce_reproducible(rec, in, n, m, result, result_index);
  else if (uses_pairs(m, opt))
    reduce_fast(rec, in, n, m, result, result_index, opt, detail::accum::double_word);
  else if (alg == "seed")
    reduce_seed(rec, in, n, m, result, result_index);
  else if (alg == "render")
    reduce_render(rec, in, n, m, result, result_index);
  else
    reduce_fast(rec, in, n, m, result, result_index, opt);
}

}  // namespace

std::uint32_t reduce_bits(context& ctx, const buffer& in, std::size_t n, const monoid& m, const run_options& opt) {
  const std::string alg = pick_algorithm(opt);
  check_size(in, n);
  if (n == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, alg, 0};
    return m.identity_bits();
  }
  const bool pairs = uses_pairs(m, opt);
  buffer result = ctx.create_buffer(pairs ? 8 : 4);
  detail::recorder rec(ctx, opt.timestamps || opt.stats);
  record_reduce(rec, alg, in, n, m, result, 0, opt);
  detail::gpu_time t = rec.submit();
  std::uint32_t bits[2];
  // A pair's leading part is the correctly rounded value of hi + lo (combine ends with FastTwoSum).
  ctx.read(result, 0, bits, pairs ? 8 : 4);
  if (opt.stats) {
    opt.stats->gpu_ms = t.ms;
    opt.stats->gpu_timestamps = t.from_timestamps;
    opt.stats->algorithm = opt.accuracy == accuracy::reproducible && pairs ? "reproducible" : alg;
  }
  return bits[0];
}

void reduce(context& ctx, WGPUCommandEncoder encoder, const buffer& in, std::size_t n, const monoid& m,
            buffer& result, std::size_t result_index, const run_options& opt) {
  const std::string alg = pick_algorithm(opt);
  check_size(in, n);
  if ((result_index + 1) * 4 > result.size_bytes())
    throw error(errc::invalid_argument, "result index outside the result buffer");
  if (uses_pairs(m, opt))
    throw error(errc::unsupported, "reduce into a caller's encoder supports accuracy::fast only");
  detail::recorder rec(ctx, encoder);
  if (n == 0) {
    std::uint32_t id = m.identity_bits();
    ctx.write(result, result_index * 4, &id, 4);
  } else {
    record_reduce(rec, alg, in, n, m, result, static_cast<std::uint32_t>(result_index), opt);
  }
  rec.end();
}

namespace detail {
buffer seed_partials(context& ctx, const buffer& in, std::size_t n, const monoid& m, std::uint32_t& count) {
  constexpr std::uint32_t groups = 256;
  const std::string src = compose_wgsl("reduce/seed.wgsl", m, {{"WG_SIZE", "256u"}});
  const auto& k = get_kernel(ctx, src, "reduce", {slot::uniform, slot::storage_read, slot::storage_rw}, m.is_builtin());
  const std::uint64_t chunk = ctx.binding_limit() / 4;
  const std::uint64_t chunks = std::max<std::uint64_t>(1, (n + chunk - 1) / chunk);
  buffer partials = ctx.create_buffer(chunks * groups * 4);
  recorder rec(ctx);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    std::uint64_t first = c * chunk, cnt = std::min<std::uint64_t>(chunk, n - first);
    reduce_params p{static_cast<std::uint32_t>(cnt), static_cast<std::uint32_t>(c * groups), 0, 0};
    rec.dispatch(k, {rec.params(p), bind(in, first * 4, std::max<std::uint64_t>(cnt, 1) * 4), bind(partials)}, groups);
  }
  rec.submit();
  count = static_cast<std::uint32_t>(chunks * groups);
  return partials;
}
}  // namespace detail

}  // namespace wgprim
