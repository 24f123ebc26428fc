// Dispatch layer of scan: scan-then-propagate over levels of block totals, chunked over storage bindings with a
// carry between chunks, 2-D grids past 65,535 workgroups.
#include "wgprim/scan.hpp"

#include <algorithm>

#include "gpu/gpu.hpp"
#include "wgprim/error.hpp"
#include "core/wgsl_compose.hpp"

namespace wgprim {

std::vector<std::string> scan_algorithms() { return {"decoupled", "seed"}; }

namespace {

struct scan_params {
  std::uint32_t n, blocks, grid_x, exclusive, use_carry, carry_index, pad0, pad1;
};

constexpr std::uint64_t block = 256;

// In-place scans read and write one buffer, which one dispatch may not bind twice: they scan from a copy
// (recorded into `copy`). Returns the buffer to read.
const buffer* separate_input(detail::recorder& rec, const buffer& in, const buffer& out, std::size_t n, buffer& copy) {
  if (in.native() != out.native()) return &in;
  copy = rec.ctx().create_buffer(n * 4);
  rec.copy(in, 0, copy, 0, n * 4);
  return &copy;
}

// The seed's recursion. Level 0 scans the data (elements E); the levels above scan block totals, which are
// accumulators (E = T). With double-word accumulation T is a (hi, lo) pair of 8 bytes.
struct seed_scan {
  context& ctx;
  detail::recorder& rec;
  const detail::kernel *scan_data, *add_data, *scan_sums, *add_sums;
  std::vector<buffer> sums, scanned;  // per level: block totals, and their inclusive scan
  std::uint64_t acc_bytes;
  const buffer &dummy_in, &dummy_out, &dummy_carry;  // unused slots: distinct buffers, as WebGPU requires
  std::uint32_t max_dim;

  // Scans n elements src -> dst. Returns where the inclusive total of the n elements lies (an accumulator).
  std::pair<const buffer*, std::uint32_t> level(std::size_t lv, detail::binding src, detail::binding dst,
                                                std::uint64_t n, bool exclusive, const buffer* carry) {
    const detail::kernel& k_scan = lv == 0 ? *scan_data : *scan_sums;
    const detail::kernel& k_add = lv == 0 ? *add_data : *add_sums;
    std::uint64_t blocks = (n + block - 1) / block;
    std::uint32_t gx, gy;
    detail::grid_2d(blocks, max_dim, gx, gy);
    scan_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(blocks), gx, exclusive ? 1u : 0u,
                  carry ? 1u : 0u, 0, 0, 0};
    rec.dispatch(k_scan, {rec.params(p), src, dst, detail::bind(sums[lv]), detail::bind(dummy_carry)}, gx, gy);
    if (blocks == 1) {
      if (carry)
        rec.dispatch(k_add, {rec.params(p), detail::bind(dummy_in), dst, detail::bind(sums[lv]), detail::bind(*carry)},
                     gx, gy);
      return {&sums[lv], 0};
    }
    level(lv + 1, detail::bind(sums[lv], 0, blocks * acc_bytes), detail::bind(scanned[lv], 0, blocks * acc_bytes),
          blocks, false, nullptr);
    rec.dispatch(k_add, {rec.params(p), detail::bind(dummy_in), dst, detail::bind(scanned[lv], 0, blocks * acc_bytes),
                         detail::bind(carry ? *carry : dummy_carry)},
                 gx, gy);
    return {&scanned[lv], static_cast<std::uint32_t>(blocks - 1)};
  }
};

// With accum::double_word (compensated / reproducible f32 sums) the chunk size is fixed at 2^22 elements where
// the binding limit allows (every WebGPU adapter: the minimum limit is 128 MiB), so that the summation shape
// depends on n alone.
void scan_seed(detail::recorder& rec, const buffer& in, buffer& out, std::size_t n, const monoid& m,
               scan_kind kind, detail::accum acc = detail::accum::plain) {
  context& ctx = rec.ctx();
  const bool dw = acc == detail::accum::double_word;
  const std::string src_data = detail::compose_wgsl("scan/seed.wgsl", m, {{"WG_SIZE", "256u"}}, {}, acc, false);
  const std::string src_sums = detail::compose_wgsl("scan/seed.wgsl", m, {{"WG_SIZE", "256u"}}, {}, acc, true);
  using detail::slot;
  const std::vector<slot> layout{slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw,
                                 slot::storage_rw};
  const bool trusted = m.is_builtin();
  const auto& k_scan = detail::get_kernel(ctx, src_data, "scan_blocks", layout, trusted);
  const auto& k_add = detail::get_kernel(ctx, src_data, "add_back", layout, trusted);
  const auto& k_scan_sums = detail::get_kernel(ctx, src_sums, "scan_blocks", layout, trusted);
  const auto& k_add_sums = detail::get_kernel(ctx, src_sums, "add_back", layout, trusted);
  const auto& k_carry = detail::get_kernel(ctx, src_sums, "update_carry", layout, trusted);
  const std::uint64_t acc_bytes = dw ? 8 : 4;

  std::uint64_t chunk = ctx.binding_limit() / 4;
  if (dw) chunk = std::min<std::uint64_t>(chunk, std::uint64_t(1) << 22);
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  const std::uint64_t first_chunk = std::min<std::uint64_t>(chunk, n);

  buffer dummy_in = ctx.create_buffer(16), dummy_out = ctx.create_buffer(16), dummy_carry = ctx.create_buffer(16);
  seed_scan s{ctx, rec, &k_scan, &k_add, &k_scan_sums, &k_add_sums, {}, {}, acc_bytes,
              dummy_in, dummy_out, dummy_carry, ctx.limits().max_compute_workgroups_per_dimension};
  for (std::uint64_t len = first_chunk;;) {
    std::uint64_t blocks = (len + block - 1) / block;
    s.sums.push_back(ctx.create_buffer(blocks * acc_bytes));
    s.scanned.push_back(ctx.create_buffer(blocks * acc_bytes));
    if (blocks == 1) break;
    len = blocks;
  }
  buffer carry;
  if (chunks > 1) {
    carry = ctx.create_buffer(acc_bytes);
    std::uint32_t id[2] = {dw ? 0u : m.identity_bits(), 0u};
    ctx.write(carry, 0, id, acc_bytes);
  }
  buffer copy;
  const buffer* input = separate_input(rec, in, out, n, copy);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    std::uint64_t first = c * chunk, count = std::min<std::uint64_t>(chunk, n - first);
    auto total = s.level(0, detail::bind(*input, first * 4, count * 4), detail::bind(out, first * 4, count * 4), count,
                         kind == scan_kind::exclusive, c > 0 ? &carry : nullptr);
    if (c + 1 < chunks) {
      scan_params p{0, 0, 0, 0, 0, total.second, 0, 0};
      rec.dispatch(k_carry, {rec.params(p), detail::bind(dummy_in), detail::bind(dummy_out),
                             detail::bind(*total.first), detail::bind(carry)},
                   1);
    }
  }
}

