// sort of a view (include/wgprim/view.hpp): the view's values are computed into the output by one select pass that
// keeps every value (materialize_view, select/view.cpp), then the output's prefix is sorted in place. The radix
// passes do not read views in their loads yet; the output is where the values must end anyway, so no temporary.
#include <string>

#include "primitives/view.hpp"
#include "wgprim/error.hpp"
#include "wgprim/sort.hpp"
#include "wgprim/view.hpp"

namespace wgprim::detail {

void sort_view_run(context& ctx, const view_desc& v, const range_ref& out, const sort_order& o,
                   const run_options& opt) {
  check_view_desc(ctx, v, "sort");
  if (!out.on_device) throw error(errc::invalid_argument, "sort: a view's output is a device range");
  if (out.count < v.count)
    throw error(errc::invalid_argument, "sort: the output holds " + std::to_string(out.count) +
                                            " elements, fewer than the view's " + std::to_string(v.count));
  range_ref keys = out;
  keys.count = v.count;
  keys.view.count = v.count;
  const double view_ms = v.count ? materialize_view(ctx, v, out, "sort") : 0.0;
  sort_run(ctx, nullptr, keys, keys, nullptr, nullptr, v.value_type(), o, opt);
  if (opt.stats) opt.stats->gpu_ms += view_ms;
}

}  // namespace wgprim::detail
