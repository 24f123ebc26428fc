// libFuzzer harness: the --generate spec parser (and the generators, for small N).
#include <cstddef>
#include <cstdint>
#include <string>

#include "wgprim/error.hpp"
#include "wgprim/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string spec(reinterpret_cast<const char*>(data), size);
  try {
    auto g = wgprim::io::parse_generate_spec(spec);
    if (g.n <= 4096) wgprim::io::generate(spec);
  } catch (const wgprim::error&) {
  }
  return 0;
}
