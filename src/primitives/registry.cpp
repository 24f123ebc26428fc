// The algorithm registry and the list of kernel contracts: adding an algorithm or a kernel is one line here.
// The registry decides what a call runs (pick_algorithm, resolve_algorithm): the only place that reads names.
#include "primitives/copy/widen.hpp"
#include "primitives/arg_reduce/arg_reduce.hpp"
#include "primitives/histogram/histogram.hpp"
#include "primitives/primitive.hpp"
#include "primitives/segmented/segmented.hpp"
#include "primitives/reduce/reduce.hpp"
#include "primitives/scan/scan.hpp"
#include "primitives/sort/sort.hpp"
#include "primitives/select/select.hpp"
#include "primitives/counted.hpp"

#include <cstring>

#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
using id = algorithm_id;
template <class A, void (*F)(recorder&, const A&)>
constexpr record_fn rec = &erased_record<A, F>;

// The default, when no algorithm is named, on a GPU: the single-dispatch reduce up to 2^21 elements, the fast
// two-pass reduce above. H200, 2026-11-30 (bench/results/2026-11-30-h200-wave5): single wins below by its one
// dispatch (batched f32 at 2^16 / 2^20: 8.9 / 9.5 vs 14.1 / 11.8 us per call); from 2^22 its GPU time is longer
// (2^22: 15.6 vs 12.2 us; 2^24: 30.4 vs 25.2 us).
constexpr std::uint64_t reduce_single_default_max_n = std::uint64_t(1) << 21;
// Run-length encoding: "heads" (two passes, the first unique's) above 2^25 keys, the one by-key pass up to there.
// H200, 2026-12-03 (bench/results/2026-12-03-h200-session21, calls 3 and 4), u32 runs of 20, call / batched ms,
// heads against decoupled: 2^24 0.165 / 0.111 vs 0.131 / 0.101; 2^25 0.179 / 0.139 vs 0.175 / 0.148; 2^26 0.256 /
// 0.217 vs 0.287 / 0.274; 2^27 0.440 / 0.403 vs 0.507 / 0.503; 2^28 0.848 / 0.870 vs 1.002 / 0.962 (CUB 0.760 /
// 0.734).
constexpr std::uint64_t rle_heads_default_above = std::uint64_t(1) << 25;
}  // namespace

