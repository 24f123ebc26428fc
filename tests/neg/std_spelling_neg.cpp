// Compile-time refusals of the standard's spelling (issue 30 item 6): each WGPRIM_NEG_CASE must fail to compile
// with wgprim's static_assert message (tests/CMakeLists.txt: StdSpellingNegative_* match the message).
#include <cstdint>
#include <functional>
#include <list>
#include <vector>

#include "wgprim/wgprim.hpp"

void neg(wgprim::context& ctx) {
  std::vector<std::int16_t> shorts(4);
  std::vector<float> f(4);
  std::vector<std::uint32_t> offsets = {0, 4};
#if WGPRIM_NEG_CASE == 1  // element type not supported: reduce
  wgprim::reduce(ctx, shorts);
#elif WGPRIM_NEG_CASE == 2  // scan
  std::vector<std::int16_t> out(4);
  wgprim::inclusive_scan(ctx, shorts, out);
#elif WGPRIM_NEG_CASE == 3  // sort
  wgprim::sort(ctx, shorts);
#elif WGPRIM_NEG_CASE == 4  // iterator pair of an unsupported type
  wgprim::reduce(ctx, shorts.begin(), shorts.end());
#elif WGPRIM_NEG_CASE == 5  // non-contiguous iterators
  std::list<float> l(4);
  wgprim::reduce(ctx, l.begin(), l.end());
#elif WGPRIM_NEG_CASE == 6  // no built-in product
  wgprim::reduce(ctx, f, std::multiplies<>{});
#elif WGPRIM_NEG_CASE == 7  // a C++ lambda
  wgprim::reduce(ctx, f, [](float a, float b) { return a + b; });
#elif WGPRIM_NEG_CASE == 8  // a comparator a radix sort cannot take
  wgprim::sort(ctx, f, std::less_equal<>{});
#elif WGPRIM_NEG_CASE == 9  // segmented
  std::vector<std::int16_t> out(1);
  wgprim::segmented_reduce(ctx, shorts, offsets, out);
#elif WGPRIM_NEG_CASE == 10  // transform_reduce
  wgprim::transform_reduce(ctx, shorts, wgprim::transform::expr("a"));
#elif WGPRIM_NEG_CASE == 11  // device_vector
  wgprim::device_vector<std::int16_t> d(ctx, 4);
#elif WGPRIM_NEG_CASE == 12  // reduce_by_key
  std::vector<std::int16_t> k(4), uk(4), s(4);
  wgprim::reduce_by_key(ctx, k, shorts, uk, s);
#elif WGPRIM_NEG_CASE == 13  // select
  std::vector<std::int16_t> out(4);
  wgprim::select_if(ctx, shorts, out, wgprim::predicate::expr("a > 0"));
#elif WGPRIM_NEG_CASE == 14  // histogram
  std::vector<std::uint32_t> counts(4);
  wgprim::histogram_even(ctx, shorts, counts, 4, 0.0, 4.0);
#elif WGPRIM_NEG_CASE == 15  // arg_reduce
  wgprim::argmin(ctx, shorts);
#endif
}
