// libFuzzer harness: the .npy reader. Any input must either parse or throw wgprim::error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "wgprim/error.hpp"
#include "wgprim/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto a = wgprim::io::parse_npy(std::string(reinterpret_cast<const char*>(data), size));
    // what parsed must write back and parse to the same thing
    auto b = wgprim::io::parse_npy(wgprim::io::format_npy(a));
    if (b.bits != a.bits || b.type != a.type) __builtin_trap();
  } catch (const wgprim::error&) {
  }
  return 0;
}
