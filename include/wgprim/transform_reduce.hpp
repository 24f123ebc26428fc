/// @file
/// Transform-reduce and count-if, like std::transform_reduce / thrust::transform_reduce: a unary transform, an
/// expression in `a`, is applied to every element inside the reduction's load (no extra pass, nothing written),
/// then the values are combined with the operator.
///
/// @code
///   float ss = wgprim::transform_reduce(ctx, v, wgprim::transform::expr("a * a"), wgprim::op::sum());  // sum of squares
///   auto  n  = wgprim::transform_reduce<std::uint32_t>(ctx, v, wgprim::transform::expr("select(0u, 1u, a > 10)"));
///   auto  m  = wgprim::transform_reduce(ctx, ints, wgprim::transform::expr("abs(a)"), 0, wgprim::op::max());  // init
/// @endcode
///
/// The transform may change the type: its result type is inferred by the expression front end (see
/// transform::result_type) and must be the type asked for (the template argument, or the init's type; by default
/// the input's), else errc::invalid_argument says which type the expression yields.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/op.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

/// A unary transform: one expression in `a` (the custom-operator language, `a` only), e.g. "a * a",
/// "abs(a - 3)", "select(0u, 1u, a > 10)", "f32(a) * 0.5". Values are typed as in WGSL: literals with a suffix
/// (0u, 1i, 2.5f) and the conversions f32(), i32(), u32() give other types; an unsuffixed integer literal takes
/// the type of the operand it meets (alone: the input's type); 2.5, 1e3, inf and nan are f32.
class transform {
 public:
  /// A transform from a WGSL expression in `a`.
  static transform expr(std::string expression) { return transform(std::move(expression)); }
  /// The identity transform "a".
  transform() : expression_("a") {}
  /// The expression as written.
  const std::string& expression() const { return expression_; }
  /// The type the expression yields for input elements of type `input`; throws wgprim::error(invalid_argument)
  /// with the column for an expression that is not valid.
  dtype result_type(dtype input) const;

 private:
  explicit transform(std::string e) : expression_(std::move(e)) {}
  std::string expression_;
};

/// A transform bound to an input type: the WGSL the reduction's load applies, the result type, and the CPU twin
/// (the same WGSL semantics on raw bits).
class bound_transform {
 public:
  /// Checks and binds t to input elements of type `input`; throws errc::invalid_argument on a bad expression.
  bound_transform(const transform& t, dtype input);
  /// The input element type.
  dtype input_type() const { return input_; }
  /// The transform's result type.
  dtype result_type() const;
  /// A WGSL expression in `a`.
  const std::string& wgsl() const;
  /// Applies the transform to one element's bits (the CPU twin).
  std::uint32_t apply(std::uint32_t a) const;
  /// apply over n elements at once (the same values, at loop speed).
  void apply_many(const std::uint32_t* a, std::size_t n, std::uint32_t* out) const;
  /// The expression as written.
  const std::string& expression() const { return expression_; }

 private:
  dtype input_;
  std::string expression_;
  std::shared_ptr<const detail::expr_program> program_;
};

namespace detail {
/// The type-erased entry points. `init` may be null (then the monoid's identity).
std::uint32_t transform_reduce_bits(context& ctx, const range_ref& in, const bound_transform& tr, const monoid& m,
                                    const std::uint32_t* init, const run_options& opt);
void transform_reduce_record(context& ctx, WGPUCommandEncoder encoder, const range_ref& in,
                             const range_ref& result, const bound_transform& tr, const monoid& m,
                             const run_options& opt);
template <class Out, class R>
using transform_out_t = std::conditional_t<std::is_void_v<Out>, range_value_t<R>, Out>;
/// The transform's result type must be Out's.
void check_transform_type(const bound_transform& tr, dtype out);
}  // namespace detail

/// Reduces transform(x) over a range (device_vector, device_span, host container / host_span). The result type is
/// Out, by default the input's element type.
template <class Out = void, class R, class = std::enable_if_t<detail::is_range_v<R>>,
          class T = detail::transform_out_t<Out, R>>
T transform_reduce(context& ctx, const R& in, const transform& tr, const op& o = op::sum(),
                   const run_options& options = {}) {
  const bound_transform b(tr, dtype_of<detail::range_value_t<R>>::value);
  detail::check_transform_type(b, dtype_of<T>::value);
  const monoid m(o, dtype_of<T>::value);
  return from_bits<T>(detail::transform_reduce_bits(ctx, detail::in_ref(in), b, m, nullptr, options));
}

/// With an initial value, as std::transform_reduce(first, last, init, reduce, transform): the result has the
/// init's type.
template <class R, class U, class = std::enable_if_t<detail::is_range_v<R> && element_traits<U>::supported>>
U transform_reduce(context& ctx, const R& in, const transform& tr, U init, const op& o = op::sum(),
                   const run_options& options = {}) {
  const bound_transform b(tr, dtype_of<detail::range_value_t<R>>::value);
  detail::check_transform_type(b, dtype_of<U>::value);
  const monoid m(o, dtype_of<U>::value);
  const std::uint32_t init_bits = to_bits(init);
  return from_bits<U>(detail::transform_reduce_bits(ctx, detail::in_ref(in), b, m, &init_bits, options));
}

/// Runtime-typed (for tools): n elements of type `input` in a buffer; the result type is the transform's.
inline std::uint32_t transform_reduce_bits(context& ctx, const buffer& in, std::size_t n, dtype input,
                                           const transform& tr, const op& o, const run_options& options = {}) {
  const bound_transform b(tr, input);
  const monoid m(o, b.result_type());
  detail::range_ref r;
  r.on_device = true;
  r.view = device_span<const std::uint32_t>(in, 0, n).view();
  r.count = n;
  return detail::transform_reduce_bits(ctx, r, b, m, nullptr, options);
}

/// Records into the caller's command encoder: result[0] holds the reduction when the caller submits. The
/// result span's type is the transform's result type. accuracy::fast only.
template <class In, class Out,
          class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void transform_reduce(context& ctx, WGPUCommandEncoder encoder, const In& in, const transform& tr, Out&& result,
                      const op& o = op::sum(), const run_options& options = {}) {
  using T = detail::range_value_t<Out>;
  const bound_transform b(tr, dtype_of<detail::range_value_t<In>>::value);
  detail::check_transform_type(b, dtype_of<T>::value);
  const monoid m(o, dtype_of<T>::value);
  detail::transform_reduce_record(ctx, encoder, detail::in_ref(in), detail::out_ref(std::forward<Out>(result)), b, m,
                                  options);
}

}  // namespace wgprim
