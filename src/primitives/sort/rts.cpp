// The reduce-then-scan radix sort (the baseline, and the sort on adapters without subgroups): per slot, tile digit
// counts (sort/rts_count.wgsl) -> exclusive scan of all counts, digit-major (record_scan) -> stable scatter through
// a tile sorted in workgroup memory (sort/rts_scatter.wgsl). Three dispatches per slot; an inactive slot's kernels
// return at once (its scan still runs, over counts nobody reads).
#include "primitives/scan/scan.hpp"
#include "primitives/sort/policy.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

const kernel_spec sort_rts_count_spec{"sort/rts_count.wgsl",
                                      "count",
                                      {slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw,
                                       slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw,
                                       slot::storage_rw},
                                      sizeof(sort_params)};
const kernel_spec sort_rts_scatter_spec{"sort/rts_scatter.wgsl",
                                        "scatter",
                                        {slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw,
                                         slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw,
                                         slot::storage_read},
                                        sizeof(sort_params)};

sort_rts_policy sort_rts_policy_for(const context& ctx, const tuning& t) {
  sort_rts_policy p;
  p.subgroups = ctx.features().subgroups && t.subgroups != 0;
  // Tiles of 2,048 halve the counts to scan where workgroup memory allows (digits + local indices: 16 KiB).
  if (ctx.limits().max_compute_workgroup_storage_size >= 24 * 1024) p.items = 8;
  if (t.items) {
    if (t.items > 8) throw error(errc::invalid_argument, "tuning: items must be 1..8 for the reduce-then-scan sort");
    p.items = t.items;
  }
  return p;
}

namespace {
class rts final : public sort_algorithm {
 public:
  rts(recorder& rec, const sort_args& a) : a_(a), m_(op::sum(), dtype::u32) {
    context& ctx = rec.ctx();
    pol_ = sort_rts_policy_for(ctx, a.opt->tune);
    const wgsl_constants c = sort_constants(pol_.wg_size, pol_.items, a.key_words);
    const std::string lanes = lanes_module(pol_.subgroups);
    count_ = &get_kernel(ctx, sort_rts_count_spec, compose_wgsl(sort_rts_count_spec.file, m_, c), true);
    scatter_ = &get_kernel(ctx, sort_rts_scatter_spec, compose_wgsl(sort_rts_scatter_spec.file, m_, c, {lanes}), true);
    const std::uint64_t tile = std::uint64_t(pol_.wg_size) * pol_.items;
    tiles_ = (a.n + tile - 1) / tile;
  }
  std::uint64_t state_words() const override { return 0; }
  void slot(recorder& rec, std::uint32_t j, const sort_bindings& b) override {
    context& ctx = rec.ctx();
    const buffer& counts = scratch(ctx, "sort.rts_counts", tiles_ * 256 * 4);
    const buffer& offsets = scratch(ctx, "sort.rts_offsets", tiles_ * 256 * 4);
    std::uint32_t gx, gy;
    grid_2d(tiles_, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    sort_params p = sort_params_of(a_);
    p.tiles = static_cast<std::uint32_t>(tiles_);
    p.slot = j;
    p.grid_x = gx;
    rec.dispatch(*count_,
                 {rec.params(p), b.keys_in, b.keys_x, b.keys_y, b.vals_in, b.vals_x, b.vals_y, b.state,
                  bind(counts, 0, tiles_ * 256 * 4)},
                 gx, gy);
    run_options scan_opt;  // the scan's own default algorithm
    scan_args s{view_of(counts, tiles_ * 256), view_of(offsets, tiles_ * 256), &m_, scan_kind::exclusive, nullptr,
                &scan_opt, nullptr};
    record_scan(rec, s);
    // A fresh parameter slot: the scan above may have moved the context's parameter ring to a new buffer.
    rec.dispatch(*scatter_,
                 {rec.params(p), b.keys_in, b.keys_x, b.keys_y, b.vals_in, b.vals_x, b.vals_y, b.state,
                  bind(offsets, 0, tiles_ * 256 * 4)},
                 gx, gy);
  }

 private:
  sort_args a_;
  monoid m_;
  sort_rts_policy pol_;
  const kernel* count_ = nullptr;
  const kernel* scatter_ = nullptr;
  std::uint64_t tiles_ = 0;
};
}  // namespace

std::unique_ptr<sort_algorithm> make_sort_rts(recorder& rec, const sort_args& a) {
  return std::make_unique<rts>(rec, a);
}

}  // namespace wgprim::detail
