// The custom-operator front end: a checked subset of WGSL expressions in `a` and `b`.
// It rejects anything that is not one expression before it reaches the shader compiler, re-emits it as fully
// parenthesised WGSL, and compiles it to a small stack program that is the operator's CPU twin.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "wgprim/types.hpp"

namespace wgprim::detail {

class expr_program {
 public:
  /// Parses `text` for element type t. Throws wgprim::error(invalid_argument) with the position on failure.
  expr_program(const std::string& text, dtype t);
  /// predicate: an expression in `a` alone whose value is a bool (select / partition); eval returns 0 or 1.
  /// Its f32 comparisons call shaders/shared/predicate.wgsl (NaN-exact), which the shader must import.
  /// less: an expression in `a` and `b` whose value is a bool, true when a goes before b (a sort's comparator);
  /// eval returns 0 or 1. f32 comparisons as in predicate mode.
  enum class mode { op, predicate, less };
  expr_program(const std::string& text, dtype t, mode md);
  /// A transform: an expression in `a` alone (of type `input`) whose values may change type through literals with
  /// a suffix (0u, 1i, 2.5f) and the conversions f32(), i32(), u32(); result_type() is the type it yields.
  /// Unsuffixed literals take the type of the operand they meet (alone: the input's type).
  static expr_program unary(const std::string& text, dtype input);
  const std::string& wgsl() const { return wgsl_; }
  dtype result_type() const { return result_; }
  /// The CPU twin: the expression evaluated as written, every f32 operation rounded on its own.
  std::uint32_t eval(std::uint32_t a, std::uint32_t b) const;
  /// eval over n elements at once (b may be null: b = 0), each instruction applied to a column of values: the
  /// same results, at loop speed (the native CPU backend's predicates and transforms).
  void eval_many(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, std::uint32_t* out) const;
  /// The fusion rule: whether `result` is what a WGSL implementation may return for (a, b). Integers: exactly
  /// eval(a, b). f32: eval(a, b) with any set of the products that feed an addition or subtraction evaluated
  /// as one fused multiply-add instead (WGSL permits that contraction; shader compilers do it, so the H200
  /// gives fma(a, b, a) for `a * b + a`), compared as values (+0 == -0, NaN == NaN).
  bool admits(std::uint32_t a, std::uint32_t b, std::uint32_t result) const;
  /// How many additions/subtractions may be fused with a product operand (the f32 fusion sites).
  std::size_t fusion_sites() const { return sites_.size(); }

  enum class code : std::uint8_t {
    push, load_a, load_b, add, sub, mul, div, rem, band, bor, bxor, shl, shr, neg, bnot, lnot,
    lt, gt, le, ge, eq, ne, land, lor, min, max, abs, clamp, select, to_f32, to_i32, to_u32
  };
  struct instr {
    code c;
    std::uint32_t imm;
    dtype t = dtype::f32;  // the operands' type (conversions: the source type)
  };
  /// The value of prog[from, to), a piece of program that loads neither a nor b (a constant shift count).
  static std::uint32_t eval_constant(const std::vector<instr>& prog, std::size_t from, std::size_t to);

 private:
  expr_program(const std::string& text, dtype t, bool unary);
  dtype type_, result_;
  std::string wgsl_;
  std::vector<instr> prog_;
  // A fusion site: the index of an add/sub instruction and which of its operands is a product (bit 0 the left,
  // bit 1 the right).
  struct site { std::size_t at; std::uint8_t products; };
  std::vector<site> sites_;
  std::uint32_t eval_with(std::uint32_t a, std::uint32_t b, const std::uint8_t* choice) const;
  static std::uint32_t run(const instr* prog, std::size_t count, const site* sites, std::size_t nsites,
                           std::uint32_t a, std::uint32_t b, const std::uint8_t* choice);
};

}  // namespace wgprim::detail
