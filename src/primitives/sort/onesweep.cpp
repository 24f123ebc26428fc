// The Onesweep radix sort: one dispatch per slot (sort/onesweep.wgsl): tiles in order from an atomic counter, keys
// in registers, subgroup-ballot ranking, per-digit look-back (each digit walks alone over a window of
// predecessors) with the decoupled fallback, scatter through workgroup memory. Needs subgroups. The tile states
// (1 KiB per tile) alternate between two regions by slot; each slot clears the next one's (see state_words).
//
// Per-tile work (issue 25 item 2, measured on the H200 with 256 x 15 keys per tile): a tile is 3,840 keys (15 KiB of
// u32 keys), so 2^24 keys are 4,370 tiles and 2^28 keys 69,906. Its look-back is digit-parallel already: invocation
// d walks digit d's chain alone (no barrier until every digit is done or stuck), reading `window` (4) one-word
// states per round, polling a NOT_READY one up to `spin` (256) times before the fallback. Each round of the
// workgroup reads window x 1 KiB, and a walk goes back to the youngest INCLUSIVE tile: about as many tiles as are in
// flight (132 SMs x the resident workgroups), since in-flight tiles spend their life walking. So a pass reads about
// tiles x tiles-in-flight x 1 KiB of tile states (e.g. 4,370 x ~500 x 1 KiB = ~2 GB of L2 reads at 2^24) against
// 134 MB of keys moved. The H200 numbers fit that: a pass costs ~96 ns per tile at 2^24 (0.42 ms) and at 2^28
// (6.5 ms), linear in tiles (a throughput bound, not a first-wave latency), window 1 beat 4 beat 8 (wave 4: fewer
// states read), and the barrier-free ranking gained only 2% (wave 6). The look-back traffic falls with the square
// of the tile size at a fixed number of keys in flight (fewer tiles, each walking past fewer tiles).
// Measured since (H200, session 7, ms per u32 digit pass at 2^24 / 2^28): the walk in tile/lookback_core.wgsl
// polling a NOT_READY state alone and each digit publishing its INCLUSIVE state at once, 0.40 / 6.08 (was 0.42 /
// 6.52); tiles of 512 x 15 keys 0.41 / 6.25 (half the tiles, no faster: the tile count is not the bound); window 1
// instead of 4 about 4% less. So the look-back is a small part of a pass; the per-key work is the rest.
// Ranking variants (WGPRIM_ONESWEEP_RANK=atomic|ballot, policy.atomic_counts): both find a key's peers with eight
// subgroup ballots; `atomic` bumps each digit's count with a workgroup atomic, `ballot` orders each key's step with a
// barrier. Removed since, as no faster on the H200: `counters` (each lane's bit set in its subgroup's mask of its
// digit in workgroup memory with atomicOr, instead of the ballots; 1.6x slower than ballot, session 8,
// bench/results/ab_rank.sh) and early counts (WGPRIM_ONESWEEP_EARLY=1, CUB's: the tile's digit counts published
// before its ranking; 0.7 % slower at 2^28, equal at 2^24, session 9; on lavapipe 26x slower, its loops of
// workgroup atomics being slow).
// Session 9 (H200, bench/results/2026-12-02-h200-session9, ms per u32 pass at 2^28 / 2^24): the whole pass 5.69 /
// 0.38; leaving out (WGPRIM_ONESWEEP_ABLATE) the look-back 4.67 / 0.33, the scatter 4.58 / 0.30, scatter and look-back
// 3.55 / 0.24, rank and scatter 1.60 / 0.11, all three (loads, digits, an atomic histogram) 0.84 / 0.065. So the
// ranking loop is ~3 ms of the 5.7, the scatter and the look-back ~1 ms each. The atomic ranking (no barrier per key)
// ran 5.64 vs 5.71: the per-key barrier is not what costs. Nor are the ballots or the shuffle: diagnostic builds with
// four or one ballot per key, or no shuffle, ran no faster (6.0-6.8, 5.78: bench/results/2026-12-02-h200-session9
// call 4), and early counts (publishing before ranking) 5.80 vs 5.75. Removing pieces of the ranking does not help;
// removing all of it does: the likely bound is latency at low occupancy (the ranking's registers: ITEMS keys, digits
// and ranks per invocation), i.e. loads, look-back and scatter not overlapped. Next: fewer registers per key, or a
// persistent workgroup that loads the next tile while it ranks this one.
// The scatter is staged through workgroup memory (each digit's run written by consecutive invocations), and the
// plan (sort/plan.wgsl) already skips a pass whose digit is the same for every key.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/env.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/policy.hpp"
#include "primitives/sort/policy.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

