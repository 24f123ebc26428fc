// The sort's policies: plain data from the adapter's kind and limits, overridable per call (run_options::tune).
#pragma once
#include <cstdint>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"

namespace wgprim::detail {

struct sort_rts_policy {
  std::uint32_t wg_size = 256;  // = the radix: one digit per invocation in the tile scans
  std::uint32_t items = 4;      // keys per invocation: tiles of 1,024
  bool subgroups = true;
};
sort_rts_policy sort_rts_policy_for(const context& ctx, const tuning& t);

struct sort_onesweep_policy {
  // 256 (the radix) or 512 (knob sort.wg_size, WGPRIM_ONESWEEP_WG): H200 session 7 (loops) 512 no faster; H100
  // session 25 (written out, u32 2^26) 3.408 vs 3.655 ms. NVIDIA's row takes 512 for 32-bit keys since session 26
  // (H100, bench/results/2026-12-07-session26, GPU ms, 256 / 512: u32 2^24 0.974 / 0.922, 2^26 3.632 / 3.436; f32
  // 2^24 1.013 / 0.964, 2^26 3.757 / 3.580; u32 pairs 2^24 1.185 / 1.135); `wgprim tune` tries both on GPUs.
  std::uint32_t wg_size = 256;
  // The same for 64-bit keys (knob sort.wg_size_wide): 256 everywhere, as 512 lost on the H100 (session 26: i64 2^24
  // 2.492 / 2.739 ms).
  std::uint32_t wg_size_wide = 256;
  // Keys per invocation (tune.items): tiles of 4,608. H200 2026-12-02 (session 12), u32 keys at 2^28, batched ms
  // per sort: 15 18.3, 16 18.0, 17 17.6, 18 17.3, 19 17.1, 20 26.1. The cliff is workgroup memory, not registers
  // (session 21, bench/results/2026-12-03-h200-session21): a pass is ~50 % slower as soon as the kernel's workgroup
  // memory passes ~24 KiB (u32 at 2^24: 18 keys 1.021 ms, 19 keys 1.475 now that the pool sits beside ~5 KiB of
  // other arrays; the pool padded to 4,640 words 1.019, to 4,864 1.503). 18 is the largest tile under it.
  std::uint32_t items = 18;
  // Keys per invocation with 64-bit keys. Read again for the scatter (reload_keys) they hold no registers while the
  // tile ranks: H200 2026-12-03 (session 15, call 4), i64 GPU ms at 2^28 for 12 / 14 / 16 / 18: 48.8 / 46.7 / 45.8 /
  // 45.5 (2^24: 2.87 / 2.80 / 2.84 / 2.83).
  std::uint32_t items_wide = 18;
  std::uint32_t slots = 16;     // subgroup histograms ranked at once (more subgroups: several phases); at most 8 where
                                // 16 do not fit the adapter's workgroup memory
  // Rounds of the scatter: the pool holds 1 / scatter_rounds of the tile at a time (the largest divisor of items
  // that is at most this), so that the kernel needs less workgroup memory (with slots = 8, 2 rounds: ~13 KiB
  // instead of ~22). WGPRIM_ONESWEEP_ROUNDS / WGPRIM_ONESWEEP_SLOTS override both for A/B runs.
  std::uint32_t scatter_rounds = 1;
  // The loops over the tile's keys written out by wgsl_compose (`//! unroll`), so that the key, rank and digit
  // arrays are indexed by constants. H100 2026-12-07 (session 24, bench/results/2026-12-07-h100-session24, call 7
  // against call 6's loops), GPU ms: u32 keys 2^24 0.963 / 1.027, 2^28 14.34 / 14.6; u32 pairs 2^24 1.199 / 1.355,
  // 2^28 17.54 / 19.85; i64 keys 2^24 2.51 / 2.94. Written out, 2 scatter rounds with 8 histograms lost (u32 2^26
  // 3.96 against 3.66 ms in 1 round with 16), though they won with the loops (3.72 against 4.23). CPU adapters: off
  // (lavapipe compiles the written-out kernel several times slower). WGPRIM_UNROLL=0|1 for A/B.
  bool unroll = true;
  std::uint32_t spin = 256;     // polls of a NOT_READY predecessor before counting its tile here (tune.spin_limit)
  // Rank with ballots, each digit's count bumped by a workgroup atomic, no barrier per key (WGPRIM_ONESWEEP_RANK=atomic;
  // false: a barrier per key, WGPRIM_ONESWEEP_RANK=ballot). H200 2026-12-02, u32 keys, ms per pass at 2^24 / 2^28:
  // atomic 0.316 / 4.70 against ballot 0.381 / 5.74 (CPU adapters: ballot, see builtin_policies).
  bool atomic_counts = true;
  // 32-bit keys: each key's digit packed (four to a word) after the loads, the keys read again for the scatter, so
  // that they hold no registers while the tile ranks (WGPRIM_ONESWEEP_RELOAD=0|1 for A/B). H200 2026-12-02 (session
  // 14), GPU ms at 2^28 held / reloaded: u32 keys 17.17 / 16.14, f32 18.36 / 16.80, u32 pairs 19.53 / 18.40, 16 bits
  // 9.04 / 8.57 (5-9 % at 2^24 too). lavapipe: 12 % slower (2^20: 207 / 237 ms), so CPU adapters hold the keys.
  // 64-bit keys (word by word; session 15, call 1, i64 GPU ms held / reloaded): 2^24 3.19 / 2.87, 2^27 23.97 /
  // 21.20, 2^28 54.08 / 48.48.
  bool reload_keys = true;
  // CUB's early counts: a tile publishes its digit counts (from a workgroup histogram of its keys) before it ranks,
  // so that its successors' look-backs need not wait out its ranking (WGPRIM_ONESWEEP_EARLY=0|1, knob
  // sort.early_counts). H200 session 9 (loops, ranking then ~3 of a 5.7 ms pass): 0.7 % slower. Off until measured
  // again: the H100 (session 25, written out) spends 28 % of a u32 sort in the look-back.
  bool early_counts = false;
  // Ranking by match words (WGPRIM_ONESWEEP_MATCH=0|1, knob sort.rank_match): each key sets its lane's bit in its
  // subgroup's word of its digit (a workgroup atomicOr) and reads the word back after a subgroup barrier: its peers
  // with one atomic and three subgroup barriers instead of eight ballots (CUB's WARP_MATCH_ATOMIC_OR). Subgroups of at
  // most 32 lanes, the adapter's subgroup barrier, atomic counts; the words sit in the pool beside the counts (the
  // histograms are cut to what fits beside them in the tile's pool). NVIDIA's row: on (H100 session 27, GPU ms, ballots /
  // match: u32 keys 2^26 3.437 / 3.145, f32 2^26 3.59 / 3.38, u32 2^24 0.930 / 0.847, u32 pairs 2^24 1.139 / 1.051,
  // i64 2^24 in 8 histograms 2.49 / 2.39; 98 registers instead of 128).
  bool rank_match = false;
  // How the match words are emptied for the subgroup's next key (WGPRIM_ONESWEEP_MATCH_CLEAR=leader|own|pair, knob
  // sort.match_clear 0 / 1 / 2): the lowest peer stores 0 between two more subgroup barriers (three a key); each lane
  // XORs its own bit back after a second barrier (two); or alternate keys use the count words and the match words and
  // each lane takes back its bit of the previous key after this key's one barrier (shaders/sort/onesweep.wgsl).
  // NVIDIA's row: pair (H100 session 29, bench/results/2026-12-07-session29, GPU ms leader / own / pair: u32 keys
  // 2^26 3.145 / 3.152 / 3.116 in each of two rounds; u32 pairs 2^24 1.053 / - / 1.045).
  std::uint32_t match_clear = 0;
  std::uint32_t window = 1;     // predecessor states each digit reads at once in the look-back (tune.lookback_window);
                                // H200 2026-12-01, 512 x 15 tiles, ms per pass at 2^28: window 1 5.96, 2 6.07, 4 6.26, 8 6.55
};
// The comparator sort's merge levels (src/primitives/sort/comparator.cpp): output tiles of 2,048 keys, each merged by
// one workgroup of 2,048 / items invocations, each merging `items` keys in a row (8, 16 or 32).
// The blocks (tiles of 2,048 keys sorted by one workgroup each): a merge sort in workgroup memory
// (sort/merge_block.wgsl), or the segmented sort's bitonic network (block_network, sort/segmented.wgsl's sort_mid).
// H200 2026-12-03 (session 15), u32 keys `a > b`: the blocks at 2^24 2.44 ms by the network, 0.41 by the merge sort
// (whole sort 3.45 / 1.42 ms; 2^28 57.4 / 23.4); the segmented sort's mid segments, 2^28 keys in segments of ~1000:
// 19.8 / 8.3 ms. lavapipe (2 cores, 10^6 keys, the comparator's blocks): network 96 ms, merge sort 146 ms.
// merge.items 8 / 16 / 32: whole comparator sort 3.44 / 3.76 / 4.56 ms at 2^24 (bench/results/2026-12-03-h200-session15).
struct sort_merge_policy {
  std::uint32_t items = 8;
  bool block_network = false;
};

sort_onesweep_policy sort_onesweep_policy_for(const context& ctx, const tuning& t, bool stress, std::uint32_t key_words);

}  // namespace wgprim::detail
