// The seed's scan-then-propagate, kept as the baseline: block scans, a scan of the block totals (recursing until
// one block remains), add back; chunked over storage bindings with a carry between chunks (carry[0] starts as
// init when one is given), 2-D grids past 65,535 workgroups. With double-word accumulation (compensated and
// reproducible f32 sums) the chunk size is fixed at 2^22 elements where the binding limit allows (every WebGPU
// adapter: the minimum limit is 128 MiB), so that the summation shape depends on n alone.
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "gpu/gpu.hpp"
#include "primitives/scan/scan.hpp"

namespace wgprim::detail {

struct scan_seed_params {
  std::uint32_t n, blocks, grid_x, exclusive, use_carry, carry_index, pad0, pad1;
};
static_assert(sizeof(scan_seed_params) == 32);
namespace {
const std::vector<slot> seed_layout{slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw,
                                    slot::storage_rw};
}
const kernel_spec scan_seed_blocks_spec{"baselines/scan_seed.wgsl", "scan_blocks", seed_layout, sizeof(scan_seed_params)};
const kernel_spec scan_seed_add_spec{"baselines/scan_seed.wgsl", "add_back", seed_layout, sizeof(scan_seed_params)};
const kernel_spec scan_seed_carry_spec{"baselines/scan_seed.wgsl", "update_carry", seed_layout, sizeof(scan_seed_params)};

namespace {

constexpr std::uint64_t block = 256;

// The seed's recursion. Level 0 scans the data (elements E); the levels above scan block totals, which are
// accumulators (E = T). With double-word accumulation T is a (hi, lo) pair of 8 bytes.
struct seed_scan {
  context& ctx;
  recorder& rec;
  const kernel *scan_data, *add_data, *scan_sums, *add_sums;
  std::vector<buffer> sums, scanned;  // per level: block totals, and their inclusive scan
  std::uint32_t acc_bytes;
  const buffer &dummy_in, &dummy_carry;  // unused slots: distinct buffers, as WebGPU requires
  std::uint32_t max_dim;

  binding sums_of(std::size_t lv, std::uint64_t blocks) { return bind(view_of(sums[lv], blocks, acc_bytes)); }
  binding scanned_of(std::size_t lv, std::uint64_t blocks) { return bind(view_of(scanned[lv], blocks, acc_bytes)); }

  // Scans n elements src -> dst. Returns where the inclusive total of the n elements lies (an accumulator).
  std::pair<const buffer*, std::uint32_t> level(std::size_t lv, binding src, binding dst, std::uint64_t n,
                                                bool exclusive, const buffer* carry) {
    const kernel& k_scan = lv == 0 ? *scan_data : *scan_sums;
    const kernel& k_add = lv == 0 ? *add_data : *add_sums;
    std::uint64_t blocks = (n + block - 1) / block;
    std::uint32_t gx, gy;
    grid_2d(blocks, max_dim, gx, gy);
    scan_seed_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(blocks), gx, exclusive ? 1u : 0u,
                       carry ? 1u : 0u, 0, 0, 0};
    rec.dispatch(k_scan, {rec.params(p), src, dst, bind(view_of(sums[lv])), bind(view_of(dummy_carry))}, gx, gy);
    if (blocks == 1) {
      if (carry)
        rec.dispatch(k_add, {rec.params(p), bind(view_of(dummy_in)), dst, bind(view_of(sums[lv])), bind(view_of(*carry))},
                     gx, gy);
      return {&sums[lv], 0};
    }
    level(lv + 1, sums_of(lv, blocks), scanned_of(lv, blocks), blocks, false, nullptr);
    rec.dispatch(k_add, {rec.params(p), bind(view_of(dummy_in)), dst, scanned_of(lv, blocks),
                         bind(view_of(carry ? *carry : dummy_carry))},
                 gx, gy);
    return {&scanned[lv], static_cast<std::uint32_t>(blocks - 1)};
  }
};

}  // namespace

void record_scan_seed(recorder& rec, const scan_args& a) {
  context& ctx = rec.ctx();
  const monoid& m = *a.m;
  const std::uint64_t n = a.in.count;
  const bool dw = a.pairs();
  const accum acc = dw ? accum::double_word : accum::plain;
  const std::string& src_data = compose_wgsl("baselines/scan_seed.wgsl", m, {{"WG_SIZE", "256u"}}, {}, acc, false);
  const std::string& src_sums = compose_wgsl("baselines/scan_seed.wgsl", m, {{"WG_SIZE", "256u"}}, {}, acc, true);
  const bool trusted = m.is_builtin();
  const auto& k_scan = get_kernel(ctx, scan_seed_blocks_spec, src_data, trusted);
  const auto& k_add = get_kernel(ctx, scan_seed_add_spec, src_data, trusted);
  const auto& k_scan_sums = get_kernel(ctx, scan_seed_blocks_spec, src_sums, trusted);
  const auto& k_add_sums = get_kernel(ctx, scan_seed_add_spec, src_sums, trusted);
  const auto& k_carry = get_kernel(ctx, scan_seed_carry_spec, src_sums, trusted);
  const std::uint32_t acc_bytes = dw ? 8 : dtype_bytes(m.type());

  std::uint64_t per_chunk = elements_per_binding(ctx, acc_bytes);
  if (dw) per_chunk = std::min<std::uint64_t>(per_chunk, std::uint64_t(1) << 22);
  const auto parts = chunks_of(n, per_chunk);

  buffer dummy_in = ctx.create_buffer(16), dummy_carry = ctx.create_buffer(16);
  seed_scan s{ctx, rec, &k_scan, &k_add, &k_scan_sums, &k_add_sums, {}, {}, acc_bytes,
              dummy_in, dummy_carry, ctx.limits().max_compute_workgroups_per_dimension};
  for (std::uint64_t len = parts.front().count;;) {
    std::uint64_t blocks = (len + block - 1) / block;
    s.sums.push_back(ctx.create_buffer(blocks * acc_bytes));
    s.scanned.push_back(ctx.create_buffer(blocks * acc_bytes));
    if (blocks == 1) break;
    len = blocks;
  }
  buffer carry;
  if (parts.size() > 1 || a.init) {
    carry = ctx.create_buffer(acc_bytes);
    // A pair's init is (init, 0); without init the first chunk does not read the carry.
    // (A 64-bit type's init is its 8 bytes.)
    const std::uint64_t first = a.init ? (dw ? *a.init & 0xffffffffu : *a.init) : (dw ? 0u : m.identity_raw());
    wgpu_write(ctx, carry.native(), 0, &first, acc_bytes);
  }
  for (std::size_t c = 0; c < parts.size(); ++c) {
    const chunk& ch = parts[c];
    auto total = s.level(0, bind(a.in, ch.first, ch.count), bind(a.out, ch.first, ch.count), ch.count,
                         a.kind == scan_kind::exclusive, (c > 0 || a.init) ? &carry : nullptr);
    if (c + 1 < parts.size()) {
      scan_seed_params p{0, 0, 0, 0, 0, total.second, 0, 0};
      rec.dispatch(k_carry, {rec.params(p), bind(view_of(dummy_in)), bind(view_of(dummy_carry)),
                             bind(view_of(*total.first)), bind(view_of(carry))},
                   1);
    }
  }
}

}  // namespace wgprim::detail
