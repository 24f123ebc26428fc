/// @file
/// Hooks for tests of wgprim and of code built on it: they make rare paths happen on demand. Not for production.
/// @namespace wgprim::testing
/// Test hooks that make rare paths happen on demand; not for production.
#pragma once
#include <cstdint>
#include <vector>

#include "wgprim/algorithm.hpp"
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
/// The radix sort on keys given as u32 words: key_words 1 (32-bit keys) or 2 (64-bit keys, low word first, as a
/// little-endian uint64_t array is laid out); kind 0 unsigned, 1 signed, 2 floating point (the documented order);
/// values (may be null) follow the keys. keys_in may be keys_out (in place). The path the public 64-bit overloads
/// will take. begin_bit / end_bit: as wgprim::sort_order (end_bit 0: the key's width).
void sort_words(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n, unsigned key_words, unsigned kind,
                bool descending, const buffer* vals_in = nullptr, buffer* vals_out = nullptr,
                const run_options& opt = {}, unsigned begin_bit = 0, unsigned end_bit = 0);
/// The digit passes (0 .. 4 * key words - 1, low bits first) that the last sort on this context ran: a pass is
/// skipped when every key has the same digit there, or when its bits are outside [begin_bit, end_bit). On a
/// WebGPU context, read from the sort's state after the call (not for sorts past one storage binding).
std::vector<unsigned> sort_passes_run(context& ctx);

}  // namespace wgprim::testing
