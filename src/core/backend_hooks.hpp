// What the context layer (src/gpu) and the backends (src/gpu, src/native) tell each other without including each
// other: the native backend's description, for the context that runs it, and the test hooks the backends read
// (one testing interface: wgprim::testing sets them on the context, the backends ask for them here).
// Layering of src/: core at the bottom; src/gpu and src/native beside each other above it; src/primitives above
// both (it picks a backend per context, src/primitives/backend.hpp); src/dist on top.
#pragma once
#include <string>

#include "wgprim/context.hpp"

namespace wgprim::detail {

/// How a native-backend context describes itself (context::adapter()): defined in src/native/common.cpp.
struct native_description {
  std::string name;          ///< "native CPU (oneTBB, N threads)"
  std::string architecture;  ///< the compiler's target ("x86-64 AVX2", ...)
  std::string driver;        ///< "oneTBB <version>"
};
native_description describe_native_backend();

// ---- test hooks (wgprim::testing sets them; defined with the context in src/gpu/device.cpp) ----

/// Whether testing::set_lookback_stress is on for this context: single-pass algorithms of either backend then
/// hold back some tiles' aggregates so that their successors take the fallback.
bool lookback_stress(const context& ctx);

}  // namespace wgprim::detail
