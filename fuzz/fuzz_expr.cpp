// libFuzzer harness: the custom-operator front end. Anything it accepts must be one expression in a and b whose
// WGSL re-emission parses again to the same program, and whose CPU evaluation does not crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/expr.hpp"
#include "wgprim/error.hpp"
#include "wgprim/op.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto t = static_cast<wgprim::dtype>(data[0] % 3);
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    wgprim::detail::expr_program p(text, t);
    // The fusion rule admits the twin's own result, for every operand (division by 0, MIN / -1, NaN, inf).
    for (std::uint32_t a : {0u, 1u, 0x80000000u, 0x7f800000u, 0xffffffffu})
      for (std::uint32_t b : {0u, 3u, 0x7fc00000u, 0xffffffffu})
        if (!p.admits(a, b, p.eval(a, b))) __builtin_trap();
    // Lowering / % min max clamp abs repeats operands; the emitted text stays bounded.
    if (p.wgsl().size() > 65536) __builtin_trap();
    // The emitted WGSL is itself in the accepted language (bitcast literals aside): it must not contain
    // anything but the characters the front end emits.
    for (char c : p.wgsl())
      if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string(" ()<>=!&|^~+-*/%,_").find(c) != std::string::npos))
        __builtin_trap();
    wgprim::monoid m(wgprim::op::custom(text, "0"), t);
    (void)m;
  } catch (const wgprim::error&) {
  }
  return 0;
}
