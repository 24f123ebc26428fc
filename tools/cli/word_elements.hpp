// The subcommands that run on 32-bit words (everything but reduce/scan without --transform, which take every
// element type through cmd_types.cpp) refuse other element types up front, with one line, instead of treating
// their packed bytes as u32 words.
#pragma once
#include <string>

#include "wgprim/error.hpp"
#include "wgprim/io.hpp"

/// `hint` (may be empty) is appended: where the other types are handled.
inline void require_word_elements(const wgprim::io::array& a, const std::string& what, const std::string& hint = "") {
  using namespace wgprim;
  if (dtype_bytes(a.type) != 4)
    throw error(errc::unsupported, what + " holds " + dtype_name(a.type) +
                                       " elements; this command takes f32, i32 or u32" + hint);
}
