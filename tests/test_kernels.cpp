// Kernel contracts: every kernel_spec the library declares (src/primitives/registry.cpp) must agree with its WGSL
// file — the same binding slots in order, and a uniform parameter block of the declared size. The C++ side of the
// size is a static_assert next to each params struct; this test checks the WGSL side, so that neither can drift.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/wgsl_compose.hpp"
#include "primitives/primitive.hpp"

namespace wgprim {
namespace {

struct declared {
  std::map<int, detail::slot> slots;
  std::map<int, std::string> types;  // binding -> declared type name
};

// The modules a file imports (`//! import path`), in order: (path, text).
std::vector<std::pair<std::string, std::string>> imported(const std::string& text) {
  static const std::regex import(R"(//! import (\S+))");
  std::vector<std::pair<std::string, std::string>> out;
  for (std::sregex_iterator it(text.begin(), text.end(), import), end; it != end; ++it)
    out.emplace_back((*it)[1], detail::shader_text((*it)[1]));
  return out;
}

declared parse_bindings(const std::string& text) {
  declared d;
  const std::regex re(R"(@group\(0\)\s*@binding\((\d+)\)\s*var(<([^>]*)>)?\s*\w+\s*:\s*([\w<>, ]+);)");
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    const int b = std::stoi((*it)[1]);
    const std::string space = (*it)[3];
    if (space.empty()) continue;  // textures (render pipelines)
    detail::slot s = space == "uniform"                              ? detail::slot::uniform
                     : space.find("read_write") != std::string::npos ? detail::slot::storage_rw
                                                                     : detail::slot::storage_read;
    d.slots[b] = s;
    d.types[b] = (*it)[4];
  }
  // Bindings a shared module declares for its importers (sort/buffers.wgsl: the sort passes' bindings 0-7).
  for (const auto& [path, module] : imported(text)) {
    const declared m = parse_bindings(module);
    for (const auto& [b, s] : m.slots) {
      if (d.slots.count(b)) ADD_FAILURE() << "binding " << b << " declared by the kernel and by " << path;
      d.slots[b] = s;
      d.types[b] = m.types.at(b);
    }
  }
  return d;
}

// The size of a struct of 32-bit scalar fields (what every parameter block here is), declared in the file or in one
// of the files it imports.
std::size_t struct_bytes(const std::string& text, const std::string& name) {
  const std::regex head("struct\\s+" + name + "\\s*\\{([^}]*)\\}");
  std::smatch m;
  if (!std::regex_search(text, m, head)) {
    for (const auto& module : imported(text))
      if (std::size_t n = struct_bytes(module.second, name)) return n;
    return 0;
  }
  const std::string body = m[1];
  const std::regex field(R"(\w+\s*:\s*(u32|i32|f32)\s*,?)");
  std::size_t n = 0;
  for (std::sregex_iterator it(body.begin(), body.end(), field), end; it != end; ++it) ++n;
  return n * 4;
}

// Whether the file or one of the files it imports defines `fn name(` (an entry point may live in a shared module,
// such as segmented/bounds.wgsl's bounds_pass).
bool defines_fn(const std::string& text, const std::string& name) {
  if (text.find("fn " + name + "(") != std::string::npos) return true;
  for (const auto& module : imported(text))
    if (defines_fn(module.second, name)) return true;
  return false;
}

TEST(Kernels, EveryContractMatchesItsWgsl) {
  ASSERT_FALSE(detail::kernel_specs().empty());
  for (const detail::kernel_spec* k : detail::kernel_specs()) {
    SCOPED_TRACE(std::string(k->file) + " " + k->entry);
    const std::string& text = detail::shader_text(k->file);
    EXPECT_TRUE(defines_fn(text, k->entry)) << "no entry point";
    const declared d = parse_bindings(text);
    ASSERT_EQ(d.slots.size(), k->layout.size()) << "binding count";
    for (std::size_t i = 0; i < k->layout.size(); ++i) {
      ASSERT_TRUE(d.slots.count(static_cast<int>(i))) << "binding " << i << " missing";
      // A work block (slot::storage_rw_dynamic) is a read_write storage binding in WGSL; its offset is dynamic.
      const detail::slot want = k->layout[i] == detail::slot::storage_rw_dynamic ? detail::slot::storage_rw : k->layout[i];
      EXPECT_EQ(static_cast<int>(d.slots.at(static_cast<int>(i))), static_cast<int>(want)) << "binding " << i;
    }
    if (k->params_bytes) {
      ASSERT_EQ(k->layout[0], detail::slot::uniform);
      EXPECT_EQ(struct_bytes(text, d.types.at(0)), k->params_bytes) << "struct " << d.types.at(0);
    }
  }
}

}  // namespace
}  // namespace wgprim
