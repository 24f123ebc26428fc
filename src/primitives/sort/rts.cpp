// The reduce-then-scan radix sort (the baseline, and the sort on adapters without subgroups): per digit pass,
// tile digit counts (sort/rts_count.wgsl) -> exclusive scan of all counts, digit-major (record_scan) -> stable
// scatter through a tile sorted in workgroup memory (sort/rts_scatter.wgsl). Three dispatches per pass.
#include "primitives/scan/scan.hpp"
#include "primitives/sort/policy.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct rts_params {
  std::uint32_t n, tiles, shift, grid_x, key_kind, descending, pairs, pad0;
};
static_assert(sizeof(rts_params) == 32);
const kernel_spec sort_rts_count_spec{"sort/rts_count.wgsl",
                                      "count",
                                      {slot::uniform, slot::storage_read, slot::storage_rw},
                                      sizeof(rts_params)};
const kernel_spec sort_rts_scatter_spec{"sort/rts_scatter.wgsl",
                                        "scatter",
                                        {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_read,
                                         slot::storage_rw, slot::storage_rw},
                                        sizeof(rts_params)};

sort_rts_policy sort_rts_policy_for(const context& ctx, const tuning& t) {
  sort_rts_policy p;
  p.subgroups = ctx.features().subgroups && t.subgroups != 0;
  // Tiles of 2,048 halve the counts to scan where workgroup memory allows (keys + local indices: 16 KiB).
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
    const wgsl_constants c = sort_constants(pol_.wg_size, pol_.items);
    const std::string lanes = pol_.subgroups ? "shared/lanes_subgroup.wgsl" : "shared/lanes_workgroup.wgsl";
    count_ = &get_kernel(ctx, sort_rts_count_spec, compose_wgsl(sort_rts_count_spec.file, m_, c), true);
    scatter_ = &get_kernel(ctx, sort_rts_scatter_spec, compose_wgsl(sort_rts_scatter_spec.file, m_, c, {lanes}), true);
    const std::uint64_t tile = std::uint64_t(pol_.wg_size) * pol_.items;
    tiles_ = (a.keys_in.count + tile - 1) / tile;
    counts_ = ctx.create_buffer(tiles_ * 256 * 4);
    offsets_ = ctx.create_buffer(tiles_ * 256 * 4);
    placeholder_in_ = ctx.create_buffer(16);
    placeholder_out_ = ctx.create_buffer(16);
  }
  void pass(recorder& rec, const sort_pass& p) override {
    context& ctx = rec.ctx();
    std::uint32_t gx, gy;
    grid_2d(tiles_, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    const rts_params prm{static_cast<std::uint32_t>(a_.keys_in.count), static_cast<std::uint32_t>(tiles_), p.shift, gx,
                         sort_key_kind(a_.key_type), a_.ord == order::descending ? 1u : 0u, a_.pairs() ? 1u : 0u, 0};
    rec.dispatch(*count_, {rec.params(prm), bind(p.keys_in), bind(view_of(counts_))}, gx, gy);
    run_options scan_opt;  // the scan's own default algorithm
    scan_args s{view_of(counts_, tiles_ * 256), view_of(offsets_, tiles_ * 256), &m_, scan_kind::exclusive, nullptr,
                &scan_opt, nullptr};
    record_scan(rec, s);
    // Keys only: the value bindings get placeholders the kernel never touches (two, as WebGPU forbids one
    // buffer bound read-only and read-write in one dispatch).
    const binding vin = a_.pairs() ? bind(p.vals_in) : bind(view_of(placeholder_in_));
    const binding vout = a_.pairs() ? bind(p.vals_out) : bind(view_of(placeholder_out_));
    rec.dispatch(*scatter_, {rec.params(prm), bind(p.keys_in), vin, bind(view_of(offsets_)), bind(p.keys_out), vout},
                 gx, gy);
  }

 private:
  sort_args a_;
  monoid m_;
  sort_rts_policy pol_;
  const kernel* count_ = nullptr;
  const kernel* scatter_ = nullptr;
  std::uint64_t tiles_ = 0;
  buffer counts_, offsets_, placeholder_in_, placeholder_out_;
};
}  // namespace

std::unique_ptr<sort_algorithm> make_sort_rts(recorder& rec, const sort_args& a) {
  return std::make_unique<rts>(rec, a);
}

}  // namespace wgprim::detail