const kernel_spec sort_onesweep_spec{"sort/onesweep.wgsl",
                                     "onesweep",
                                     {slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw,
                                      slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw},
                                     sizeof(sort_params)};

namespace {
// Workgroup memory of the kernel besides the pool: wg_bins, wg_count, wg_global (1 KiB each), the lanes'
// subgroup totals (one word per invocation) and a few words.
std::uint32_t fixed_wg_bytes(std::uint32_t wg_size) { return 3 * 1024 + 4 * wg_size + 64; }
constexpr std::uint64_t tile_states_word = 4160;
// The rounds divide the tile evenly: the largest divisor of items that is at most the policy's rounds.
std::uint32_t rounds_of(const sort_onesweep_policy& p) {
  std::uint32_t r = std::max(1u, std::min(p.scatter_rounds, p.items));
  while (p.items % r) --r;
  return r;
}
// The pool holds the tile (a round's share of it), and while ranking the subgroup counts (SLOTS x RADIX words),
// with rank_match as many match words after them. WGPRIM_ONESWEEP_POOL pads it (an occupancy sweep).
// Pool words per subgroup histogram while ranking: its counts, and with rank_match its match words.
std::uint32_t slot_words(const sort_onesweep_policy& p) { return (p.rank_match ? 2 : 1) * 256; }
// The words the tile and the histograms need, before WGPRIM_ONESWEEP_POOL's padding.
std::uint32_t needed_pool_words(const sort_onesweep_policy& p) {
  return std::max(p.wg_size * (p.items / rounds_of(p)), p.slots * slot_words(p));
}
std::uint32_t pool_words(const sort_onesweep_policy& p) {
  return std::max<std::uint32_t>(needed_pool_words(p), env::onesweep_pool());
}
std::uint32_t wg_bytes(const sort_onesweep_policy& p) { return pool_words(p) * 4 + fixed_wg_bytes(p.wg_size); }
// WGPRIM_ONESWEEP_WG=256|512 overrides the policy's workgroup size (A/B runs, and the tests of the 512 shape on a
// CPU adapter, whose policy keeps 256); 0 or unset: the policy.
std::uint32_t wg_size_override() { return env::onesweep_wg(); }
}  // namespace

