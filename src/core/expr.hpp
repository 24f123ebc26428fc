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
  /// operator: an expression in `a` and `b` of the element type (a custom combine).
  /// predicate: an expression in `a` alone whose value is a bool (select / partition); eval returns 0 or 1.
  /// Its f32 comparisons call shaders/shared/predicate.wgsl (NaN-exact), which the shader must import.
  enum class mode { op, predicate };
  /// Parses `text` for element type t. Throws wgprim::error(invalid_argument) with the position on failure.
  expr_program(const std::string& text, dtype t, mode md = mode::op);
  const std::string& wgsl() const { return wgsl_; }
  std::uint32_t eval(std::uint32_t a, std::uint32_t b) const;

  enum class code : std::uint8_t {
    push, load_a, load_b, add, sub, mul, div, rem, band, bor, bxor, shl, shr, neg, bnot, lnot,
    lt, gt, le, ge, eq, ne, land, lor, min, max, abs, clamp, select
  };
  struct instr { code c; std::uint32_t imm; };

 private:
  dtype type_;
  std::string wgsl_;
  std::vector<instr> prog_;
};

}  // namespace wgprim::detail
