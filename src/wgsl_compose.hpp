// Builds a complete WGSL module from an algorithm file, a monoid and constants: a generated prelude
// (alias T, identity(), combine(a, b), the constants), then the file with its `//! import path` lines
// replaced by the imported files (each at most once).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "wgprim/op.hpp"

namespace wgprim::detail {

using wgsl_constants = std::vector<std::pair<std::string, std::string>>;  // name, WGSL value text

std::string compose_wgsl(const std::string& file, const monoid& m, const wgsl_constants& constants,
                         const std::vector<std::string>& imports = {});
/// The embedded text of one shader file (path relative to shaders/); throws if missing.
const std::string& shader_text(const std::string& path);

}  // namespace wgprim::detail
