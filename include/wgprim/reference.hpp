/// @file
/// The reference implementations ("CPU twins") of the device algorithms: plain sequential loops over the same
/// monoid, used by the tests as the reference and by the CLI for the CPU timing. They work on raw 32-bit patterns.
/// (Named `wgprim::cpu` before; "cpu" now means only the native backend or a CPU adapter.)
/// @namespace wgprim::reference
/// The reference implementations: sequential loops for every device algorithm, on raw 32-bit patterns.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wgprim/kinds.hpp"
#include "wgprim/op.hpp"
#include "wgprim/transform_reduce.hpp"
#include "wgprim/predicate.hpp"

namespace wgprim::reference {

/// The reduction of x[0..n) in index order (the twin of wgprim::reduce, 32-bit types).
std::uint32_t reduce(const std::uint32_t* x, std::size_t n, const monoid& m);
/// out[i] = x[0] op ... op x[i] (the twin of wgprim::inclusive_scan).
void inclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m);
/// out[i] = identity op x[0] op ... op x[i-1] (the twin of wgprim::exclusive_scan).
void exclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m);

/// Exact sum of f32 values (wgprim::superaccumulator), rounded once to the nearest double.
double exact_sum_f32(const float* x, std::size_t n);
/// Exact integer sum (no wrap-around) of i32 / u32 values.
long double exact_sum_int(const std::uint32_t* x, std::size_t n, bool is_signed);
/// The exact sum rounded once to the nearest f32, ties to even: the CPU twin of accuracy::reproducible.
float correctly_rounded_sum_f32(const float* x, std::size_t n);
/// The exact prefix sums of f32 values, each rounded once to the nearest f32 (ties to even; an exact zero is +0;
/// NaN, or +inf with -inf, gives NaN from there on): the twin of accuracy::reproducible scans on every backend.
/// init (may be null) is in front of x[0].
void exact_scan_f32(const float* x, std::size_t n, float* out, bool exclusive, const float* init = nullptr);
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
/// The same for 64-bit keys: kind 0 uint64, 1 int64, 2 double (NaNs last, -0.0 before +0.0).
void stable_sort64(std::uint64_t* keys, std::size_t n, int kind, bool descending, std::uint32_t* values = nullptr);
/// The twins of a sort of bits [begin_bit, end_bit) of the ordered key only (wgprim::sort_order; end_bit 0: the
/// key's width): std::stable_sort comparing those bits of the ordered key (unsigned as is, signed with the sign
/// flipped, floats: negatives all bits flipped, others the sign set, NaNs all ones), reversed when descending.
/// The whole width falls back to stable_sort / stable_sort64 (the order written on the values).
void stable_sort_bits(std::uint32_t* keys, std::size_t n, dtype t, bool descending, unsigned begin_bit,
                      unsigned end_bit, std::uint32_t* values = nullptr);
/// The twin of segmented_sort: stable_sort_bits on every segment [offsets[s], offsets[s + 1]) of keys (and values),
/// n_segments + 1 offsets (not checked).
void segmented_stable_sort(std::uint32_t* keys, const std::uint32_t* offsets, std::size_t n_segments, dtype t,
                           bool descending, unsigned begin_bit = 0, unsigned end_bit = 0,
                           std::uint32_t* values = nullptr);
/// The twin of the comparator sort: std::stable_sort of n keys of type t by the comparator expression `less` in
/// `a` and `b` (evaluated by the expression front end's CPU program), values following their keys.
void stable_sort_less(std::uint32_t* keys, std::size_t n, dtype t, const std::string& less,
                      std::uint32_t* values = nullptr);
/// stable_sort_bits for 64-bit keys (kind as stable_sort64).
void stable_sort64_bits(std::uint64_t* keys, std::size_t n, int kind, bool descending, unsigned begin_bit,
                        unsigned end_bit, std::uint32_t* values = nullptr);

}  // namespace wgprim::reference

