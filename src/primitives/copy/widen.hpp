// Packed storage types (f16, u8, i8) widened into their accumulation type (f32, u32, i32) on the device.
#pragma once
#include <string>

#include "primitives/primitive.hpp"

namespace wgprim::detail {

/// Records the widening of in.count elements of type t (packed, in.offset 256-byte aligned) into `out`
/// (in.count elements of accumulation_type(t), aligned).
void record_widen(recorder& rec, const device_view& in, dtype t, const device_view& out);
extern const kernel_spec widen_spec;

/// Zeroes bytes [offset, offset + bytes) of `b` with a dispatch inside the current compute pass (the scan's tile
/// states before every call): recorder::clear is a transfer command and ends the pass. Falls back to it where
/// the range cannot be bound as storage.
void record_zero(recorder& rec, WGPUBuffer b, std::uint64_t offset, std::uint64_t bytes);
inline void record_zero(recorder& rec, const buffer& b, std::uint64_t offset, std::uint64_t bytes) {
  record_zero(rec, b.native(), offset, bytes);
}
/// record_zero, and word `take_word` of the range takes the u32 at src_offset of src, in the same dispatch (a
/// cleared state with a device count in it); a clear and a copy where one dispatch cannot.
void record_zero_take(recorder& rec, const buffer& b, std::uint64_t offset, std::uint64_t bytes,
                      std::uint64_t take_word, WGPUBuffer src, std::uint64_t src_offset);
extern const kernel_spec fill_spec, fill_take_spec;
/// Workgroups of 256 for a grid-stride fill of `words` words (copy/fill.wgsl, pipeline/count_args_fill.wgsl).
std::uint32_t fill_groups(std::uint64_t words);

/// The workspace of a decoupled look-back pass kept by the context: carry words (counts between chunks, totals) at
/// offset 0, then the tile states at a binding offset, in one buffer, so that a one-chunk call clears both with one
/// fill dispatch (each dispatch in a compute pass costs GPU time: ~4 us on an H100).
class lookback_workspace {
 public:
  lookback_workspace(context& ctx, const std::string& name, std::uint64_t carry_bytes, std::uint64_t state_bytes);
  const buffer& buf() const { return buf_; }
  binding carry() const { return bind(buf_, 0, carry_bytes_); }
  binding states() const { return bind(buf_, state_at_, state_bytes_); }
  /// Zeroes the carry and the first `state_used` bytes of the states with one dispatch.
  void clear(recorder& rec, std::uint64_t state_used) const { record_zero(rec, buf_, 0, state_at_ + state_used); }
  /// What clear() zeroes, as a binding (for a dispatch that zeroes it beside its own work).
  binding cleared(std::uint64_t state_used) const { return bind(buf_, 0, state_at_ + state_used); }
  void clear_carry(recorder& rec) const { record_zero(rec, buf_, 0, carry_bytes_); }
  void clear_states(recorder& rec, std::uint64_t state_used) const { record_zero(rec, buf_, state_at_, state_used); }
  /// Copies state word `word` (a pass's fallback count) to dst at dst_offset (a transfer command).
  void copy_state_word(recorder& rec, std::uint64_t word, const buffer& dst, std::uint64_t dst_offset) const;

 private:
  std::uint64_t carry_bytes_, state_at_, state_bytes_;
  const buffer& buf_;
};

/// Copies `bytes` (a multiple of 4, at most 64 KiB, 4-byte aligned offsets, two buffers) with a dispatch inside
/// the current compute pass (a count or a small table: recorder::copy_raw is a transfer command and ends the pass);
/// other copies go through copy_raw.
void record_copy_words(recorder& rec, WGPUBuffer src, std::uint64_t src_offset, WGPUBuffer dst,
                       std::uint64_t dst_offset, std::uint64_t bytes);
extern const kernel_spec copy_words_spec;
/// A binding of the u32 at `offset` (4-byte aligned) of `buf` and `bytes` after it, from the storage-offset alignment
/// at or below it: `*word` is the u32's index in that binding.
binding bind_from_aligned(context& ctx, WGPUBuffer buf, std::uint64_t offset, std::uint64_t bytes, std::uint32_t* word);

}  // namespace wgprim::detail
