// The internal GPU layer between the dispatch code (src/primitives/) and webgpu.h. Only src/gpu/*.cpp
// calls wgpu functions; everything else records work through a recorder and gets kernels from the cache.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "wgprim/context.hpp"
#include "wgprim/op.hpp"

typedef struct WGPUCommandBufferImpl* WGPUCommandBuffer;

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim::detail {

// storage_rw_dynamic: a read-write storage binding taken with a dynamic offset, for blocks of the parameter ring
// (recorder::work_block): one cached bind group serves every block, as for the uniform slots.
enum class slot { uniform, storage_read, storage_rw, storage_rw_dynamic };

struct binding {
  WGPUBuffer buf = nullptr;
  std::uint64_t offset = 0, size = 0;
};
inline binding bind(const buffer& b, std::uint64_t offset = 0, std::uint64_t size = 0) {
  return {b.native(), offset, size ? size : b.size_bytes() - offset};
}

struct kernel;  // a compute pipeline with its bind group layout; owned by the context's cache

// ---- render side (the render-pass reduction, the pictures) ----
enum class tex_format { r32float, r32sint, r32uint, rgba8unorm };
inline std::uint32_t texel_bytes(tex_format) { return 4; }

/// A 2-D texture usable as a render target, a sampled texture and a copy source/destination. Move-only.
class texture {
 public:
  texture() = default;
  texture(context& ctx, std::uint32_t width, std::uint32_t height, tex_format format);
  ~texture();
  texture(texture&& o) noexcept { *this = std::move(o); }
  texture& operator=(texture&& o) noexcept;
  std::uint32_t width() const { return w_; }
  std::uint32_t height() const { return h_; }
  tex_format format() const { return f_; }
  void* native_texture() const { return tex_; }
  void* native_view() const { return view_; }

 private:
  void* tex_ = nullptr;
  void* view_ = nullptr;
  std::uint32_t w_ = 0, h_ = 0;
  tex_format f_ = tex_format::rgba8unorm;
};

/// Render-pipeline bindings: storage buffers read in the vertex or fragment stage, sampled textures (read with
/// textureLoad), uniforms.
enum class rslot { uniform, storage_read, texture_float, texture_sint, texture_uint };
struct render_kernel;
struct rbinding {
  binding buf;                      // for uniform / storage_read
  const texture* tex = nullptr;     // for texture_*
};
inline rbinding rbind(binding b) { return {b, nullptr}; }
inline rbinding rbind(const texture& t) { return {{}, &t}; }

/// A render pipeline drawing triangle strips from `vs_entry` / `fs_entry` of `source` into one target format.
const render_kernel& get_render_kernel(context& ctx, const std::string& source, const std::string& vs_entry,
                                       const std::string& fs_entry, const std::vector<rslot>& layout,
                                       tex_format target);

/// Compiles (or finds in the cache) the entry point `entry` of a composed WGSL source. `trusted` drops naga's
/// runtime bounds checks: only for our own shaders whose indexing is in range by construction.
/// `memo_tag` (non-null only when `source` is a memoised composition, which never moves or changes) lets a repeat
/// call find the kernel by the text's address instead of comparing the whole WGSL text.
const kernel& get_kernel(context& ctx, const std::string& source, const std::string& entry,
                         const std::vector<slot>& layout, bool trusted, const void* memo_tag = nullptr,
                         std::size_t params_bytes = 0);

struct gpu_time {
  double ms = 0;               // GPU time from timestamps when trustworthy, else wall time of submit..done
  bool from_timestamps = false;
  double compile_ms = 0;       // pipelines created since the previous submit (never part of ms)
};

/// Records dispatches and copies into one command encoder; submit() sends them and waits.
class recorder {
 public:
  explicit recorder(context& ctx, bool timestamps = false);
  /// Records into the caller's command encoder: end() instead of submit(); the caller submits.
  recorder(context& ctx, WGPUCommandEncoder external);
  ~recorder();
  recorder(const recorder&) = delete;
  recorder& operator=(const recorder&) = delete;

  /// Stores a small uniform parameter block (<= 256 bytes) and returns a binding to it.
  /// A parameter slot in the context's uniform ring. Use the binding before the next params() call: that call may
  /// move the ring to a new buffer and release the old handle (the sort's reduce-then-scan once kept a slot across
  /// the scan it records, and bound a released buffer).
  binding params(const void* data, std::size_t bytes);
  template <class P> binding params(const P& p) { return params(&p, sizeof p); }
  /// A block of the same ring (4 to 1,024 bytes, whole words) that the GPU may also write: bound as a
  /// slot::storage_rw_dynamic, then read by later dispatches of the same recording as their uniform block or their
  /// indirect grid (a counted pass sizes itself so: primitives/counted.hpp). Uploaded and reused as params() are.
  binding work_block(const void* data, std::size_t bytes);

  void dispatch(const kernel& k, std::initializer_list<binding> bindings, std::uint32_t x, std::uint32_t y = 1);
  /// A dispatch whose grid (x, y, z: three u32) is read from `args` at `offset` when it runs (a buffer of
  /// context::create_buffer, written by an earlier pass: a count that stays on the device sizes the grid).
  void dispatch_indirect(const kernel& k, std::initializer_list<binding> bindings, WGPUBuffer args,
                         std::uint64_t offset);
  void copy(const buffer& src, std::uint64_t src_offset, const buffer& dst, std::uint64_t dst_offset,
            std::uint64_t bytes);
  void copy_raw(WGPUBuffer src, std::uint64_t src_offset, WGPUBuffer dst, std::uint64_t dst_offset,
                std::uint64_t bytes);
  /// One render pass into `target`, cleared to `clear` first: `vertices` x `instances` of a triangle strip.
  void draw(const render_kernel& k, std::initializer_list<rbinding> bindings, const texture& target,
            const double clear[4], std::uint32_t vertices, std::uint32_t instances = 1);
  /// Copies a texture into a buffer, rows padded to 256 bytes (bytes_per_row()).
  void copy(const texture& src, const buffer& dst);
  static std::uint32_t bytes_per_row(const texture& t) { return (t.width() * texel_bytes(t.format()) + 255) / 256 * 256; }
  /// Zeroes bytes [offset, offset + bytes) of a buffer (both multiples of 4).
  void clear(const buffer& b, std::uint64_t offset, std::uint64_t bytes) { clear_raw(b.native(), offset, bytes); }
  void clear_raw(WGPUBuffer b, std::uint64_t offset, std::uint64_t bytes);
  /// Bytes to bring back with the submission: src[offset, offset + bytes) into dst (at most 4,096 bytes).
  struct readback {
    WGPUBuffer src;
    std::uint64_t offset, bytes;
    void* dst;
    bool src_mappable = false;  // src is the context's mapped_result_for buffer: mapped directly, no copy
  };
  /// Submits everything recorded; with `rb`, also copies a small result to the host in the same submission and
  /// waits once for it. Without `rb` it waits only when the recorder was made with timestamps (the caller asked for
  /// times), else the work stays queued (a later read or finish waits for it, in queue order).
  gpu_time submit(const readback* rb = nullptr);
  /// External encoder: closes the open pass and uploads the parameter blocks (queued before any later submit).
  void end();

  context& ctx() { return ctx_; }

 private:
  struct state;
  context& ctx_;
  std::unique_ptr<state> s_;
  binding indirect_;  // set by dispatch_indirect for the dispatch it makes
};


/// A scratch buffer of the context, at least `bytes` long, kept between calls under `name` (a workspace: no
/// allocation in the hot path). Work recorded in order may reuse it; it grows (the old one is released, and wgpu
/// keeps it alive for work in flight).
const buffer& scratch(context& ctx, const std::string& name, std::uint64_t bytes);

/// A read-only buffer of the context holding `bytes` (at most 64 KiB), kept under its content: calls with the
/// same small table (a histogram's edges) share one buffer written once, with no allocation or queue write per
/// call. At most 64 are kept (then all are dropped; wgpu keeps a dropped buffer alive for work in flight).
const buffer& constant_buffer(context& ctx, const void* data, std::uint64_t bytes);

/// A small storage buffer of the context that the host maps directly after a submission (recorder::readback with
/// src_mappable): a kernel's result needs no copy into staging. nullptr (and size untouched) when the device cannot
/// map storage buffers; else `size` gets its length (at least `bytes`).
WGPUBuffer mapped_result(context& ctx, std::uint64_t bytes, std::uint64_t& size);

/// The next epoch (1 .. 2^24 - 1) of the context's counter `name`, for kernels that tag what they publish with the
/// call that published it; `restarted` is set when the count starts again at 1 (the caller clears its state).
std::uint32_t next_epoch(context& ctx, const std::string& name, bool& restarted);

/// How many compute kernels (shader module + pipeline) this context has created so far: a replayed pipeline
/// (src/pipeline) creates none.
std::uint64_t kernels_created(context& ctx);
/// How many dispatches (direct and indirect) this context has recorded so far (the native backend: 0).
std::uint64_t dispatches_recorded(context& ctx);

// lookback_stress(ctx), the test hook: core/backend_hooks.hpp.

/// Queues a write of host bytes into any buffer of the context's device (ordered before later submits).
void wgpu_write(context& ctx, WGPUBuffer dst, std::uint64_t offset, const void* data, std::uint64_t bytes);

/// A command encoder finished (encoded) now and submitted later: a recorded pipeline encodes its next run while the
/// GPU runs this one (src/pipeline). Until submitted or dropped it keeps its parameter slots in the ring and a
/// reference to `held` (the run's input buffer, so that its handle cannot be reused by another buffer meanwhile).
struct finished_commands {
  WGPUCommandBuffer cmd = nullptr;
  WGPUCommandEncoder enc = nullptr;
  WGPUBuffer held = nullptr;
  std::uint64_t owner = 0;  // the context's id (context::id)
  explicit operator bool() const { return cmd != nullptr; }
};
/// Finishes `encoder` (of context::begin_commands) without submitting it; `hold` (may be null) is referenced.
finished_commands finish_commands(context& ctx, WGPUCommandEncoder encoder, WGPUBuffer hold);
/// Submits what finish_commands made, after the calls queued before it; f is empty afterwards.
void submit_finished(context& ctx, finished_commands& f);
/// Releases what finish_commands made (or an encoder of begin_commands, unfinished: f.enc and f.owner set) without
/// running it; f is empty afterwards. Needs no context: it tells its context, found by f.owner, if that still lives
/// (a pipeline may be destroyed after its context was moved from or, against the contract, destroyed).
void drop_finished(finished_commands& f) noexcept;
/// Whether `b` is a buffer this context made (a caller's own WGPUBuffer may be destroyed behind the library's back,
/// and a submit that reads a destroyed buffer aborts wgpu-native: nothing finished early may read one).
bool owns_buffer(const context& ctx, WGPUBuffer b);

/// Splits n work items into a 2-D grid whose dimensions fit the 65,535 limit; x * y >= n.
inline void grid_2d(std::uint64_t n, std::uint32_t max_dim, std::uint32_t& x, std::uint32_t& y) {
  if (n <= max_dim) { x = static_cast<std::uint32_t>(n ? n : 1); y = 1; return; }
  y = static_cast<std::uint32_t>((n + max_dim - 1) / max_dim);
  x = static_cast<std::uint32_t>((n + y - 1) / y);
}

}  // namespace wgprim::detail
