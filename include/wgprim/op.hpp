/// @file
/// Operators are monoids: an element type, an identity and an associative combine, written once as a WGSL
/// expression in `a` and `b` and mirrored on the host (the CPU twin) so that every GPU result can be checked.
///
/// reduce() requires an associative and commutative operator (as std::reduce does: it may regroup and reorder);
/// the scans require associativity only and keep the order of the input (as std::inclusive_scan does).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include "wgprim/types.hpp"

namespace wgprim {

namespace detail {
class expr_program;
/// The standard function objects of <functional> that op and sort_order recognise: `name` is the built-in a
/// std::F<T> (or std::F<>) maps to, null where wgprim has no such built-in (a clear static_assert then).
template <class F> struct std_functor {
  static constexpr bool known = false;
  static constexpr const char* name = nullptr;
};
/// Declares std_functor<std::F<T>>, mapped to the built-in N (null: none).
#define WGPRIM_STD_FUNCTOR(F, N)                         \
  template <class T> struct std_functor<std::F<T>> {     \
    static constexpr bool known = true;                  \
    static constexpr const char* name = N;               \
  }
WGPRIM_STD_FUNCTOR(plus, "sum");
WGPRIM_STD_FUNCTOR(bit_and, "and");
WGPRIM_STD_FUNCTOR(bit_or, "or");
WGPRIM_STD_FUNCTOR(bit_xor, "xor");
WGPRIM_STD_FUNCTOR(multiplies, nullptr);
WGPRIM_STD_FUNCTOR(minus, nullptr);
WGPRIM_STD_FUNCTOR(divides, nullptr);
WGPRIM_STD_FUNCTOR(modulus, nullptr);
WGPRIM_STD_FUNCTOR(logical_and, nullptr);
WGPRIM_STD_FUNCTOR(logical_or, nullptr);
WGPRIM_STD_FUNCTOR(equal_to, nullptr);
WGPRIM_STD_FUNCTOR(not_equal_to, nullptr);
WGPRIM_STD_FUNCTOR(less, nullptr);
WGPRIM_STD_FUNCTOR(greater, nullptr);
WGPRIM_STD_FUNCTOR(less_equal, nullptr);
WGPRIM_STD_FUNCTOR(greater_equal, nullptr);
#undef WGPRIM_STD_FUNCTOR
/// What op's converting constructor takes: a standard function object, or any other empty class (a lambda
/// without captures, a user functor), which it refuses with a readable message rather than a list of overloads.
template <class F, class D = std::remove_cv_t<std::remove_reference_t<F>>>
constexpr bool is_functor_like_v = std_functor<D>::known || (std::is_class_v<D> && std::is_empty_v<D>);
}  // namespace detail

/// What the user asks for: a built-in by name, or a custom WGSL expression with its identity.
/// It does not know the element type yet; resolve() binds it to one.
class op {
 public:
  /// Addition (integers wrap modulo 2^32).
  static op sum() { return op("sum"); }
  /// Minimum (f32: NaN propagates).
  static op min() { return op("min"); }
  /// Maximum (f32: NaN propagates).
  static op max() { return op("max"); }
  /// Bitwise and (integers).
  static op bit_and() { return op("and"); }
  /// Bitwise or (integers).
  static op bit_or() { return op("or"); }
  /// Bitwise xor (integers).
  static op bit_xor() { return op("xor"); }
  /// A custom operator: one WGSL expression in `a` and `b` (e.g. "max(a, b)") and the text of its identity
  /// ("-inf", "0", "0xffffffff", ...). The expression language is a checked subset of WGSL (see expr.cpp).
  static op custom(std::string expression, std::string identity) {
    op o("custom");
    o.expression_ = std::move(expression);
    o.identity_ = std::move(identity);
    return o;
  }
  /// The standard's spelling: std::plus<> (or std::plus<T>) is op::sum(), std::bit_and<> op::bit_and(),
  /// std::bit_or<> op::bit_or() and std::bit_xor<> op::bit_xor(), so wgprim::reduce(ctx, v, std::plus<>{})
  /// reads as std::reduce. T is ignored: the range's element type decides (as for op::sum()). Any other function
  /// object fails to compile with a static_assert: wgprim has no built-in product (std::multiplies: write
  /// op::custom("a * b", "1")), min and max have no standard function object (op::min(), op::max()), and a C++
  /// callable cannot run on the GPU (write its WGSL as op::custom).
  template <class F, class = std::enable_if_t<detail::is_functor_like_v<F>>>
  op(const F&) : op(std::string(checked_name<F>())) {}  // NOLINT: implicit on purpose, like a std functor argument
  /// The CLI's spelling: a built-in name, or an expression (anything containing `a`/`b` and punctuation).
  static op parse(const std::string& name_or_expression, const std::string& identity = "");

