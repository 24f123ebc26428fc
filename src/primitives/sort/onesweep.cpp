// The Onesweep radix sort: one dispatch per digit pass (sort/onesweep.wgsl): tiles in order from an atomic
// counter, subgroup-ballot ranking, per-digit look-back with the decoupled fallback, scatter through workgroup
// memory. Needs subgroups. The tile states of a pass are cleared before it (a few bytes per key: 1 KiB per tile).
#include <algorithm>

#include "primitives/sort/policy.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct onesweep_params {
  std::uint32_t n, tiles, shift, digit_pass, spin_limit, stress, key_kind, descending, pairs, pad0, pad1, pad2;
};
static_assert(sizeof(onesweep_params) == 48);
const kernel_spec sort_onesweep_spec{"sort/onesweep.wgsl",
                                     "onesweep",
                                     {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_read,
                                      slot::storage_rw, slot::storage_rw, slot::storage_rw},
                                     sizeof(onesweep_params)};

namespace {
// Workgroup memory of the kernel besides the pool: wg_bins, wg_count, wg_global, the lanes' subgroup totals
// (1 KiB each) and a few words.
constexpr std::uint32_t fixed_wg_bytes = 4 * 1024 + 64;
std::uint32_t pool_words(const sort_onesweep_policy& p) { return std::max(p.wg_size * p.items, p.slots * 256); }
}  // namespace

sort_onesweep_policy sort_onesweep_policy_for(const context& ctx, const tuning& t, bool stress) {
  sort_onesweep_policy p;
  const bool cpu = ctx.adapter().kind == adapter_kind::cpu;
  p.spin = cpu ? 16 : 256;  // on a CPU adapter the predecessor is rarely running: waiting is waste
  const std::uint32_t limit = ctx.limits().max_compute_workgroup_storage_size;
  // 16 subgroup histograms (16 KiB) where they fit: subgroups of 16 lanes or more rank in one phase.
  p.slots = 16 * 256 * 4 + fixed_wg_bytes <= limit ? 16 : 8;
  // The largest tile (up to 15 keys per invocation) whose pool fits the adapter's workgroup memory.
  while (p.items > 1 && pool_words(p) * 4 + fixed_wg_bytes > limit) --p.items;
  if (t.items) {
    if (t.items > 32) throw error(errc::invalid_argument, "tuning: items must be 1..32 for the onesweep sort");
    p.items = t.items;
  }
  if (pool_words(p) * 4 + fixed_wg_bytes > limit)
    throw error(errc::invalid_argument, "tuning: " + std::to_string(p.items) +
                                            " keys per invocation exceed the adapter's workgroup memory");
  if (t.spin_limit) p.spin = t.spin_limit;
  if (stress) p.spin = 1;
  return p;
}

namespace {
class onesweep final : public sort_algorithm {
 public:
  onesweep(recorder& rec, const sort_args& a) : a_(a) {
    context& ctx = rec.ctx();
    if (!ctx.features().subgroups)
      throw error(errc::unsupported, "sort algorithm 'onesweep' needs subgroups, which this adapter lacks");
    stress_ = lookback_stress(ctx);
    pol_ = sort_onesweep_policy_for(ctx, a.opt->tune, stress_);
    wgsl_constants c = sort_constants(pol_.wg_size, pol_.items);
    c.push_back({"SLOTS", std::to_string(pol_.slots) + "u"});
    c.push_back({"POOL", std::to_string(pool_words(pol_)) + "u"});
    const monoid m(op::sum(), dtype::u32);
    kernel_ = &get_kernel(ctx, sort_onesweep_spec,
                          compose_wgsl(sort_onesweep_spec.file, m, c, {"shared/lanes_subgroup.wgsl"}), true);
    const std::uint64_t tile = std::uint64_t(pol_.wg_size) * pol_.items;
    tiles_ = (a.keys_in.count + tile - 1) / tile;
    state_ = ctx.create_buffer((8 + tiles_ * 256) * 4);
    rec.clear(state_, 0, 8 * 4);
    placeholder_in_ = ctx.create_buffer(16);
    placeholder_out_ = ctx.create_buffer(16);
  }
  ~onesweep() override = default;

  void pass(recorder& rec, const sort_pass& p) override {
    context& ctx = rec.ctx();
    rec.clear(state_, 8 * 4, tiles_ * 256 * 4);
    const onesweep_params prm{static_cast<std::uint32_t>(a_.keys_in.count), static_cast<std::uint32_t>(tiles_),
                              p.shift, p.digit_pass, pol_.spin, stress_ ? 1u : 0u, sort_key_kind(a_.key_type),
                              a_.ord == order::descending ? 1u : 0u, a_.pairs() ? 1u : 0u, 0, 0, 0};
    std::uint32_t gx, gy;
    grid_2d(tiles_, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    const binding vin = a_.pairs() ? bind(p.vals_in) : bind(view_of(placeholder_in_));
    const binding vout = a_.pairs() ? bind(p.vals_out) : bind(view_of(placeholder_out_));
    // Workgroups past the last tile (gx * gy > tiles) claim a tile number >= tiles and return.
    rec.dispatch(*kernel_, {rec.params(prm), bind(p.keys_in), vin, bind(view_of(*a_.hist)), bind(p.keys_out), vout,
                            bind(view_of(state_))},
                 gx, gy);
    if (a_.fallbacks) rec.copy(state_, (4 + p.digit_pass) * 4, *a_.fallbacks, p.digit_pass * 4, 4);
  }

 private:
  sort_args a_;
  sort_onesweep_policy pol_;
  bool stress_ = false;
  const kernel* kernel_ = nullptr;
  std::uint64_t tiles_ = 0;
  buffer state_, placeholder_in_, placeholder_out_;
};
}  // namespace

std::unique_ptr<sort_algorithm> make_sort_onesweep(recorder& rec, const sort_args& a) {
  return std::make_unique<onesweep>(rec, a);
}

}  // namespace wgprim::detail
