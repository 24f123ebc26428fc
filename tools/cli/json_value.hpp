// One element value in the CLI's JSON, the same way for every subcommand.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "wgprim/types.hpp"

/// f32 as the shortest text that reads back as the same float; NaN and infinities (which JSON has no numbers for) as
/// null with KEY_text beside them; i32 signed, u32 as is.
inline void put_value(nlohmann::json& j, const std::string& key, wgprim::dtype t, std::uint32_t bits) {
  using namespace wgprim;
  if (t == dtype::f32) {
    const float f = from_bits<float>(bits);
    if (std::isfinite(f)) {
      j[key] = std::strtod(format_bits(t, bits).c_str(), nullptr);
    } else {
      j[key] = nullptr;
      j[key + "_text"] = format_bits(t, bits);
    }
  } else if (t == dtype::i32) {
    j[key] = static_cast<std::int32_t>(bits);
  } else {
    j[key] = bits;
  }
}
