// Native reduce: every accuracy mode. fast: vectorised leaves (16 accumulators; the f32 sum as a cascade) merged
// in a tree over oneTBB threads; compensated: the double-word arithmetic of the GPU path (16 pairs per leaf);
// reproducible: the exact sum rounded once (exact.cpp), the same bits as the GPU. Custom operators: the twin's
// evaluator. transform_reduce: the transform through its evaluator (bound_transform::apply) in each leaf, then the
// operator's typed loop.
#include <algorithm>
#include <chrono>

#include "native/backend.hpp"
#include "native/loops.hpp"
#include "core/double_word.hpp"
#include "wgprim/error.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

// Double-word sum of one leaf: 16 independent pairs (vectorised: 4 SSE vectors of leading parts, 4 of trailing
// ones, to hide the latency of each pair's chain of 6 dependent additions), folded with the pair combine.
dw compensated_leaf(const float* x, std::size_t n) {
  float hi[16] = {}, lo[16] = {};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) {
      dw r = dw_add_one({hi[j], lo[j]}, x[i + j]);
      hi[j] = r.hi;
      lo[j] = r.lo;
    }
  dw acc[16];
  for (int j = 0; j < 16; ++j) acc[j] = {hi[j], lo[j]};
  for (; i < n; ++i) acc[0] = dw_add_one(acc[0], x[i]);
  for (int s = 8; s; s >>= 1)
    for (int j = 0; j < s; ++j) acc[j] = dw_add(acc[j], acc[j + s]);
  return acc[0];
}

template <class Op>
std::uint32_t reduce_typed(const std::uint32_t* bits, std::size_t n, const Op& op) {
  using T = typename Op::T;
  const T* x = reinterpret_cast<const T*>(bits);
  T r = over_leaves<T>(
      n, [&](std::size_t first, std::size_t count) { return lanes16(x + first, count, op); },
      [&](T a, T b) { return op(a, b); });
  return to_bits_of(r);
}

// Custom operators: sequential in each leaf (no regrouping beyond the leaves; reduce's operator commutes).
std::uint32_t reduce_generic(const std::uint32_t* x, std::size_t n, const monoid& m) {
  return over_leaves<std::uint32_t>(
      n,
      [&](std::size_t first, std::size_t count) {
        std::uint32_t acc = m.identity_bits();
        for (std::size_t i = first; i < first + count; ++i) acc = m.combine(acc, x[i]);
        return acc;
      },
      [&](std::uint32_t a, std::uint32_t b) { return m.combine(a, b); });
}

// transform_reduce: each leaf transforms a block of 1,024 elements into a buffer on the stack (the expression
// evaluator, a column at a time: bound_transform::apply_many), then reduces the block with the operator's loop.
template <class Op>
std::uint32_t transform_reduce_typed(const std::uint32_t* x, std::size_t n, const bound_transform& tr, const Op& op) {
  using T = typename Op::T;
  T r = over_leaves<T>(
      n,
      [&](std::size_t first, std::size_t count) {
        constexpr std::size_t block = 1024;
        alignas(64) std::uint32_t buf[block];
        T acc = op.id();
        for (std::size_t b = first; b < first + count; b += block) {
          const std::size_t c = std::min(block, first + count - b);
          tr.apply_many(x + b, c, buf);
          acc = op(acc, lanes16(reinterpret_cast<const T*>(buf), c, op));
        }
        return acc;
      },
      [&](T a, T b) { return op(a, b); });
  return to_bits_of(r);
}

}  // namespace

std::uint32_t reduce(context& ctx, const range_ref& in, const monoid& m, const std::uint32_t* init,
                     const run_options& opt, const bound_transform* tr) {
  const bool f32_sum = m.is_sum() && m.type() == dtype::f32;
  if (tr) {
    check_transform_type(*tr, m.type());
    if (f32_sum && opt.accuracy != accuracy::fast)
      throw error(errc::unsupported, "transform_reduce supports accuracy::fast only");
  }
  if (opt.check_operator) m.check(/*need_commutative=*/true);
  const std::uint32_t* x = host_in(ctx, in, "reduce input");
  const std::size_t n = in.count;
  const auto t0 = std::chrono::steady_clock::now();
  const float* xf = reinterpret_cast<const float*>(x);
  std::string name = "native";
  std::uint32_t bits;
  if (f32_sum && opt.accuracy == accuracy::reproducible) {
    // The init joins the exact sum before the one rounding, as on the GPU.
    superaccumulator s = exact_sum_f32(xf, n);
    if (init) s.add(bits_to<float>(*init));
    fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native-exact");
    return to_bits_of(s.round_to_float());
  }
  if (n == 0) {
    bits = m.identity_bits();
  } else if (tr) {
    name = "native-transform";
    bits = with_op(m, [&](auto op) { return transform_reduce_typed(x, n, *tr, op); });
    if (is_f32_minmax(m)) {
      // The NaN rule on the transformed values (the typed loop's min/max does not propagate NaN).
      const bool nan = over_leaves<bool>(
          n,
          [&](std::size_t f, std::size_t c) {
            bool any = false;
            std::uint32_t buf[1024];
            for (std::size_t b = f; b < f + c; b += 1024) {
              const std::size_t k = std::min<std::size_t>(1024, f + c - b);
              tr->apply_many(x + b, k, buf);
              any |= has_nan_f32(buf, k);
            }
            return any;
          },
          [](bool a, bool b) { return a || b; });
      if (nan) bits = canonical_nan;
    }
  } else if (f32_sum && opt.accuracy == accuracy::compensated) {
    name = "native-compensated";
    // The leading part of the final pair is the correctly rounded hi + lo (the combine ends with FastTwoSum).
    bits = to_bits_of(over_leaves<dw>(
                          n, [&](std::size_t f, std::size_t c) { return compensated_leaf(xf + f, c); },
                          [](dw a, dw b) { return dw_add(a, b); })
                          .hi);
  } else if (f32_sum) {
    bits = to_bits_of(over_leaves<float>(
        n, [&](std::size_t f, std::size_t c) { return sum_f32(xf + f, c); }, [](float a, float b) { return a + b; }));
  } else if (!m.is_builtin()) {
    bits = reduce_generic(x, n, m);
  } else {
    bits = with_op(m, [&](auto op) { return reduce_typed(x, n, op); });
    // f32 min / max: NaN anywhere gives the canonical NaN, as monoid::combine (checked apart: the vector loop
    // above uses the hardware min/max, which does not propagate NaN).
    if (is_f32_minmax(m) &&
        over_leaves<bool>(
            n, [&](std::size_t f, std::size_t c) { return has_nan_f32(x + f, c); }, [](bool a, bool b) { return a || b; }))
      bits = canonical_nan;
  }
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), name);
  return init ? m.combine(*init, bits) : bits;
}

}  // namespace wgprim::detail::cpu_backend
