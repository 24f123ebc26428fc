/// @file
/// The former name of wgprim/reference.hpp, kept so that code written against it still compiles: it includes that
/// header and makes `wgprim::cpu` another name of `wgprim::reference`. New code includes wgprim/reference.hpp.
#pragma once
#include "wgprim/reference.hpp"

namespace wgprim {
/// The former name of wgprim::reference (the reference implementations).
namespace cpu = reference;
}  // namespace wgprim
