// Dispatch layer of scan: scan-then-propagate over levels of block totals, chunked over storage bindings with a
// carry between chunks, 2-D grids past 65,535 workgroups.
#include "wgprim/scan.hpp"

#include "gpu.hpp"
#include "wgprim/error.hpp"
#include "wgsl_compose.hpp"

namespace wgprim {

std::vector<std::string> scan_algorithms() { return {"seed"}; }

namespace {

struct scan_params {
  std::uint32_t n, blocks, grid_x, exclusive, use_carry, carry_index, pad0, pad1;
};

constexpr std::uint64_t block = 256;

struct seed_scan {
  context& ctx;
  detail::recorder& rec;
  const detail::kernel& scan_blocks;
  const detail::kernel& add_back;
  std::vector<buffer> sums, scanned;  // per level: block totals, and their inclusive scan
  std::uint32_t max_dim;

  // Scans n elements src -> dst. Returns where the inclusive total of the n elements lies.
  std::pair<const buffer*, std::uint32_t> level(std::size_t lv, detail::binding src, detail::binding dst,
                                                std::uint64_t n, bool exclusive, const buffer* carry,
                                                const buffer& dummy) {
    std::uint64_t blocks = (n + block - 1) / block;
    std::uint32_t gx, gy;
    detail::grid_2d(blocks, max_dim, gx, gy);
    scan_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(blocks), gx, exclusive ? 1u : 0u,
                  carry ? 1u : 0u, 0, 0, 0};
    rec.dispatch(scan_blocks, {rec.params(p), src, dst, detail::bind(sums[lv])}, gx, gy);
    if (blocks == 1) {
      if (carry) rec.dispatch(add_back, {rec.params(p), detail::bind(sums[lv]), dst, detail::bind(*carry)}, gx, gy);
      return {&sums[lv], 0};
    }
    level(lv + 1, detail::bind(sums[lv], 0, blocks * 4), detail::bind(scanned[lv], 0, blocks * 4), blocks, false,
          nullptr, dummy);
    rec.dispatch(add_back,
                 {rec.params(p), detail::bind(scanned[lv], 0, blocks * 4), dst, detail::bind(carry ? *carry : dummy)},
                 gx, gy);
    return {&scanned[lv], static_cast<std::uint32_t>(blocks - 1)};
  }
};

void scan_seed(context& ctx, const buffer& in, buffer& out, std::size_t n, const monoid& m, scan_kind kind,
               const run_options& opt) {
  const std::string src = detail::compose_wgsl("scan_seed.wgsl", m, {{"WG_SIZE", "256u"}});
  using detail::slot;
  const std::vector<slot> layout{slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw};
  const bool trusted = m.is_builtin();
  const auto& k_scan = detail::get_kernel(ctx, src, "scan_blocks", layout, trusted);
  const auto& k_add = detail::get_kernel(ctx, src, "add_back", layout, trusted);
  const auto& k_carry = detail::get_kernel(ctx, src, "update_carry", layout, trusted);

  const std::uint64_t chunk = ctx.binding_limit() / 4;
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  const std::uint64_t first_chunk = std::min<std::uint64_t>(chunk, n);

  detail::recorder rec(ctx, opt.timestamps || opt.stats);
  seed_scan s{ctx, rec, k_scan, k_add, {}, {}, ctx.limits().max_compute_workgroups_per_dimension};
  for (std::uint64_t len = first_chunk;;) {
    std::uint64_t blocks = (len + block - 1) / block;
    s.sums.push_back(ctx.create_buffer(blocks * 4));
    s.scanned.push_back(ctx.create_buffer(blocks * 4));
    if (blocks == 1) break;
    len = blocks;
  }
  buffer dummy = ctx.create_buffer(4);
  buffer carry;
  if (chunks > 1) {
    carry = ctx.create_buffer(4);
    std::uint32_t id = m.identity_bits();
    ctx.write(carry, 0, &id, 4);
  }
  // In-place scans read and write one buffer, which one dispatch may not bind twice: scan from a copy.
  buffer copy;
  const buffer* input = &in;
  if (in.native() == out.native()) {
    copy = ctx.create_buffer(n * 4);
    rec.copy(in, 0, copy, 0, n * 4);
    input = &copy;
  }
  for (std::uint64_t c = 0; c < chunks; ++c) {
    std::uint64_t first = c * chunk, count = std::min<std::uint64_t>(chunk, n - first);
    auto total = s.level(0, detail::bind(*input, first * 4, count * 4), detail::bind(out, first * 4, count * 4), count,
                         kind == scan_kind::exclusive, c > 0 ? &carry : nullptr, dummy);
    if (c + 1 < chunks) {
      scan_params p{0, 0, 0, 0, 0, total.second, 0, 0};
      rec.dispatch(k_carry, {rec.params(p), detail::bind(*total.first), detail::bind(carry), detail::bind(dummy)}, 1);
    }
  }
  detail::gpu_time t = rec.submit();
  if (opt.stats) {
    opt.stats->gpu_ms = t.ms;
    opt.stats->gpu_timestamps = t.from_timestamps;
    opt.stats->algorithm = "seed";
  }
}

}  // namespace

void scan(context& ctx, const buffer& in, buffer& out, std::size_t n, const monoid& m, scan_kind kind,
          const run_options& opt) {
  std::string alg = opt.algorithm.empty() ? "seed" : opt.algorithm;
  if (alg != "seed") throw error(errc::invalid_argument, "unknown scan algorithm '" + alg + "' (available: seed)");
  if (n * 4ull > in.size_bytes() || n * 4ull > out.size_bytes())
    throw error(errc::invalid_argument, "n = " + std::to_string(n) + " elements exceeds a buffer's size");
  if (n == 0) return;
  scan_seed(ctx, in, out, n, m, kind, opt);
}

}  // namespace wgprim
