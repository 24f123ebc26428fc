// The CPU twins of the device algorithms: plain sequential loops over the same monoid, used by the tests as the
// reference and by the CLI for the CPU timing. They work on raw 32-bit patterns.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wgprim/op.hpp"
#include "wgprim/predicate.hpp"

namespace wgprim::cpu {

std::uint32_t reduce(const std::uint32_t* x, std::size_t n, const monoid& m);
void inclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m);
void exclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m);

/// Exact sum of f32 values, rounded once to the nearest double (compensated long-double accumulation is not
/// enough for every input, so this uses a wide fixed-point accumulator over the whole f32 exponent range).
double exact_sum_f32(const float* x, std::size_t n);
/// Exact integer sum (no wrap-around) of i32 / u32 values.
long double exact_sum_int(const std::uint32_t* x, std::size_t n, bool is_signed);
/// The CPU twin of accuracy::reproducible: the same fixed summation shape and the same double-word arithmetic,
/// so its bits must equal the GPU's.
float reduce_reproducible_f32(const float* x, std::size_t n);
/// The exact sum rounded to the nearest f32 (via exact_sum_f32's double, which is exact enough for any n that
/// fits in memory unless the sum is a near tie).
float correctly_rounded_sum_f32(const float* x, std::size_t n);
/// |got - want| in units in the last place of want (as an f32); 0 when both are the same NaN/Inf.
double ulp_error_f32(float got, double want);

/// Sum of |x| in double (for error bounds).
double abs_sum_f32(const float* x, std::size_t n);

/// std::copy_if / std::stable_partition / std::unique on raw bits (cpu_twin_select.cpp); each returns the number
/// kept. partition writes the kept then the rejected elements, both in input order. unique compares f32 with ==.
std::size_t select_if(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out);
std::size_t select_flagged(const std::uint32_t* x, const std::uint32_t* flags, std::size_t n, std::uint32_t* out);
std::size_t partition(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out);
std::size_t unique(const std::uint32_t* x, std::size_t n, dtype t, std::uint32_t* out);

}  // namespace wgprim::cpu
