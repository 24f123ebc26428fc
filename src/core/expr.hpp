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
  /// A transform: an expression in `a` alone (of type `input`) whose values may change type through literals with
  /// a suffix (0u, 1i, 2.5f) and the conversions f32(), i32(), u32(); result_type() is the type it yields.
  /// Unsuffixed literals take the type of the operand they meet (alone: the input's type).
  static expr_program unary(const std::string& text, dtype input);
  const std::string& wgsl() const { return wgsl_; }
  dtype result_type() const { return result_; }
  std::uint32_t eval(std::uint32_t a, std::uint32_t b) const;

  enum class code : std::uint8_t {
    push, load_a, load_b, add, sub, mul, div, rem, band, bor, bxor, shl, shr, neg, bnot, lnot,
    lt, gt, le, ge, eq, ne, land, lor, min, max, abs, clamp, select, to_f32, to_i32, to_u32
  };
  struct instr {
    code c;
    std::uint32_t imm;
    dtype t = dtype::f32;  // the operands' type (conversions: the source type)
  };

 private:
  expr_program(const std::string& text, dtype t, bool unary);
  dtype type_, result_;
  std::string wgsl_;
  std::vector<instr> prog_;
};

}  // namespace wgprim::detail