  /// "sum", "min", "max", "and", "or", "xor" or "custom".
  const std::string& name() const { return name_; }
  /// A custom operator's WGSL expression (empty for built-ins).
  const std::string& expression() const { return expression_; }
  /// A custom operator's identity as written (empty for built-ins).
  const std::string& identity() const { return identity_; }
  /// Whether the operator is a custom expression.
  bool is_custom() const { return name_ == "custom"; }

 private:
  explicit op(std::string name) : name_(std::move(name)) {}
  template <class F>
  static const char* checked_name() {
    using D = std::remove_cv_t<std::remove_reference_t<F>>;
    static_assert(detail::std_functor<D>::known,
                  "wgprim: a C++ callable cannot run on the GPU: pass wgprim::op::sum()/min()/max()/bit_and()/"
                  "bit_or()/bit_xor(), std::plus<>, std::bit_and<>, std::bit_or<>, std::bit_xor<>, or "
                  "wgprim::op::custom(\"<WGSL expression in a and b>\", \"<identity>\")");
    static_assert(!detail::std_functor<D>::known || detail::std_functor<D>::name != nullptr,
                  "wgprim: this standard function object has no built-in wgprim::op; accepted: std::plus, "
                  "std::bit_and, std::bit_or, std::bit_xor (a product: wgprim::op::custom(\"a * b\", \"1\"); "
                  "min/max: wgprim::op::min(), wgprim::op::max())");
    return detail::std_functor<D>::name ? detail::std_functor<D>::name : "sum";
  }
  std::string name_, expression_, identity_;
};

/// An operator bound to an element type: what the shaders and the CPU twin use.
class monoid {
 public:
  /// Throws wgprim::error (invalid_argument) for an operator the type does not support
  /// (bitwise ops on f32) or a custom expression that is not a valid expression in a and b.
  /// A storage type (f16, u8, i8) gives the monoid of its accumulation type (f32, u32, i32).
  monoid(const op& o, dtype t);

  /// The element type.
  dtype type() const { return type_; }
  /// The operator's name.
  const std::string& name() const { return name_; }
  /// The WGSL body of `fn combine(a: T, b: T) -> T`: a single expression.
  const std::string& wgsl_expression() const { return wgsl_; }
  /// The identity's bits (32-bit types).
  std::uint32_t identity_bits() const { return static_cast<std::uint32_t>(identity_); }
  /// The identity in to_raw's layout (every type; 64-bit types need this one).
  std::uint64_t identity_raw() const { return identity_; }
  /// The CPU twin of combine, on raw bits (exact WGSL semantics: wrapping integers, IEEE f32). 32-bit types only.
  std::uint32_t combine(std::uint32_t a, std::uint32_t b) const;
  /// The CPU twin of combine for every type, on to_raw's layout (wrapping 64-bit integers, IEEE f64).
  std::uint64_t combine_raw(std::uint64_t a, std::uint64_t b) const;
  /// Whether `result` is a value a WGSL implementation may compute for combine(a, b): combine(a, b) itself, or
  /// for f32 custom expressions the same with products that feed an addition fused into one multiply-add (the
  /// fusion rule, README "Custom operators on every GPU"); f32 compared as values (+0 == -0, NaN == NaN).
  bool admits(std::uint32_t a, std::uint32_t b, std::uint32_t result) const;
  /// Checks on the CPU twin, with a few hundred random and edge values of the type (NaN excluded), that the
  /// identity is neutral on both sides, that combine is associative and, with need_commutative (reduce), that
  /// it is commutative: exactly for integers; for f32 within a relative tolerance of 2^-18 of the largest
  /// magnitude involved (so f32 `a + b` and `a * b` pass, as rounding makes them only approximately
  /// associative), ignoring triples whose evaluation overflows. Built-in operators are not checked (f32 sum
  /// is a monoid up to rounding by definition; its error bounds are documented). Throws
  /// wgprim::error(invalid_argument) naming the operator and the values that fail.
  void check(bool need_commutative) const;
  /// Whether the operator is a built-in.
  bool is_builtin() const { return builtin_ != builtin::none; }
  /// Whether the operator is the built-in sum.
  bool is_sum() const { return builtin_ == builtin::sum; }
  /// A stable key naming this monoid in caches.
  std::string key() const;

 private:
  void check_uncached(bool need_commutative) const;
  enum class builtin { none, sum, min, max, bit_and, bit_or, bit_xor };
  dtype type_;
  std::string name_, wgsl_, source_;  // source_: the custom expression as the user wrote it
  std::uint64_t identity_ = 0;
  builtin builtin_ = builtin::none;
  std::shared_ptr<const detail::expr_program> program_;
};

/// Parses an identity literal for type t: decimal/hex integers, floats, "inf", "-inf", "+inf", "nan",
/// and the names "max" / "min" / "lowest" for the type's extremes. Throws wgprim::error on anything else.
std::uint32_t parse_value(dtype t, const std::string& text);
/// parse_value for every type, in to_raw's layout (64-bit integers exactly, f64 correctly rounded; f16 rounded to
/// nearest from the decimal).
std::uint64_t parse_raw(dtype t, const std::string& text);

}  // namespace wgprim
