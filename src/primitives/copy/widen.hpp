// Packed storage types (f16, u8, i8) widened into their accumulation type (f32, u32, i32) on the device.
#pragma once
#include "primitives/primitive.hpp"

namespace wgprim::detail {

/// Records the widening of in.count elements of type t (packed, in.offset 256-byte aligned) into `out`
/// (in.count elements of accumulation_type(t), aligned).
void record_widen(recorder& rec, const device_view& in, dtype t, const device_view& out);
extern const kernel_spec widen_spec;

/// Zeroes bytes [offset, offset + bytes) of `b` with a dispatch inside the current compute pass (the scan's tile
/// states before every call): recorder::clear is a transfer command and ends the pass. Falls back to it where
/// the range cannot be bound as storage.
void record_zero(recorder& rec, const buffer& b, std::uint64_t offset, std::uint64_t bytes);
extern const kernel_spec fill_spec;

/// Copies `bytes` (a multiple of 4, at most 64 KiB, 4-byte aligned offsets, two buffers) with a dispatch inside
/// the current compute pass (a count or a small table: recorder::copy_raw is a transfer command and ends the pass);
/// other copies go through copy_raw.
void record_copy_words(recorder& rec, WGPUBuffer src, std::uint64_t src_offset, WGPUBuffer dst,
                       std::uint64_t dst_offset, std::uint64_t bytes);
extern const kernel_spec copy_words_spec;

}  // namespace wgprim::detail