const std::vector<algorithm_entry>& algorithm_registry() {
  // primitive, name, about, default on GPUs, default on CPU adapters, needs subgroups, id, record function,
  // GPU default above n elements, accuracy mode served (fast: any), look-back fallbacks counted
  static const std::vector<algorithm_entry> entries = {
      {"reduce", "single", "one dispatch: the fast reduce's walk, the last workgroup to arrive folds the partials",
       true, true, false, id::reduce_single, rec<reduce_args, record_reduce_single>},
      {"reduce", "fast", "vec4 loads, a grid sized to the GPU, subgroup trees; two dispatches (one for small n)",
       false, false, false, id::reduce_fast, rec<reduce_args, record_reduce_fast>, reduce_single_default_max_n},
      {"reduce", "seed", "the seed's two passes: 256 x 256 grid-stride loop + workgroup tree, then the partials",
       false, false, false, id::reduce_seed, rec<reduce_args, record_reduce_seed>},
      {"reduce", "render", "the regl seed: fragment shader folds 2x2 texels into half-size targets", false, false,
       false, id::reduce_render, rec<reduce_args, record_reduce_render>},
      {"scan", "decoupled", "single pass, tiles in order from an atomic counter, look-back with a fallback", true,
       true, false, id::scan_decoupled, rec<scan_args, record_scan_decoupled>, 0, accuracy::fast, true},
      {"scan", "seed", "the seed's scan-then-propagate: block scans, scan of block sums (recursive), add back",
       false, false, false, id::scan_seed, rec<scan_args, record_scan_seed>},
      {"arg_reduce", "fast", "(value, index) pairs through the fast reduce's shape, then one workgroup", true, true,
       false, id::arg_reduce_fast, rec<arg_reduce_args, record_arg_reduce_fast>},
      {"sort", "onesweep", "LSD radix, one pass per digit: ballot ranking, per-digit look-back with a fallback", true,
       true, true, id::sort_onesweep, nullptr, 0, accuracy::fast, true},
      {"sort", "reduce-then-scan", "LSD radix, per digit: tile counts, scan (record_scan), scatter of sorted tiles",
       false, false, false, id::sort_reduce_then_scan},
      {"segmented_sort", "segmented", "segments binned by length: tiny and mid segments sorted by one workgroup each, "
       "long ones by the device sort", true, true, false, id::segmented_sort_binned},
      {"comparator_sort", "merge", "stable merge sort by a checked comparator: tiles sorted per workgroup, then "
       "pairwise merge levels", true, true, false, id::comparator_sort_merge},
      {"histogram", "atomic", "atomic counts: workgroup-private bins where they fit, global atomics beyond", true,
       true, false, id::histogram_atomic},
      {"histogram", "atomic-plain", "the earlier atomic kernel: edges read from their binding, one value per step",
       false, false, false, id::histogram_atomic_plain},
      // tiles stays the default: on the H200 (2026-12-02, bench/results/2026-12-02-h200-session9 call 5, GPU ms at
      // 2^28) decoupled took 7.61 / 2.17 / 3.58 against tiles' 0.87 / 0.89 / 1.18 (segments of ~1000 / one / of 4).
      {"segmented_reduce", "decoupled", "one pass: the decoupled segmented scan's tiles, each segment written by the "
       "tile that owns its end", false, false, false, id::segmented_reduce_decoupled, nullptr, 0, accuracy::fast, true},
      {"segmented_reduce", "tiles", "tiles of 2,048 values whatever the segment lengths, one spine workgroup for segments crossing tiles",
       true, true, false, id::segmented_reduce_tiles},
      {"segmented_reduce", "subgroups", "one subgroup per segment, segments past 8,192 values in chunks of workgroups; "
       "the default for built-in operators over segments of 32 or more values on average",
       false, false, true, id::segmented_reduce_per_subgroup},
      {"segmented_reduce", "scan-gather", "the earlier path: the segmented tile scan of all values, then a gather",
       false, false, false, id::segmented_reduce_scan_gather},
      {"segmented_scan", "decoupled", "one pass: (head, value) pairs scanned per tile, look-back with a fallback "
       "that stops at a tile holding a head", true, true, false, id::segmented_scan_decoupled, nullptr, 0,
       accuracy::fast, true},
      {"segmented_scan", "tiles", "flag-value pairs scanned per tile, one spine workgroup, tiles rescanned", false,
       false, false, id::segmented_scan_tiles},
      {"segmented_scan", "subgroups", "one subgroup per segment in rounds of subgroup scans, segments past 8,192 "
       "values in chunks of workgroups; the default over segments of 32 to 2,048 values on average",
       false, false, true, id::segmented_scan_per_subgroup},
      {"segmented_scan", "bitmap", "the earlier path: head bitmap from the offsets, tile pairs, spine, rescan", false,
       false, false, id::segmented_scan_bitmap},
      {"reduce_by_key", "decoupled", "one pass: head flags, (runs, value) pairs scanned per tile, look-back with "
       "a fallback, heads write keys and tails sums", true, true, false, id::reduce_by_key_decoupled},
      {"reduce_by_key", "tiles", "heads where keys change, the segmented tile scan, run tails scattered", false,
       false, false, id::reduce_by_key_tiles},
      {"run_length_encode", "decoupled", "reduce_by_key's one pass with every value 1", true, true, false,
       id::run_length_encode_decoupled},
      // The GPU default above 2^25 keys; CPU adapters keep the one pass (lavapipe 2^18 u32, runs of 20: 4.1 against
      // 2.9 ms).
      {"run_length_encode", "heads", "unique's pass writes where each run starts, then one invocation per run "
       "reads its first key and the next start (keys past one storage binding: decoupled); the default above "
       "2^25 keys on GPUs", false, false, false, id::run_length_encode_heads, nullptr, rle_heads_default_above},
      {"run_length_encode", "tiles", "reduce_by_key of ones over the input as keys", false, false, false,
       id::run_length_encode_tiles},
      {"select", "decoupled", "select/partition/unique in one pass: tile counts, look-back with a fallback", true,
       true, false, id::select_decoupled, rec<select_args, record_select_decoupled>},
  };
  return entries;
}

namespace {
// The accuracy modes' own paths (algorithm_entry::serves): whatever algorithm was asked, an f32 sum in that mode
// runs them. Reproducible sums are exact (superaccumulators) then rounded once; compensated reduces run the fast
// reduce's shape with double words, compensated scans the seed's (the decoupled scan publishes 32-bit tile
// states; a pair would need four words).
const std::vector<algorithm_entry>& accuracy_paths() {
  static const std::vector<algorithm_entry> entries = {
      {"reduce", "exact", "superaccumulators per workgroup, combined, rounded once", false, false, false,
       id::reduce_exact, rec<reduce_args, record_reduce_exact>, 0, accuracy::reproducible},
      {"reduce", "fast-compensated", "the fast reduce with double-word accumulation", false, false, false,
       id::reduce_fast_compensated, rec<reduce_args, record_reduce_fast>, 0, accuracy::compensated},
      {"scan", "exact", "exact prefix sums, each correctly rounded", false, false, false, id::scan_exact,
       rec<scan_args, record_scan_exact>, 0, accuracy::reproducible},
      {"scan", "seed-compensated", "the seed's scan with double-word accumulation", false, false, false,
       id::scan_seed_compensated, rec<scan_args, record_scan_seed>, 0, accuracy::compensated},
  };
  return entries;
}

[[noreturn]] void unknown(const char* primitive, const std::string& requested, const char* extra) {
  std::string names = extra;
  for (const auto& a : algorithm_registry())
    if (std::strcmp(a.primitive, primitive) == 0) names += (names.empty() ? "" : ", ") + std::string(a.name);
  throw error(errc::invalid_argument, "unknown " + std::string(primitive) + " algorithm '" + requested +
                                          "' (available: " + names + ")");
}
}  // namespace

