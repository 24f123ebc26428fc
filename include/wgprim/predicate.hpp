/// @file
/// Predicates for select / partition (and anything else that keeps or drops elements): a checked WGSL
/// expression in `a` whose value is a bool, e.g. "a > 100", "(a & 1u) == 0u", "abs(a) < 0.5 && a != 0.0".
/// The same expression front end as custom operators (see op.hpp): a subset of WGSL, re-emitted fully
/// parenthesised, with a CPU twin that evaluates it with WGSL's semantics (f32 comparisons are IEEE: every
/// comparison with a NaN is false except !=, which is true, made explicit in the shader because WGSL lets a
/// driver assume there are no NaNs; integers wrap; x / 0 == x; x % 0 == 0).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "wgprim/types.hpp"

namespace wgprim {

namespace detail { class expr_program; }

/// What the user asks for; not yet bound to an element type (bind() checks it for one).
class predicate {
 public:
  /// A predicate from a WGSL bool expression in `a`.
  static predicate expr(std::string expression) { return predicate(std::move(expression)); }
  /// The expression as written.
  const std::string& expression() const { return expression_; }

 private:
  explicit predicate(std::string e) : expression_(std::move(e)) {}
  std::string expression_;
};

/// A predicate bound to an element type: the WGSL the shaders use and its CPU twin.
class bound_predicate {
 public:
  /// Throws wgprim::error(invalid_argument) naming the column for anything that is not a bool expression in `a`.
  bound_predicate(const predicate& p, dtype t);
  /// The element type the predicate was bound to.
  dtype type() const { return type_; }
  /// A WGSL bool expression in `a: T`.
  const std::string& wgsl_expression() const;
  /// The CPU twin on raw bits.
  bool operator()(std::uint32_t a_bits) const;
  /// The twin over n elements at once: out[i] = 1 where the predicate holds, else 0 (at loop speed).
  void eval_many(const std::uint32_t* a_bits, std::size_t n, std::uint32_t* out) const;

 private:
  dtype type_;
  std::shared_ptr<const detail::expr_program> program_;
};

}  // namespace wgprim
