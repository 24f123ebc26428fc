/// @file
/// A context owns one WebGPU device: the instance, the chosen adapter, the device with its limits raised to what
/// the adapter allows, the queue, and a cache of compiled pipelines. It is move-only and not thread-safe: use one
/// context per thread (several contexts in several threads work; tests check it), or guard a shared one with a
/// mutex. Every failure is a wgprim::error; after errc::device_lost or errc::timeout make a new context.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wgprim/buffer.hpp"
#include "wgprim/types.hpp"

typedef struct WGPUAdapterImpl* WGPUAdapter;
typedef struct WGPUDeviceImpl* WGPUDevice;
typedef struct WGPUQueueImpl* WGPUQueue;
typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

/// What kind of adapter runs the work: policies are keyed on it.
enum class adapter_kind { discrete_gpu, integrated_gpu, virtual_gpu, cpu, unknown };
/// The adapter kind's name as adapter_info::type spells it ("discrete-gpu", "cpu", ...).
const char* adapter_kind_name(adapter_kind k);

/// What the WebGPU implementation says about an adapter (or, on a native context, about the CPU).
struct adapter_info {
  std::string name;          ///< e.g. "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
  /// Vendor name, architecture and driver description as the adapter reports them (may be empty).
  ///@{
  std::string vendor, architecture, driver;
  ///@}
  std::string backend;       ///< "vulkan", "gl", ...
  std::string type;          ///< "discrete-gpu", "integrated-gpu", "cpu", ... (adapter_kind_name(kind))
  /// The kind, on which policies are keyed.
  adapter_kind kind = adapter_kind::unknown;
  /// PCI vendor and device ids (0 when unknown).
  ///@{
  std::uint32_t vendor_id = 0, device_id = 0;
  ///@}
};

/// The device limits wgprim requested (the adapter's own maxima), in bytes or counts as WebGPU defines them.
struct device_limits {
  /// Largest storage buffer binding, in bytes: arrays past it are processed in chunks.
  std::uint64_t max_storage_buffer_binding_size = 0;
  /// Largest buffer, in bytes: larger arrays fail with errc::limit.
  std::uint64_t max_buffer_size = 0;
  /// Workgroup memory per workgroup, in bytes.
  std::uint32_t max_compute_workgroup_storage_size = 0;
  /// Invocations per workgroup.
  std::uint32_t max_compute_invocations_per_workgroup = 0;
  /// Workgroup size in x.
  std::uint32_t max_compute_workgroup_size_x = 0;
  /// Workgroups per dispatch dimension.
  std::uint32_t max_compute_workgroups_per_dimension = 0;
  /// Alignment of storage binding offsets, in bytes.
  std::uint32_t min_storage_buffer_offset_alignment = 0;
  /// Alignment of uniform binding offsets, in bytes.
  std::uint32_t min_uniform_buffer_offset_alignment = 0;
  /// Storage buffers per shader stage.
  std::uint32_t max_storage_buffers_per_shader_stage = 0;
};

/// The optional device features wgprim requested where the adapter has them.
struct device_features {
  /// Timestamp queries (GPU times).
  bool timestamp_query = false;
  /// WGSL f16 (shader-f16).
  bool shader_f16 = false;
  /// WGSL subgroup operations.
  bool subgroups = false;
  /// wgpu-native's subgroup barrier (WGSL subgroupBarrier): the onesweep sort's match ranking (sort.rank_match).
  bool subgroup_barrier = false;
  bool shader_f64 = false;    ///< wgpu-native's shader-f64: f64 elements
  bool shader_int64 = false;  ///< wgpu-native's shader-int64: i64/u64 elements
  bool immediates = false;    ///< wgpu-native's immediates (push constants): kernel parameters without a buffer write
};

/// Which backend a context runs the primitives on.
///   webgpu:    the WGSL kernels on a WebGPU adapter (a GPU, or lavapipe on a machine without one).
///   native:    the native CPU backend (oneTBB threads, vectorised loops): no WebGPU device at all.
///   automatic: native when the adapter was named "cpu" (or "native"), or when no adapter was named and the best
///              WebGPU adapter is a CPU adapter such as lavapipe (or there is none); webgpu otherwise. A named
///              adapter such as "llvmpipe" still runs the WGSL.
enum class backend_choice { automatic, webgpu, native };
/// The backend choice's name ("automatic", "webgpu", "native").
const char* backend_choice_name(backend_choice b);

/// How a context chooses its adapter and backend.
struct context_options {
  /// Case-insensitive substring of the adapter name, or "#K" for the K-th adapter of enumerate_adapters() (0 =
  /// the best; for several identical GPUs). Empty: the WGPRIM_ADAPTER environment variable, else the best adapter
  /// (discrete GPU > integrated > virtual > CPU). "cpu" or "native": the native CPU backend.
  std::string adapter;
  /// Longest wait for GPU work, in seconds; past it the call throws errc::timeout and the context counts as
  /// lost. The environment variable WGPRIM_TIMEOUT_S overrides it.
  double timeout_s = 120;
  /// See backend_choice. The library's default picks the native backend on machines without a GPU.
  backend_choice backend = backend_choice::automatic;
};