struct decoupled_params {
  std::uint32_t n, tiles, grid_x, exclusive, use_carry, carry_index, spin_limit, stress;
};

// The single-pass decoupled-fallback scan: one dispatch per storage-binding chunk, tiles claimed in order from
// an atomic counter, look-back over published tile states with a bounded spin and the fallback.
// When `fallbacks` is given, each chunk's count of look-back fallbacks is copied into it (one u32 per chunk).
void scan_decoupled(detail::recorder& rec, const buffer& in, buffer& out, std::size_t n, const monoid& m,
                    scan_kind kind, const run_options& opt, const buffer* fallbacks) {
  context& ctx = rec.ctx();
  const bool cpu = ctx.adapter().type == "cpu";
  const std::uint32_t wg_size = 256;
  const std::uint32_t items = opt.tune.items ? opt.tune.items : 4;  // vec4 per invocation: tiles of 4,096
  // Polls of a NOT_READY predecessor before reducing its tile here. On a GPU the predecessor is usually running
  // and a poll is cheap; on a CPU adapter a few threads run workgroups in turn, so waiting long is waste.
  const std::uint32_t spin = opt.tune.spin_limit ? opt.tune.spin_limit : opt.tune.stress ? 1 : cpu ? 16 : 256;
  // Staging through workgroup memory needs WG_SIZE * ITEMS * 16 bytes of it (16 KiB for the default tile).
  const std::uint64_t stage_bytes = std::uint64_t(wg_size) * items * 16;
  // H200, 2026-11-29, u32 sum at 2^28: direct 0.90 ms vs staged 1.46 ms (staging costs occupancy and barriers);
  // off by default, kept as a policy for GPUs whose direct loads coalesce badly.
  bool staged = false;
  if (opt.tune.staged >= 0) staged = opt.tune.staged == 1 && stage_bytes + 2048 <= ctx.limits().max_compute_workgroup_storage_size;
  bool subgroups = ctx.features().subgroups;
  if (opt.tune.subgroups == 0) subgroups = false;
  const std::string lanes = subgroups ? "shared/lanes_subgroup.wgsl" : "shared/lanes_workgroup.wgsl";
  const std::string src = detail::compose_wgsl(
      "scan/decoupled.wgsl", m,
      {{"WG_SIZE", std::to_string(wg_size) + "u"}, {"ITEMS", std::to_string(items) + "u"},
       {"STAGED", staged ? "true" : "false"}, {"WINDOW", "32u"},
       {"STAGE_SIZE", staged ? std::to_string(wg_size * items) + "u" : "1u"}},
      {lanes});
  using detail::slot;
  const auto& k = detail::get_kernel(
      ctx, src, "scan",
      {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw,
       slot::storage_rw},
      /*trusted=*/m.is_builtin());
  const std::uint64_t tile = std::uint64_t(wg_size) * items * 4;
  const std::uint64_t chunk = ctx.binding_limit() / 4 / tile * tile;  // whole tiles per chunk
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  const std::uint64_t max_tiles = (std::min<std::uint64_t>(chunk, n) + tile - 1) / tile;
  buffer state = ctx.create_buffer((2 + 2 * max_tiles) * 4);
  buffer carry = ctx.create_buffer((chunks + 1) * 4);
  buffer dummy_in = ctx.create_buffer(16), dummy_out = ctx.create_buffer(16);
  {
    std::uint32_t id = m.identity_bits();
    ctx.write(carry, 0, &id, 4);
  }
  buffer copy;
  const buffer* input = separate_input(rec, in, out, n, copy);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    std::uint64_t first = c * chunk, count = std::min<std::uint64_t>(chunk, n - first);
    std::uint64_t tiles = (count + tile - 1) / tile;
    std::uint32_t gx, gy;
    detail::grid_2d(tiles, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    decoupled_params p{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(tiles), gx,
                       kind == scan_kind::exclusive ? 1u : 0u, c > 0 ? 1u : 0u, static_cast<std::uint32_t>(c), spin,
                       opt.tune.stress ? 1u : 0u};
    rec.clear(state, 0, (2 + 2 * tiles) * 4);
    // Fewer than 4 elements: no whole vec4 to bind, so the vector views bind (unused) placeholders.
    auto vec = [&](const buffer& b, const buffer& placeholder) {
      return count / 4 ? detail::bind(b, first * 4, count / 4 * 16) : detail::bind(placeholder);
    };
    rec.dispatch(k, {rec.params(p), detail::bind(*input, first * 4, count * 4), vec(*input, dummy_in),
                     detail::bind(out, first * 4, count * 4), vec(out, dummy_out), detail::bind(state),
                     detail::bind(carry)},
                 gx, gy);
    if (fallbacks) rec.copy(state, 4, *fallbacks, c * 4, 4);  // this chunk's fallback count
  }
}

