// libFuzzer harness: the .csv/.txt reader, with the type inferred and forced.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "wgprim/error.hpp"
#include "wgprim/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::optional<wgprim::dtype> t;
  if (data[0] % 4 < 3) t = static_cast<wgprim::dtype>(data[0] % 4);
  try {
    wgprim::io::parse_text(text, t);
  } catch (const wgprim::error&) {
  }
  return 0;
}