const algorithm_entry& pick_algorithm(const context& ctx, const char* primitive, const std::string& requested,
                                      std::uint64_t n) {
  // On every call's path: no strings are built unless there is an error to report.
  const bool cpu = ctx.adapter().kind == adapter_kind::cpu;
  const bool subgroups = ctx.features().subgroups;
  const algorithm_entry* fallback = nullptr;
  const algorithm_entry* by_size = nullptr;
  for (const auto& a : algorithm_registry()) {
    if (std::strcmp(a.primitive, primitive) != 0) continue;
    if (!requested.empty()) {
      if (requested == a.name) {
        if (a.needs_subgroups && !subgroups)
          throw error(errc::unsupported, std::string(primitive) + " algorithm '" + a.name +
                                             "' needs subgroups, which this adapter lacks");
        return a;
      }
      continue;
    }
    const bool can = !a.needs_subgroups || subgroups;
    if (!cpu && can && a.gpu_default_above && n > a.gpu_default_above &&
        (!by_size || a.gpu_default_above > by_size->gpu_default_above))
      by_size = &a;
    if (!fallback && (cpu ? a.default_on_cpu : a.default_on_gpu) && can) fallback = &a;
  }
  if (by_size) return *by_size;
  if (!requested.empty()) unknown(primitive, requested, "");
  if (!fallback) {  // no default this adapter can run: the first that needs nothing
    for (const auto& a : algorithm_registry())
      if (std::strcmp(a.primitive, primitive) == 0 && !a.needs_subgroups) return a;
    unknown(primitive, requested, "");
  }
  return *fallback;
}

const algorithm_entry& resolve_algorithm(const context& ctx, const char* primitive, const std::string& requested,
                                         std::uint64_t n, accuracy acc) {
  const algorithm_entry& asked = pick_algorithm(ctx, primitive, requested, n);
  if (acc == accuracy::fast) return asked;
  for (const auto& a : accuracy_paths())
    if (a.serves == acc && std::strcmp(a.primitive, primitive) == 0) return a;
  return asked;
}

void check_algorithm_name(const char* primitive, const std::string& requested) {
  if (requested.empty() || requested == "native") return;
  for (const auto& a : algorithm_registry())
    if (std::strcmp(a.primitive, primitive) == 0 && requested == a.name) return;
  unknown(primitive, requested, "native");
}

extern const kernel_spec copy_spec, widen_spec, fill_spec, fill_take_spec, dist_splitter_bounds_spec;

const std::vector<const kernel_spec*>& kernel_specs() {
  static const std::vector<const kernel_spec*> specs = {
      &reduce_fast_spec,      &reduce_single_spec, &reduce_seed_spec,   &reduce_exact_spec,    &reduce_exact_combine_spec, &scan_decoupled_spec,
      &scan_seed_blocks_spec, &scan_seed_add_spec, &scan_seed_carry_spec,
      &scan_exact_tiles_spec, &scan_exact_prefixes_spec, &scan_exact_scan_spec, &copy_spec, &widen_spec, &fill_spec, &fill_take_spec, &copy_words_spec,
      &arg_reduce_partials_spec, &arg_reduce_final_spec,
      &sort_histogram_spec,   &sort_plan_spec, &sort_finish_spec, &sort_rts_count_spec, &sort_rts_scatter_spec, &sort_onesweep_spec, &sort_merge_split_spec, &sort_merge_spec,
      &sort_seg_tile_starts_spec, &sort_seg_short_spec, &sort_seg_mid_spec, &sort_seg_bin_spec, &sort_merge_level_spec,
      &sort_merge_tile_split_spec, &sort_merge_tile_spec, &sort_merge_block_spec,
      &histogram_atomic_spec, &seg_heads_offsets_spec, &seg_heads_keys_spec, &seg_tile_reduce_spec,
      &seg_spine_spec,        &seg_tile_scan_spec,  &seg_gather_spec, &segr_bounds_spec, &segr_tile_spec, &segr_spine_up_spec, &segr_spine_top_spec, &segr_spine_down_spec, &segr_scan_spec, &segr_subgroup_spec, &segr_chunk_args_spec, &segr_chunks_spec, &segr_longs_spec, &segr_chunk_scan_spec, &seg_decoupled_bounds_spec, &seg_decoupled_spec,
      &select_decoupled_spec, &select_count_spec, &by_key_spec, &rle_heads_spec,
      &count_args_size_spec,  &count_args_fill_spec, &count_args_pad_spec, &dist_splitter_bounds_spec,
  };
  return specs;
}

}  // namespace wgprim::detail
