// libFuzzer harness: the predicate and transform front ends (expr_program's predicate and unary modes, through
// the public bound_predicate / bound_transform too). Anything accepted must evaluate on the CPU twin without UB for
// every special value (0, +-1, the type's extremes, NaN, +-inf, -0), a predicate to 0 or 1, a transform within its
// own fusion rule; the emitted WGSL stays bounded and in the emitted alphabet. The byte before the text picks the
// type (bits 0-1) and the mode (bit 2).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/expr.hpp"
#include "wgprim/error.hpp"
#include "wgprim/predicate.hpp"
#include "wgprim/transform_reduce.hpp"

namespace {

constexpr std::uint32_t specials[] = {0u,          1u,          2u,          0xffffffffu, 0x80000000u, 0x7fffffffu,
                                      0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u,
                                      0x00000001u, 0x807fffffu, 0x4b800000u, 0xcf000000u, 0x4f800000u, 0x12345678u};

bool emitted_alphabet(const std::string& w) {
  for (char c : w)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string(" ()<>=!&|^~+-*/%,_.").find(c) != std::string::npos))
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto t = static_cast<wgprim::dtype>((data[0] & 3) % 3);
  const bool is_predicate = (data[0] & 4) != 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  using wgprim::detail::expr_program;
  try {
    if (is_predicate) {
      expr_program p(text, t, expr_program::mode::predicate);
      for (std::uint32_t a : specials) {
        const std::uint32_t r = p.eval(a, 0);
        if (r > 1) __builtin_trap();
      }
      if (p.wgsl().size() > 65536 || !emitted_alphabet(p.wgsl())) __builtin_trap();
      // The public wrapper accepts exactly what the front end accepts and agrees with it.
      wgprim::bound_predicate bp(wgprim::predicate::expr(text), t);
      for (std::uint32_t a : specials)
        if (bp(a) != (p.eval(a, 0) != 0)) __builtin_trap();
    } else {
      expr_program p = expr_program::unary(text, t);
      for (std::uint32_t a : specials)
        if (!p.admits(a, 0, p.eval(a, 0))) __builtin_trap();
      if (p.wgsl().size() > 65536 || !emitted_alphabet(p.wgsl())) __builtin_trap();
      wgprim::bound_transform bt(wgprim::transform::expr(text), t);
      if (bt.result_type() != p.result_type()) __builtin_trap();
      for (std::uint32_t a : specials)
        if (!p.admits(a, 0, bt.apply(a))) __builtin_trap();
    }
  } catch (const wgprim::error&) {
  }
  return 0;
}
