// sort of a view (include/wgprim/view.hpp): the view's values are computed by one select pass that keeps every
// value (materialize_view, select/view.cpp), into the output's prefix, which is then sorted in place; the radix
// passes do not read views in their loads yet, and the output is where the values must end anyway. A view that
// reads the output's own buffer (sort(ctx, view::transform(x, ...), x)) is computed into a temporary first and
// sorted from there into the output.
#include <string>

#include "primitives/sort/sort.hpp"
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
  check_sort_size(ctx, v.count, 1);  // the sort's own size limit, before anything is written
  range_ref keys = out;
  keys.count = v.count;
  keys.view.count = v.count;
  if (v.count == 0) return sort_run(ctx, nullptr, keys, keys, nullptr, nullptr, v.value_type(), o, opt);
  run_stats spent;
  const bool measured = opt.stats || opt.timestamps;
  if (view_reads(v, out.view)) {
    buffer values = ctx.create_buffer(v.count * 4);
    range_ref tmp = keys;
    tmp.view = device_span<std::uint32_t>(values, 0, v.count).view();
    materialize_view(ctx, v, tmp, "sort", measured ? &spent : nullptr);
    sort_run(ctx, nullptr, tmp, keys, nullptr, nullptr, v.value_type(), o, opt);
  } else {
    materialize_view(ctx, v, keys, "sort", measured ? &spent : nullptr);
    sort_run(ctx, nullptr, keys, keys, nullptr, nullptr, v.value_type(), o, opt);
  }
  add_stats(opt, spent);
}

}  // namespace wgprim::detail
