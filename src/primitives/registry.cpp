// The algorithm registry and the list of kernel contracts: adding an algorithm or a kernel is one line here.
#include "primitives/arg_reduce/arg_reduce.hpp"
#include "primitives/histogram/histogram.hpp"
#include "primitives/primitive.hpp"
#include "primitives/segmented/segmented.hpp"
#include "primitives/reduce/reduce.hpp"
#include "primitives/scan/scan.hpp"
#include "primitives/sort/sort.hpp"
#include "primitives/select/select.hpp"
#include "pipeline/counted.hpp"

namespace wgprim::detail {

const std::vector<algorithm_entry>& algorithm_registry() {
  // primitive, name, about, default on GPUs, default on CPU adapters, needs subgroups
  static const std::vector<algorithm_entry> entries = {
      {"reduce", "single", "one dispatch: the fast reduce's walk, the last workgroup to arrive folds the partials",
       true, true, false},
      {"reduce", "fast", "vec4 loads, a grid sized to the GPU, subgroup trees; two dispatches (one for small n)",
       false, false, false},
      {"reduce", "seed", "the seed's two passes: 256 x 256 grid-stride loop + workgroup tree, then the partials",
       false, false, false},
      {"reduce", "render", "the regl seed: fragment shader folds 2x2 texels into half-size targets", false, false,
       false},
      {"scan", "decoupled", "single pass, tiles in order from an atomic counter, look-back with a fallback", true,
       true, false},
      {"scan", "seed", "the seed's scan-then-propagate: block scans, scan of block sums (recursive), add back",
       false, false, false},
      {"arg_reduce", "fast", "(value, index) pairs through the fast reduce's shape, then one workgroup", true, true,
       false},
      {"sort", "onesweep", "LSD radix, one pass per digit: ballot ranking, per-digit look-back with a fallback", true,
       true, true},
      {"sort", "reduce-then-scan", "LSD radix, per digit: tile counts, scan (record_scan), scatter of sorted tiles",
       false, false, false},
      {"histogram", "atomic", "atomic counts: workgroup-private bins where they fit, global atomics beyond", true,
       true, false},
      {"histogram", "atomic-plain", "the earlier atomic kernel: edges read from their binding, one value per step",
       false, false, false},
      {"segmented_reduce", "tiles", "tiles of 2,048 values whatever the segment lengths, one spine workgroup for segments crossing tiles",
       true, true, false},
      {"segmented_reduce", "scan-gather", "the earlier path: the segmented tile scan of all values, then a gather",
       false, false, false},
      {"segmented_scan", "tiles", "flag-value pairs scanned per tile, one spine workgroup, tiles rescanned", true,
       true, false},
      {"segmented_scan", "bitmap", "the earlier path: head bitmap from the offsets, tile pairs, spine, rescan", false,
       false, false},
      {"reduce_by_key", "decoupled", "one pass: head flags, (runs, value) pairs scanned per tile, look-back with "
       "a fallback, heads write keys and tails sums", true, true, false},
      {"reduce_by_key", "tiles", "heads where keys change, the segmented tile scan, run tails scattered", false,
       false, false},
      {"run_length_encode", "decoupled", "reduce_by_key's one pass with every value 1", true, true, false},
      {"run_length_encode", "tiles", "reduce_by_key of ones over the input as keys", false, false, false},
      {"select", "decoupled", "select/partition/unique in one pass: tile counts, look-back with a fallback", true,
       true, false},
  };
  return entries;
}

extern const kernel_spec copy_spec, widen_spec, fill_spec;

const std::vector<const kernel_spec*>& kernel_specs() {
  static const std::vector<const kernel_spec*> specs = {
      &reduce_fast_spec,      &reduce_single_spec, &reduce_seed_spec,   &reduce_exact_spec,    &reduce_exact_combine_spec, &scan_decoupled_spec,
      &scan_seed_blocks_spec, &scan_seed_add_spec, &scan_seed_carry_spec,
      &scan_exact_tiles_spec, &scan_exact_prefixes_spec, &scan_exact_scan_spec, &copy_spec, &widen_spec, &fill_spec,
      &arg_reduce_partials_spec, &arg_reduce_final_spec,
      &sort_histogram_spec,   &sort_plan_spec, &sort_finish_spec, &sort_rts_count_spec, &sort_rts_scatter_spec, &sort_onesweep_spec, &sort_merge_split_spec, &sort_merge_spec,
      &sort_seg_tiny_spec, &sort_seg_mid_spec, &sort_seg_bin_spec, &sort_merge_level_spec,
      &histogram_atomic_spec, &seg_heads_offsets_spec, &seg_heads_keys_spec, &seg_tile_reduce_spec,
      &seg_spine_spec,        &seg_tile_scan_spec,  &seg_gather_spec, &segr_bounds_spec, &segr_tile_spec, &segr_spine_up_spec, &segr_spine_top_spec, &segr_spine_down_spec, &segr_scan_spec,
      &select_decoupled_spec, &select_count_spec, &by_key_spec,
      &count_args_size_spec,  &count_args_pad_spec,
  };
  return specs;
}

}  // namespace wgprim::detail
