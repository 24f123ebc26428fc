// Native arg-min / arg-max with NumPy's rules: the first NaN wins, else the first index of the extreme value.
// Each leaf finds its extreme with a vectorised min/max loop (16 lanes), then the first index holding it (f32:
// == treats -0 and +0 as one value, as the strict comparison of NumPy's loop does), or the first NaN when the
// leaf has one; leaves merge left to right keeping the earlier index on ties.
#include <chrono>

#include "native/backend.hpp"
#include "native/loops.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

struct found {
  std::uint32_t bits;
  std::uint64_t index;
  bool nan;
};

template <class T>
found leaf(const std::uint32_t* bits, std::size_t first, std::size_t count, bool max) {
  const T* x = reinterpret_cast<const T*>(bits) + first;
  if constexpr (std::is_same_v<T, float>) {
    if (has_nan_f32(bits + first, count))
      for (std::size_t i = 0; i < count; ++i)
        if (x[i] != x[i]) return {bits[first + i], first + i, true};
  }
  T best = x[0];
  if (max) best = lanes16(x, count, op_max<T>{x[0]});
  else best = lanes16(x, count, op_min<T>{x[0]});
  std::size_t i = 0;
  while (!(x[i] == best)) ++i;  // the extreme is one of the elements: found before count
  return {bits[first + i], first + i, false};
}

template <class T>
found run(const std::uint32_t* x, std::size_t n, bool max) {
  return over_leaves<found>(
      n, [&](std::size_t f, std::size_t c) { return leaf<T>(x, f, c, max); },
      [&](const found& a, const found& b) {
        if (a.nan) return a;
        if (b.nan) return b;
        const T va = bits_to<T>(a.bits), vb = bits_to<T>(b.bits);
        return (max ? va < vb : vb < va) ? b : a;  // b strictly better, else the earlier
      });
}

}  // namespace

arg_result<std::uint32_t> arg_reduce(context& ctx, const range_ref& in, dtype t, arg_op o, const run_options& opt) {
  const std::uint32_t* x = host_in(ctx, in, o == arg_op::max ? "argmax" : "argmin");
  const auto t0 = std::chrono::steady_clock::now();
  const bool max = o == arg_op::max;
  found r = t == dtype::f32   ? run<float>(x, in.count, max)
            : t == dtype::i32 ? run<std::int32_t>(x, in.count, max)
                              : run<std::uint32_t>(x, in.count, max);
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native");
  return {r.bits, r.index};
}

}  // namespace wgprim::detail::cpu_backend
