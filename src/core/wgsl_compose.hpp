// Builds a complete WGSL module from an algorithm file, a monoid and constants: a generated prelude
// (alias T, identity(), combine(a, b), the constants), then the file with its `//! import path` lines
// replaced by the imported files (each at most once). The one variant mechanism besides constants:
// `//! if NAME` / `//! else` / `//! endif` keeps text only where the boolean constant NAME says so; and
// `//! unroll` before a `for` loop over a constant count writes the loop out (register arrays indexed by constants).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "wgprim/op.hpp"

namespace wgprim { class bound_transform; }

namespace wgprim::detail {

/// A constant of type t in WGSL, from its raw bits (to_raw's layout): bitcast<T>(...) of u32 or u64.
std::string wgsl_constant(dtype t, std::uint64_t raw);

/// name, WGSL value text (emitted as `const name = value;`); an empty name: WGSL declarations emitted verbatim.
using wgsl_constants = std::vector<std::pair<std::string, std::string>>;

/// How values are accumulated. `plain`: in the element type (T = E). `double_word`: f32 sums carried as
/// (hi, lo) pairs (shared/double_word.wgsl); E is f32 for passes over the data, T itself for passes over partial
/// results (elements_are_accumulators).
enum class accum { plain, double_word };

/// The prelude defines E (element type in memory), T (accumulator type), identity(), combine(a, b),
/// lift(x: E) -> T, finalize(v: T) -> E, accumulate(acc: T, x: E) -> T (the per-element step) and
/// accum_init(u32) (every entry point calls it first).
/// With a transform (plain accumulation only; ignored when elements_are_accumulators): E is the transform's input
/// type, T its result type (the monoid's), lift(a) is the transform and accumulate(acc, x) = combine(acc, lift(x)),
/// so a reduction reads E and applies the transform inside its load; finalize is the identity on T.
/// The text is memoised: the reference stays valid (and unchanged) for the life of the process.
const std::string& compose_wgsl(const std::string& file, const monoid& m, const wgsl_constants& constants,
                                const std::vector<std::string>& imports = {}, accum a = accum::plain,
                                bool elements_are_accumulators = false, const bound_transform* transform = nullptr);
/// Whether `text` is (the very object) a memoised composition returned by compose_wgsl.
bool is_memoised(const std::string& text);
/// A module without a monoid, for primitives whose values are not one element type (arg-min/max pairs): the
/// `prelude` text (e.g. "alias E = f32;"), the constants, the imports (which define T, identity(), combine() for
/// the shared lanes_* files) and the file. Memoised as compose_wgsl is.
const std::string& compose_wgsl_with_prelude(const std::string& file, const std::string& prelude,
                                             const wgsl_constants& constants, const std::vector<std::string>& imports);
/// `prefix` followed by `body` (a memoised composition, else it is part of the key), as one memoised text: a
/// generated prelude in front of a composition keeps the kernel cache's fast path (no key built from the text).
const std::string& prefixed_wgsl(const std::string& prefix, const std::string& body);
/// A caller's own short key for a text it composes: its call site (the address of a static object, e.g. its
/// kernel_spec), the numbers its composition depends on (a policy's fields, a mode) and one string (a predicate's
/// WGSL, or empty).
struct text_key {
  const void* site = nullptr;
  std::array<std::uint32_t, 16> numbers{};
  std::string text;
  bool operator==(const text_key& o) const { return site == o.site && numbers == o.numbers && text == o.text; }
};
const std::string* find_text(const text_key& key);
void keep_text(const text_key& key, const std::string& text);
/// The memoised text that `make` returns (compose_wgsl, prefixed_wgsl...), found again by `key` on later calls:
/// a call on the hot path builds no constants, no composition key and no prelude (a pipeline's replay composes
/// each step's kernels so: ~10 us of strings per select on lavapipe's host, docs/performance.md).
template <class Make>
const std::string& memo_text(const text_key& key, Make make) {
  if (const std::string* t = find_text(key)) return *t;
  const std::string& t = make();
  keep_text(key, t);
  return t;
}
/// The embedded text of one shader file (path relative to shaders/); throws if missing.
const std::string& shader_text(const std::string& path);

}  // namespace wgprim::detail
