// The algorithm registry and the list of kernel contracts: adding an algorithm or a kernel is one line here.
#include "primitives/primitive.hpp"
#include "primitives/reduce/reduce.hpp"
#include "primitives/scan/scan.hpp"
#include "primitives/select/select.hpp"

namespace wgprim::detail {

const std::vector<algorithm_entry>& algorithm_registry() {
  // primitive, name, about, default on GPUs, default on CPU adapters, needs subgroups
  static const std::vector<algorithm_entry> entries = {
      {"reduce", "fast", "vec4 loads, a grid sized to the GPU, subgroup trees; one dispatch for small n", true, true,
       false},
      {"reduce", "seed", "the seed's two passes: 256 x 256 grid-stride loop + workgroup tree, then the partials",
       false, false, false},
      {"reduce", "render", "the regl seed: fragment shader folds 2x2 texels into half-size targets", false, false,
       false},
      {"scan", "decoupled", "single pass, tiles in order from an atomic counter, look-back with a fallback", true,
       true, false},
      {"scan", "seed", "the seed's scan-then-propagate: block scans, scan of block sums (recursive), add back",
       false, false, false},
      {"select", "decoupled", "select/partition/unique in one pass: tile counts, look-back with a fallback", true,
       true, false},
  };
  return entries;
}

extern const kernel_spec copy_spec;

const std::vector<const kernel_spec*>& kernel_specs() {
  static const std::vector<const kernel_spec*> specs = {
      &reduce_fast_spec,      &reduce_seed_spec,   &reduce_fixed_spec,    &scan_decoupled_spec,
      &scan_seed_blocks_spec, &scan_seed_add_spec, &scan_seed_carry_spec, &copy_spec,
      &select_decoupled_spec, &select_count_spec,
  };
  return specs;
}

}  // namespace wgprim::detail