sort_onesweep_policy sort_onesweep_policy_for(const context& ctx, const tuning& t, bool stress,
                                              std::uint32_t key_words) {
  // On a CPU adapter the predecessor is rarely running: waiting is waste; and every workgroup barrier is a switch
  // between all invocations, so bigger tiles (fewer tiles, fewer look-backs) pay: the table's spin and items.
  sort_onesweep_policy p = policy_for(ctx).sort;
  if (key_words == 2) {  // two key words in registers
    p.items = p.items_wide;
    p.wg_size = p.wg_size_wide;
  }
  const std::uint32_t limit = ctx.limits().max_compute_workgroup_storage_size;
  const auto& L = ctx.limits();
  const auto wg_fits = [&](std::uint32_t w) {
    return L.max_compute_invocations_per_workgroup >= w && L.max_compute_workgroup_size_x >= w;
  };
  // Tiles of 512 invocations (7,680 keys, as CUB's Onesweep tile on sm_90) are kept as an option
  // (WGPRIM_ONESWEEP_WG=512), not the default: on the H200 (2026-12-01, session 7, u32 keys, per digit pass, window
  // 4) they ran 0.41 vs 0.40 ms at 2^24 and 6.25 vs 6.08 ms at 2^28 against 256 invocations. Halving the tiles did
  // not halve a pass, so the look-back traffic above is not what bounds it: the per-key work (ranking, scatter) is.
  if (const std::uint32_t w = wg_size_override()) {
    if (!wg_fits(w)) throw error(errc::unsupported, "WGPRIM_ONESWEEP_WG: the adapter's workgroups are smaller");
    p.wg_size = w;
  }
  // The policy's (a tuning file's) size: the kernel takes the radix or twice it; a size the adapter cannot run
  // falls back to the radix (a policy file may come from another adapter of the same class).
  if (p.wg_size != 256 && p.wg_size != 512)
    throw error(errc::invalid_argument, std::string("policy: sort.wg_size") + (key_words == 2 ? "_wide" : "") +
                                            " must be 256 or 512, not " + std::to_string(p.wg_size));
  if (!wg_fits(p.wg_size)) p.wg_size = 256;
  // The policy's subgroup histograms (16, 16 KiB: subgroups of 16 lanes or more rank in one phase) where they fit.
  if (const unsigned s = env::onesweep_slots()) p.slots = s;
  if (const unsigned r = env::onesweep_rounds()) p.scatter_rounds = r;
  if (const int rank = env::onesweep_rank(); rank >= 0) p.atomic_counts = rank == 1;  // -1: the policy's ranking
  // Match words need the subgroup barrier and the atomic counts (whose pool is atomic).
  p.rank_match = env::set_or(env::onesweep_match(), p.rank_match) && ctx.features().subgroup_barrier && p.atomic_counts;
  // Where the histograms (and match words) asked for do not fit the adapter's workgroup memory, 8 (one phase for
  // 32-lane subgroups); with match words, as many as fit beside them (so that the tile below is not cut instead).
  const std::uint32_t per_slot = slot_words(p) * 4;
  if (p.slots * per_slot + fixed_wg_bytes(p.wg_size) > limit) p.slots = std::min(p.slots, 8u);
  if (p.rank_match && p.slots * per_slot + fixed_wg_bytes(p.wg_size) > limit)
    p.slots = limit > fixed_wg_bytes(p.wg_size) ? (limit - fixed_wg_bytes(p.wg_size)) / per_slot : 1;
  p.slots = std::max(p.slots, 1u);
  // The largest tile (up to the default keys per invocation) whose pool fits the adapter's workgroup memory.
  while (p.items > 1 && wg_bytes(p) > limit) --p.items;
  if (t.items) {
    if (t.items > 32) throw error(errc::invalid_argument, "tuning: items must be 1..32 for the onesweep sort");
    p.items = t.items;
  }
  if (t.lookback_window) {
    if (t.lookback_window > 32)
      throw error(errc::invalid_argument, "tuning: lookback_window must be 1..32 for the onesweep sort");
    p.window = t.lookback_window;
  }
  // Match words beside the counts: no more histograms than fit beside them in the tile's pool, or than a workgroup
  // has subgroups of 32 lanes (one ranking phase for those), rather than a larger pool (H100 session 27, i64 keys at
  // 2^24 in tiles of 256 x 18: 16 histograms grew the pool to 32 KiB, 3.10 ms against 2.50 with the ballots; 8
  // histograms 2.39). Not where WGPRIM_ONESWEEP_SLOTS asks for a number (A/B runs).
  if (p.rank_match && !env::onesweep_slots())
    p.slots = std::max(1u, std::min(p.slots, std::max(p.wg_size * (p.items / rounds_of(p)) / slot_words(p),
                                                      p.wg_size / 32)));
  if (wg_bytes(p) > limit) {
    const unsigned pool = env::onesweep_pool();
    if (pool >= needed_pool_words(p))  // the padding, not the tile, sets the size that does not fit
      throw error(errc::limit, "WGPRIM_ONESWEEP_POOL=" + std::to_string(pool) +
                                   " words exceed the adapter's workgroup memory (" + std::to_string(limit) + " bytes)");
    throw error(errc::invalid_argument, "tuning: " + std::to_string(p.items) +
                                            " keys per invocation exceed the adapter's workgroup memory");
  }
  if (t.spin_limit) p.spin = t.spin_limit;
  if (stress) p.spin = 1;
  p.scatter_rounds = rounds_of(p);
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
    pol_ = sort_onesweep_policy_for(ctx, a.opt->tune, stress_, a.key_words);
    const unsigned ablate = env::onesweep_ablate();
    // Keys read again for the scatter (64-bit keys word by word), digits packed meanwhile: the policy's choice.
    const bool reload = env::set_or(env::onesweep_reload(), pol_.reload_keys);
    const bool fold = env::onesweep_fold() != 0;
    const bool early = env::set_or(env::onesweep_early(), pol_.early_counts);
    const bool unroll = env::unroll_or(pol_.unroll);
    // 0 leader, 1 own, 2 pair: WGPRIM_ONESWEEP_MATCH_CLEAR, else the knob sort.match_clear
    const int clear_env = env::onesweep_match_clear();
    const int match_clear = clear_env >= 0 ? clear_env : static_cast<int>(std::min(pol_.match_clear, 2u));
    auto compose = [&]() -> const std::string& {
      wgsl_constants c = sort_constants(pol_.wg_size, pol_.items, a.key_words);
      c.push_back({"SLOTS", std::to_string(pol_.slots) + "u"});
      c.push_back({"POOL", std::to_string(pool_words(pol_)) + "u"});
      c.push_back({"ROUNDS", std::to_string(pol_.scatter_rounds) + "u"});
      c.push_back({"CHUNK_ITEMS", std::to_string(pol_.items / pol_.scatter_rounds) + "u"});
      c.push_back({"WINDOW", std::to_string(pol_.window) + "u"});
      c.push_back({"RANK_ATOMIC", pol_.atomic_counts ? "true" : "false"});
      c.push_back({"RELOAD", reload ? "true" : "false"});
      c.push_back({"FOLDED", fold ? "true" : "false"});
      c.push_back({"EARLY", early ? "true" : "false"});
      c.push_back({"RANK_MATCH", pol_.rank_match ? "true" : "false"});
      c.push_back({"MATCH_CLEAR", std::to_string(match_clear) + "u"});
      c.push_back({"UNROLL", unroll ? "true" : "false"});
      c.push_back({"ABLATE_RANK", ablate & 1 ? "true" : "false"});
      c.push_back({"ABLATE_LOOKBACK", ablate & 2 ? "true" : "false"});
      c.push_back({"ABLATE_SCATTER", ablate & 4 ? "true" : "false"});
      const monoid m(op::sum(), dtype::u32);
      return compose_wgsl(sort_onesweep_spec.file, m, c, {"shared/lanes_subgroup.wgsl"});
    };
    const text_key key{&sort_onesweep_spec,
                       {pol_.wg_size, pol_.items, a.key_words, pol_.slots, pol_.window, pol_.atomic_counts, ablate, reload, fold,
                        pol_.scatter_rounds, env::onesweep_pool(), unroll, early, pol_.rank_match, static_cast<std::uint32_t>(match_clear)},
                       {}};
    kernel_ = &get_kernel(ctx, sort_onesweep_spec, memo_text(key, compose), true);
    const std::uint64_t tile = std::uint64_t(pol_.wg_size) * pol_.items;
    tiles_ = (a.n + tile - 1) / tile;
  }

  // Two regions of tile states, slot j using region j % 2: each tile of slot j zeroes its states in the other region
  // for slot j + 1 (which runs after the whole of slot j), so only region 0 is cleared by a dispatch, with the sort's
  // state header (one fill per sort instead of one per slot: host encoding and GPU gaps between dispatches).
  std::uint64_t state_words() const override { return 2 * tiles_ * 256; }
  std::uint64_t state_words_zeroed_first() const override { return tiles_ * 256; }

  // shaders/sort/onesweep.wgsl's COPY_INPUT.
  bool copies_input_when_no_pass() const override { return true; }

  void slot(recorder& rec, std::uint32_t j, const sort_bindings& b) override {
    context& ctx = rec.ctx();
    const buffer& state = sort_state(ctx);
    sort_params p = sort_params_of(a_);
    p.tiles = static_cast<std::uint32_t>(tiles_);
    p.slot = j;
    p.spin_limit = pol_.spin;
    p.stress = stress_ ? 1u : 0u;
    std::uint32_t gx, gy;
    grid_2d(tiles_, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    p.grid_x = gx;
    // Workgroups past the last tile (gx * gy > tiles) claim a tile number >= tiles and return.
    rec.dispatch(*kernel_,
                 {rec.params(p), b.keys_in, b.keys_x, b.keys_y, b.vals_in, b.vals_x, b.vals_y,
                  bind(state, 0, (tile_states_word + 2 * tiles_ * 256) * 4)},
                 gx, gy);
  }

 private:
  sort_args a_;
  sort_onesweep_policy pol_;
  bool stress_ = false;
  const kernel* kernel_ = nullptr;
  std::uint64_t tiles_ = 0;
};
}  // namespace

std::unique_ptr<sort_algorithm> make_sort_onesweep(recorder& rec, const sort_args& a) {
  return std::make_unique<onesweep>(rec, a);
}

}  // namespace wgprim::detail