class context;
namespace detail {
struct context_impl;
/// What a container keeps of its context: the context object while it lives (updated when the context moves),
/// null once it is destroyed, so a container that outlives its context throws instead of using freed memory.
struct context_link {
  context* ctx = nullptr;
};
}  // namespace detail

/// Owns one WebGPU device (or the native CPU backend): adapter, device, queue and compiled pipelines. Move-only, not thread-safe; see the file's description.
class context {
 public:
  /// Opens the adapter and backend that `options` select; throws wgprim::error (errc::no_adapter) when there is none.
  explicit context(const context_options& options = {});
  /// Interop: a context on the caller's own device and queue (e.g. a renderer's or an ML runtime's). wgprim does
  /// not own them and does not destroy them; the caller keeps them alive longer than the context. The caller's
  /// device callbacks stay in place: wgprim reads errors of its own work through error scopes it pushes and pops
  /// around each call (so do not leave an error scope of yours open across a wgprim call).
  /// `adapter` may be null (adapter_info then says "external").
  static context from_device(WGPUDevice device, WGPUQueue queue, WGPUAdapter adapter = nullptr,
                             double timeout_s = 120);
  ~context();
  /// Takes other's device; other is left empty.
  context(context&&) noexcept;
  /// Releases this context and takes other's device.
  context& operator=(context&&) noexcept;
  context(const context&) = delete;
  context& operator=(const context&) = delete;

  /// Every adapter the WebGPU implementation sees, best first.
  static std::vector<adapter_info> enumerate_adapters();
  /// "major.minor.patch.build" of the loaded wgpu-native.
  static std::string wgpu_version();

  /// What runs the primitives here: backend_choice::webgpu or backend_choice::native (never automatic).
  /// A native context's adapter() says "native CPU (oneTBB, N threads)" with backend "native" and type "cpu".
  backend_choice backend() const;
  /// A number unique to this context in the process: buffers and spans carry it, and every call checks it.
  std::uint64_t id() const;
  /// The adapter this context runs on.
  const adapter_info& adapter() const;
  /// The limits the device was created with.
  const device_limits& limits() const;
  /// The features the device was created with.
  const device_features& features() const;
  /// Whether the algorithms take elements of type t here: f64 needs shader-f64, i64/u64 shader-int64 (requested
  /// at device creation when the adapter has them); the others always (f16, u8, i8 are unpacked from u32 words).
  bool supports(dtype t) const;
  /// Whether GPU timestamps are meaningful here (false on CPU adapters such as lavapipe: wall time is used).
  bool timestamps_trustworthy() const;
  /// The largest storage binding the algorithms use, in bytes (a multiple of 256).
  std::uint64_t binding_limit() const;

  /// Allocates a device buffer usable as storage and as a copy source and destination.
  buffer create_buffer(std::uint64_t bytes);
  /// Copies host bytes into a buffer (queued; ordered before later work).
  void write(buffer& dst, std::uint64_t offset, const void* data, std::uint64_t bytes);
  /// Reads buffer bytes back to the host, waiting for the GPU.
  void read(const buffer& src, std::uint64_t offset, void* data, std::uint64_t bytes);
  /// Waits until all queued and submitted work has finished.
  void finish();
  /// Submits the queued device-range calls now, without waiting (docs/cpp.md, "When calls wait"): queued calls
  /// share one submission of up to 32, sent when it is full, when the GPU was idle, or before any wait, read, write
  /// or submit; flush() sends a partial one, so that the GPU works on it while the host does something else.
  void flush();

  /// A command encoder on this context's device, for recording several primitives into one submission with
  /// their encoder overloads (no webgpu.h needed): `auto enc = ctx.begin_commands(); wgprim::reduce(ctx, enc, ...);
  /// ...; ctx.submit(enc); ctx.finish();`. submit() finishes, submits and releases the encoder; it does not wait.
  /// The calls recorded into such an encoder share one compute pass, left open between calls (a pass boundary
  /// costs more than a small dispatch): record only wgprim calls into it and hand it to submit(). To mix in your
  /// own commands, create the encoder yourself on native_device(): then every call closes its pass.
  WGPUCommandEncoder begin_commands();
  /// Finishes, submits and releases an encoder from begin_commands(); does not wait (see finish()).
  void submit(WGPUCommandEncoder encoder);

  /// The underlying WebGPU device and queue, for interop (e.g. to create a command encoder that wgprim records
  /// into and the caller submits). Ownership stays with the context. Both are null on a native context (and
  /// recording into a command encoder there is an errc::unsupported error).
  WGPUDevice native_device() const;
  /// The queue of native_device(); null on a native context. Call flush() before submitting to it yourself:
  /// queued wgprim calls not yet submitted would otherwise run after your work.
  WGPUQueue native_queue() const;

  /// The shared link containers keep (see detail::context_link).
  std::shared_ptr<detail::context_link> link() const;

  /// The implementation (library internals).
  detail::context_impl& impl();
  /// The implementation (library internals).
  const detail::context_impl& impl() const;

 private:
  struct adopt_tag {};
  explicit context(adopt_tag);
  std::unique_ptr<detail::context_impl> impl_;
};

}  // namespace wgprim