// ---- histogram (src/core/reference_histogram.cpp) ----
namespace wgprim::reference {
/// NumPy's even bin edges for np.histogram(x, bins, range=(lo, hi)): np.linspace(lo, hi, bins + 1) in double
/// (i * step + lo, the last edge = hi), after NumPy's widening of an empty range (lo == hi).
std::vector<double> histogram_edges(std::size_t bins, double lo, double hi);
/// np.histogram over raw values of type t with the given edges (double; rounded to float first for f32 input,
/// as NumPy's edges take the input's float type): counts[i] for edge[i] <= x < edge[i+1], the last bin closed.
void histogram(const std::uint32_t* x, std::size_t n, dtype t, const std::vector<double>& edges,
               std::uint32_t* counts);
}  // namespace wgprim::reference

// ---- segmented reduce/scan, reduce-by-key, run-length encoding (src/core/reference_segmented.cpp) ----
namespace wgprim::reference {
/// out[s] = the reduction of x[offsets[s] .. offsets[s+1]) (identity when empty), s < n_segments.
void segmented_reduce(const std::uint32_t* x, const std::uint32_t* offsets, std::size_t n_segments,
                      std::uint32_t* out, const monoid& m);
/// The scan restarts at every segment start; elements before offsets[0] and from offsets[n_segments] on form
/// groups of their own.
void segmented_scan(const std::uint32_t* x, std::size_t n, const std::uint32_t* offsets, std::size_t n_segments,
                    std::uint32_t* out, const monoid& m, bool exclusive);
/// Whether two keys of type t are equal (floats: NaN equals nothing, -0 equals +0).
bool keys_equal(dtype t, std::uint32_t a, std::uint32_t b);
/// Runs of equal consecutive keys: their key and the reduction of their values; returns the number of runs.
std::size_t reduce_by_key(const std::uint32_t* keys, dtype key_type, const std::uint32_t* values, std::size_t n,
                          std::uint32_t* unique_keys, std::uint32_t* sums, const monoid& m);
/// Run-length encoding: the first value of each run of equal elements and its length; returns the number of runs.
std::size_t run_length_encode(const std::uint32_t* x, dtype t, std::size_t n, std::uint32_t* values,
                              std::uint32_t* counts);
/// std::copy_if / std::stable_partition / std::unique on raw bits (src/core/reference_select.cpp); each returns the number
/// kept. partition writes the kept then the rejected elements, both in input order. unique compares f32 with ==.
std::size_t select_if(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out);
/// The elements with a nonzero flag, in order; returns how many.
std::size_t select_flagged(const std::uint32_t* x, const std::uint32_t* flags, std::size_t n, std::uint32_t* out);
/// The kept elements, then the rejected ones, both in input order; returns how many were kept.
std::size_t partition(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out);
/// partition with the rejected part in reverse input order (rejected_order::reversed, cub::DevicePartition::If).
std::size_t partition_reversed(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out);
/// x without consecutive duplicates (f32: compared with ==); returns how many stay.
std::size_t unique(const std::uint32_t* x, std::size_t n, dtype t, std::uint32_t* out);

/// Every element type (src/core/reference_types.cpp): x holds n elements of type t (packed for f16/u8/i8); they are
/// widened to the monoid's type (accumulation_type(t)) and combined in it, in index order. Results and outputs are
/// in the monoid's type (to_raw's layout; out holds n elements of dtype_bytes(m.type())).
std::uint64_t widen_raw(dtype t, std::uint64_t raw);
/// The reduction of n elements of any type t, the result in to_raw's layout.
std::uint64_t reduce_raw(const void* x, dtype t, std::size_t n, const monoid& m);
/// The inclusive or exclusive scan of n elements of any type t.
void scan_raw(const void* x, dtype t, std::size_t n, void* out, const monoid& m, bool exclusive);
/// Sum of f64 values compensated (Neumaier), and the sum of their magnitudes, for error bounds.
double compensated_sum_f64(const double* x, std::size_t n, double* abs_sum = nullptr);

}  // namespace wgprim::reference