std::uint64_t chunk_count(context& ctx, std::size_t n) {
  // The decoupled scan's chunks are whole tiles of at most 8,192 elements; the seed's are the binding limit.
  // Sizing the fallback counters for the smaller chunk covers both.
  const std::uint64_t chunk = ctx.binding_limit() / 4 / 8192 * 8192;
  return (n + chunk - 1) / chunk;
}

// Compensated and reproducible f32 sums go through the seed's shape with double-word accumulation (the
// decoupled scan publishes 32-bit tile states; a pair would need four words).
bool uses_pairs(const monoid& m, const run_options& opt) {
  return m.is_sum() && m.type() == dtype::f32 && opt.accuracy != accuracy::fast;
}

std::string pick_algorithm(const run_options& opt) {
  std::string alg = opt.algorithm.empty() ? "decoupled" : opt.algorithm;
  if (alg != "seed" && alg != "decoupled")
    throw error(errc::invalid_argument, "unknown scan algorithm '" + alg + "' (available: decoupled, seed)");
  return alg;
}

void check_sizes(const buffer& in, const buffer& out, std::size_t n) {
  if (n * 4ull > in.size_bytes() || n * 4ull > out.size_bytes())
    throw error(errc::invalid_argument, "n = " + std::to_string(n) + " elements exceeds a buffer's size");
}

}  // namespace

void scan(context& ctx, const buffer& in, buffer& out, std::size_t n, const monoid& m, scan_kind kind,
          const run_options& opt) {
  const std::string alg = pick_algorithm(opt);
  check_sizes(in, out, n);
  if (n == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, alg, 0};
    return;
  }
  detail::recorder rec(ctx, opt.timestamps || opt.stats);
  buffer fallbacks;
  const bool pairs = uses_pairs(m, opt);
  if (opt.stats && alg == "decoupled" && !pairs) fallbacks = ctx.create_buffer(chunk_count(ctx, n) * 4);
  if (pairs) scan_seed(rec, in, out, n, m, kind, detail::accum::double_word);
  else if (alg == "seed") scan_seed(rec, in, out, n, m, kind);
  else scan_decoupled(rec, in, out, n, m, kind, opt, opt.stats ? &fallbacks : nullptr);
  detail::gpu_time t = rec.submit();
  if (opt.stats) {
    opt.stats->gpu_ms = t.ms;
    opt.stats->gpu_timestamps = t.from_timestamps;
    opt.stats->algorithm = pairs ? std::string("seed-") + accuracy_name(opt.accuracy) : alg;
    opt.stats->lookback_fallbacks = 0;
    if (fallbacks) {
      std::vector<std::uint32_t> f(fallbacks.size_bytes() / 4);
      ctx.read(fallbacks, 0, f.data(), f.size() * 4);
      for (std::uint32_t x : f) opt.stats->lookback_fallbacks += x;
    }
  }
}

void scan(context& ctx, WGPUCommandEncoder encoder, const buffer& in, buffer& out, std::size_t n, const monoid& m,
          scan_kind kind, const run_options& opt) {
  const std::string alg = pick_algorithm(opt);
  check_sizes(in, out, n);
  if (n == 0) return;
  detail::recorder rec(ctx, encoder);
  if (uses_pairs(m, opt)) scan_seed(rec, in, out, n, m, kind, detail::accum::double_word);
  else if (alg == "seed") scan_seed(rec, in, out, n, m, kind);
  else scan_decoupled(rec, in, out, n, m, kind, opt, nullptr);
  rec.end();
}

}  // namespace wgprim
