// Hooks for tests of wgprim and of code built on it: they make rare paths happen on demand. Not for production.
#pragma once
#include <cstdint>

#include "wgprim/context.hpp"

namespace wgprim::testing {

/// Destroys the device, as a lost device would be: every later call on the context throws errc::device_lost.
void simulate_device_loss(context& ctx);
/// Pretends the storage binding limit is `bytes` (a multiple of 256, at least 16,384; 0 restores the device's),
/// so that tests exercise the paths over several bindings with small arrays.
void set_binding_limit(context& ctx, std::uint64_t bytes);
/// Look-back stress: single-pass algorithms hold back some tiles' aggregates so that successors take the
/// fallback (the result must not change). Off by default.
void set_lookback_stress(context& ctx, bool on);

}  // namespace wgprim::testing
