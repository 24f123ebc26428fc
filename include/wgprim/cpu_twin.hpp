// The CPU twins of the device algorithms: plain sequential loops over the same monoid, used by the tests as the
// reference and by the CLI for the CPU timing. They work on raw 32-bit patterns.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wgprim/arg_reduce.hpp"
#include "wgprim/op.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim::cpu {

std::uint32_t reduce(const std::uint32_t* x, std::size_t n, const monoid& m);
void inclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m);
void exclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m);

/// Exact sum of f32 values (wgprim::superaccumulator), rounded once to the nearest double.
double exact_sum_f32(const float* x, std::size_t n);
/// Exact integer sum (no wrap-around) of i32 / u32 values.
long double exact_sum_int(const std::uint32_t* x, std::size_t n, bool is_signed);
/// The exact sum rounded once to the nearest f32, ties to even: the CPU twin of accuracy::reproducible.
float correctly_rounded_sum_f32(const float* x, std::size_t n);
/// |got - want| in units in the last place of want (as an f32); 0 when both are the same NaN/Inf.
double ulp_error_f32(float got, double want);

/// arg-min / arg-max with NumPy's rules (first index; the first NaN wins); throws on n == 0.
arg_result<std::uint32_t> arg_reduce(const std::uint32_t* x, std::size_t n, dtype t, arg_op o);

/// Reduction of tr(x_i) in index order (the transform with WGSL semantics).
std::uint32_t transform_reduce(const std::uint32_t* x, std::size_t n, const bound_transform& tr, const monoid& m);

/// Sum of |x| in double (for error bounds).
double abs_sum_f32(const float* x, std::size_t n);

/// The sort's twin: std::stable_sort of keys of type t (f32: NaNs last and equal to each other, -0.0 before
/// +0.0; descending: the comparator's arguments swapped, so still stable). values (may be null) follow the keys.
void stable_sort(std::uint32_t* keys, std::size_t n, dtype t, bool descending, std::uint32_t* values = nullptr);

}  // namespace wgprim::cpu
