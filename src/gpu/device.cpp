// The device: instance, adapter ranking, device creation with raised limits and features, error and device-lost
// callbacks, bounded waits, buffers, uploads and read-backs. When wgpu-native's API changes, src/gpu/ changes.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

#include "core/backend_hooks.hpp"
#include "core/env.hpp"
#include "gpu/device_impl.hpp"
#include "wgprim/testing.hpp"

namespace wgprim {
using detail::sv;
using detail::str;
using detail::one_line;
using detail::lower;

namespace {

const char* backend_name(WGPUBackendType b) {
  switch (b) {
    case WGPUBackendType_Vulkan: return "vulkan";
    case WGPUBackendType_Metal: return "metal";
    case WGPUBackendType_D3D12: return "d3d12";
    case WGPUBackendType_D3D11: return "d3d11";
    case WGPUBackendType_OpenGL: return "gl";
    case WGPUBackendType_OpenGLES: return "gles";
    case WGPUBackendType_WebGPU: return "webgpu";
    case WGPUBackendType_Null: return "null";
    default: return "unknown";
  }
}
const char* type_name(WGPUAdapterType t) {
  switch (t) {
    case WGPUAdapterType_DiscreteGPU: return "discrete-gpu";
    case WGPUAdapterType_IntegratedGPU: return "integrated-gpu";
    case WGPUAdapterType_CPU: return "cpu";
    default: return "unknown";
  }
}
adapter_kind kind_of(WGPUAdapterType t) {
  switch (t) {
    case WGPUAdapterType_DiscreteGPU: return adapter_kind::discrete_gpu;
    case WGPUAdapterType_IntegratedGPU: return adapter_kind::integrated_gpu;
    case WGPUAdapterType_CPU: return adapter_kind::cpu;
    default: return adapter_kind::unknown;
  }
}
int type_rank(adapter_kind k) {
  switch (k) {
    case adapter_kind::discrete_gpu: return 0;
    case adapter_kind::integrated_gpu: return 1;
    case adapter_kind::virtual_gpu: return 2;
    case adapter_kind::unknown: return 3;
    case adapter_kind::cpu: return 4;
  }
  return 4;
}
int backend_rank(const std::string& b) { return b == "vulkan" ? 0 : b == "metal" || b == "d3d12" ? 1 : 2; }

adapter_info read_info(WGPUAdapter a) {
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  adapter_info out;
  if (wgpuAdapterGetInfo(a, &info) != WGPUStatus_Success) return out;
  out.name = str(info.device);
  out.vendor = str(info.vendor);
  out.architecture = str(info.architecture);
  out.driver = str(info.description);
  out.backend = backend_name(info.backendType);
  out.type = type_name(info.adapterType);
  out.kind = kind_of(info.adapterType);
  out.vendor_id = info.vendorID;
  out.device_id = info.deviceID;
  wgpuAdapterInfoFreeMembers(info);
  return out;
}

struct ranked_adapter {
  WGPUAdapter handle;
  adapter_info info;
};

// All adapters, best first. The caller releases the handles.
std::vector<ranked_adapter> list(WGPUInstance inst) {
  std::size_t n = wgpuInstanceEnumerateAdapters(inst, nullptr, nullptr);
  std::vector<WGPUAdapter> hs(n);
  if (n) wgpuInstanceEnumerateAdapters(inst, nullptr, hs.data());
  std::vector<ranked_adapter> out;
  for (WGPUAdapter h : hs) out.push_back({h, read_info(h)});
  std::stable_sort(out.begin(), out.end(), [](const ranked_adapter& x, const ranked_adapter& y) {
    int tx = type_rank(x.info.kind), ty = type_rank(y.info.kind);
    if (tx != ty) return tx < ty;
    return backend_rank(x.info.backend) < backend_rank(y.info.backend);
  });
  return out;
}

// Vulkan/Metal/D3D12 only by default: the GL backend adds nothing for compute and its EGL probe prints noise.
// WGPRIM_BACKENDS=all lets GL adapters in.
WGPUInstance make_instance() {
  // Mesa's Vulkan WSI complains on every adapter probe when XDG_RUNTIME_DIR is unset (CI, containers):
  // give it a private directory, as a login session would.
  if (!detail::env::system("XDG_RUNTIME_DIR")) {
    std::string dir = "/tmp/wgprim-runtime-" + std::to_string(::getuid());
    ::mkdir(dir.c_str(), 0700);
    ::setenv("XDG_RUNTIME_DIR", dir.c_str(), 0);
  }
  WGPUInstanceExtras extras{};
  extras.chain.sType = static_cast<WGPUSType>(WGPUSType_InstanceExtras);
  extras.backends = detail::env::all_backends() ? WGPUInstanceBackend_All : WGPUInstanceBackend_Primary;
  WGPUInstanceDescriptor d = WGPU_INSTANCE_DESCRIPTOR_INIT;
  d.nextInChain = &extras.chain;
  WGPUInstance inst = wgpuCreateInstance(&d);
  if (!inst) throw error(errc::no_adapter, "could not create a WebGPU instance");
  return inst;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// buffer

// Release, not destroy: wgpu keeps a released buffer alive while recorded or submitted work still uses it, so
// dropping a buffer early can never invalidate a command buffer (a destroyed one makes the submit fatal).
namespace detail {
namespace {
// Buffers name their context by id; a buffer being released tells its context first (forget_buffer), so that
// cached bind groups never bind a released buffer. Contexts enter the registry when they make their first buffer.
std::mutex& registry_mu() { static std::mutex m; return m; }
std::unordered_map<std::uint64_t, context_impl*>& registry() {
  static std::unordered_map<std::uint64_t, context_impl*> r;
  return r;
}
void forget(std::uint64_t owner, WGPUBuffer b) {
  if (!owner || !b) return;
  std::lock_guard<std::mutex> g(registry_mu());
  auto it = registry().find(owner);
  if (it != registry().end()) it->second->forget_buffer(b);
}
}  // namespace
void context_impl::unregister() {
  if (!registered) return;
  std::lock_guard<std::mutex> g(registry_mu());
  registry().erase(id);
  registered = false;
}
}  // namespace detail

// A native buffer's host memory comes from calloc: large blocks are fresh zero pages from the kernel (no memset
// pass over memory that the caller is about to overwrite anyway).
buffer::~buffer() {
  if (handle_) { detail::forget(owner_, handle_); wgpuBufferRelease(handle_); }
  std::free(host_);
}
buffer& buffer::operator=(buffer&& o) noexcept {
  if (this != &o) {
    if (handle_) { detail::forget(owner_, handle_); wgpuBufferRelease(handle_); }
    std::free(host_);
    handle_ = o.handle_; host_ = o.host_; size_ = o.size_; owner_ = o.owner_;
    o.handle_ = nullptr; o.host_ = nullptr; o.size_ = 0; o.owner_ = 0;
  }
  return *this;
}
struct detail_buffer_access {
  static buffer make(WGPUBuffer h, std::uint64_t size, std::uint64_t owner) { return buffer(h, nullptr, size, owner); }
  static buffer make_host(void* p, std::uint64_t size, std::uint64_t owner) { return buffer(nullptr, p, size, owner); }
};

const char* backend_choice_name(backend_choice b) {
  switch (b) {
    case backend_choice::automatic: return "automatic";
    case backend_choice::webgpu: return "webgpu";
    case backend_choice::native: return "native";
  }
  return "?";
}

const char* adapter_kind_name(adapter_kind k) {
  switch (k) {
    case adapter_kind::discrete_gpu: return "discrete-gpu";
    case adapter_kind::integrated_gpu: return "integrated-gpu";
    case adapter_kind::virtual_gpu: return "virtual-gpu";
    case adapter_kind::cpu: return "cpu";
    case adapter_kind::unknown: return "unknown";
  }
  return "unknown";
}

namespace detail {
std::uint64_t native_buffer_size(WGPUBuffer b) { return b ? wgpuBufferGetSize(b) : 0; }

void context_impl::cycle_error_scope(bool reopen) {
  struct popped { bool done = false; WGPUErrorType type = WGPUErrorType_NoError; std::string msg; };
  auto st = std::make_shared<popped>();
  WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView msg, void* u1, void*) {
    auto* owner = static_cast<std::shared_ptr<popped>*>(u1);
    (*owner)->done = true;
    (*owner)->type = type;
    (*owner)->msg = one_line(str(msg));
    delete owner;
  };
  cb.userdata1 = new std::shared_ptr<popped>(st);
  wgpuDevicePopErrorScope(device, cb);
  if (!st->done) wgpuDevicePoll(device, false, nullptr);
  if (st->done && st->type != WGPUErrorType_NoError)
    record_error(st->type == WGPUErrorType_OutOfMemory ? errc::out_of_memory : errc::gpu, st->msg);
  if (reopen) wgpuDevicePushErrorScope(device, WGPUErrorFilter_Validation);
}

namespace {
std::uint64_t next_context_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}
// The algorithms bind at most this many bytes at once: a multiple of 2^20 (and so of every offset alignment)
// so that chunks of an array start on aligned offsets.
void apply_binding_limit(context_impl& s, std::uint64_t override_bytes) {
  std::uint64_t bl = s.device_binding_limit;
  if (override_bytes) bl = std::min(bl, override_bytes);
  std::uint64_t granule = bl >= (1u << 20) ? (1u << 20) : 1024;
  s.binding_limit = bl / granule * granule;
  if (s.binding_limit < 1024) throw error(errc::unsupported, "the adapter's storage binding limit is too small");
}
void read_limits(context_impl& s) {
  WGPULimits got = WGPU_LIMITS_INIT;
  wgpuDeviceGetLimits(s.device, &got);
  auto& L = s.limits;
  L.max_storage_buffer_binding_size = got.maxStorageBufferBindingSize;
  L.max_buffer_size = got.maxBufferSize;
  L.max_compute_workgroup_storage_size = got.maxComputeWorkgroupStorageSize;
  L.max_compute_invocations_per_workgroup = got.maxComputeInvocationsPerWorkgroup;
  L.max_compute_workgroup_size_x = got.maxComputeWorkgroupSizeX;
  L.max_compute_workgroups_per_dimension = got.maxComputeWorkgroupsPerDimension;
  L.min_storage_buffer_offset_alignment = got.minStorageBufferOffsetAlignment;
  L.min_uniform_buffer_offset_alignment = got.minUniformBufferOffsetAlignment;
  L.max_storage_buffers_per_shader_stage = got.maxStorageBuffersPerShaderStage;
  s.uniform_align = std::max<std::uint32_t>(256, got.minUniformBufferOffsetAlignment);
  const bool imm = !env::immediates_off() &&
                   wgpuDeviceHasFeature(s.device, static_cast<WGPUFeatureName>(WGPUNativeFeature_Immediates));
  s.max_immediate = imm && got.maxImmediateSize != WGPU_LIMIT_U32_UNDEFINED ? std::min<std::uint32_t>(got.maxImmediateSize, 256) : 0;
  s.features.immediates = s.max_immediate > 0;
  s.mappable_primary = !env::mapped_result_off() &&
                       wgpuDeviceHasFeature(s.device, static_cast<WGPUFeatureName>(WGPUNativeFeature_MappablePrimaryBuffers));
  s.device_binding_limit = std::min<std::uint64_t>(L.max_storage_buffer_binding_size, L.max_buffer_size);
  apply_binding_limit(s, 0);
}
double checked_timeout(double t) {
  if (const std::optional<double> env = env::timeout_s()) return *env;  // WGPRIM_TIMEOUT_S
  if (!(t > 0) || !std::isfinite(t)) throw error(errc::invalid_argument, "timeout_s must be a positive number of seconds");
  return t;
}
}  // namespace
}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// context

std::string context::wgpu_version() {
  std::uint32_t v = wgpuGetVersion();
  return std::to_string(v >> 24) + "." + std::to_string((v >> 16) & 0xff) + "." + std::to_string((v >> 8) & 0xff) +
         "." + std::to_string(v & 0xff);
}

std::vector<adapter_info> context::enumerate_adapters() {
  WGPUInstance inst = make_instance();
  std::vector<adapter_info> out;
  for (auto& a : list(inst)) { out.push_back(a.info); wgpuAdapterRelease(a.handle); }
  wgpuInstanceRelease(inst);
  return out;
}

namespace {
// The native CPU backend's context: no WebGPU objects; limits that describe host memory (no binding limit, any
// 4-byte offset) so that code reading them does not mistake it for a tiny device.
void make_native(detail::context_impl& s) {
  s.native = true;
  s.info = adapter_info{};
  const detail::native_description d = detail::describe_native_backend();
  s.info.name = d.name;
  s.info.vendor = "wgprim";
  s.info.architecture = d.architecture;
  s.info.driver = d.driver;
  s.info.backend = "native";
  s.info.type = "cpu";
  s.info.kind = adapter_kind::cpu;
  auto& L = s.limits;
  L.max_storage_buffer_binding_size = L.max_buffer_size = std::uint64_t(1) << 48;
  L.min_storage_buffer_offset_alignment = L.min_uniform_buffer_offset_alignment = 4;
  // WebGPU's defaults for the compute limits, never zero: code that sizes a grid before it reaches the
  // recorder (and its errc::unsupported) must not divide by zero.
  L.max_compute_workgroup_storage_size = 16384;
  L.max_compute_invocations_per_workgroup = 256;
  L.max_compute_workgroup_size_x = 256;
  L.max_compute_workgroups_per_dimension = 65535;
  L.max_storage_buffers_per_shader_stage = 8;
  s.device_binding_limit = L.max_buffer_size;
  s.binding_limit = L.max_buffer_size;
}
bool names_native(const std::string& want) {
  const std::string w = lower(want);
  return w == "cpu" || w == "native";
}
}  // namespace

context::context(const context_options& options) : impl_(std::make_unique<detail::context_impl>()) {
  auto& s = *impl_;
  s.id = detail::next_context_id();
  s.link->ctx = this;
  s.timeout_s = detail::checked_timeout(options.timeout_s);

  std::string want = options.adapter;
  if (want.empty())
    want = detail::env::adapter();
  if (names_native(want) && options.backend == backend_choice::webgpu)
    throw error(errc::invalid_argument, "adapter '" + want + "' is the native CPU backend, but backend = webgpu was asked for");
  if (options.backend == backend_choice::native || names_native(want)) {
    make_native(s);
    return;
  }
  if ((wgpuGetVersion() >> 24) != 29)
    throw error(errc::unsupported, "wgprim needs wgpu-native 29.x, found " + wgpu_version());
  s.instance = make_instance();
  auto adapters = list(s.instance);
  // automatic, nothing named: without a GPU, the native backend beats running the WGSL on a CPU adapter.
  if (options.backend == backend_choice::automatic && want.empty() &&
      (adapters.empty() || adapters.front().info.kind == adapter_kind::cpu)) {
    for (auto& a : adapters) wgpuAdapterRelease(a.handle);
    wgpuInstanceRelease(s.instance);
    s.instance = nullptr;
    make_native(s);
    return;
  }
  // "#K": the K-th adapter of the ranked list (0 = the best), for machines with several identical GPUs.
  long index = -1;
  if (want.size() > 1 && want[0] == '#') {
    char* end = nullptr;
    index = std::strtol(want.c_str() + 1, &end, 10);
    if (*end || index < 0) index = -1;
  }
  std::string names;
  long k = -1;
  for (auto& a : adapters) {
    ++k;
    if (!s.adapter && (index >= 0 ? k == index
                                  : want.empty() || lower(a.info.name).find(lower(want)) != std::string::npos)) {
      s.adapter = a.handle;
      s.info = a.info;
    } else {
      wgpuAdapterRelease(a.handle);
    }
    names += (names.empty() ? "" : ", ") + a.info.name + " (" + a.info.backend + ")";
  }
  if (!s.adapter) {
    if (adapters.empty())
      throw error(errc::no_adapter,
                  "no WebGPU adapter found (is a Vulkan driver installed? on a machine without a GPU install "
                  "mesa-vulkan-drivers for lavapipe)");
    throw error(errc::no_adapter, "no adapter matches '" + detail::excerpt(options.adapter.empty() ? want : options.adapter) +
                                      "'; available: " + names);
  }

  // Features: take the optional ones the algorithms can use, when the adapter has them.
  std::vector<WGPUFeatureName> feats;
  auto take = [&](WGPUFeatureName f) {
    if (wgpuAdapterHasFeature(s.adapter, f)) { feats.push_back(f); return true; }
    return false;
  };
  s.features.timestamp_query = take(WGPUFeatureName_TimestampQuery);
  s.features.shader_f16 = take(WGPUFeatureName_ShaderF16);
  s.features.subgroups = take(WGPUFeatureName_Subgroups);
  if (!s.features.subgroups) s.features.subgroups = take(static_cast<WGPUFeatureName>(WGPUNativeFeature_Subgroup));
  if (s.features.subgroups)
    s.features.subgroup_barrier = take(static_cast<WGPUFeatureName>(WGPUNativeFeature_SubgroupBarrier));
  // 64-bit elements (naga needs no `enable` for them in 29.x; the features turn on its FLOAT64 / SHADER_INT64
  // capabilities).
  s.features.shader_f64 = take(static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderF64));
  s.features.shader_int64 = take(static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderInt64));
  // Immediate data (push constants) for the kernels' parameter blocks; WGPRIM_IMMEDIATES=0 keeps them in a
  // uniform ring instead (for comparison).
  if (!detail::env::immediates_off()) take(static_cast<WGPUFeatureName>(WGPUNativeFeature_Immediates));
  // Storage buffers the host can map: a reduce's result is read straight from where its kernel wrote it
  // (WGPRIM_MAPPED_RESULT=0: copied into a staging buffer as on the web).
  if (!detail::env::mapped_result_off()) take(static_cast<WGPUFeatureName>(WGPUNativeFeature_MappablePrimaryBuffers));

  // Limits: ask for everything the adapter allows (a zeroed WGPULimits would mean "0", not "default").
  WGPULimits lim = WGPU_LIMITS_INIT;
  if (wgpuAdapterGetLimits(s.adapter, &lim) != WGPUStatus_Success)
    throw error(errc::gpu, "could not read the adapter's limits");

  WGPUDeviceDescriptor dd = WGPU_DEVICE_DESCRIPTOR_INIT;
  dd.requiredFeatureCount = feats.size();
  dd.requiredFeatures = feats.data();
  dd.requiredLimits = &lim;
  dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  dd.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason, WGPUStringView msg,
                                          void* u1, void*) {
    auto* st = static_cast<detail::context_impl*>(u1);
    if (reason == WGPUDeviceLostReason_CallbackCancelled) return;
    std::lock_guard<std::mutex> g(st->mu);
    st->lost = true;
    st->lost_message = reason == WGPUDeviceLostReason_Destroyed ? "device destroyed" : one_line(str(msg));
  };
  dd.deviceLostCallbackInfo.userdata1 = &s;
  dd.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType type, WGPUStringView msg, void* u1,
                                               void*) {
    auto* st = static_cast<detail::context_impl*>(u1);
    errc code = type == WGPUErrorType_OutOfMemory ? errc::out_of_memory : errc::gpu;
    st->record_error(code, one_line(str(msg)));
  };
  dd.uncapturedErrorCallbackInfo.userdata1 = &s;

  struct req { WGPUDevice dev = nullptr; bool done = false; std::string msg; } r;
  WGPURequestDeviceCallbackInfo cb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowSpontaneous;
  cb.callback = [](WGPURequestDeviceStatus status, WGPUDevice dev, WGPUStringView msg, void* u1, void*) {
    auto* rr = static_cast<req*>(u1);
    rr->done = true;
    if (status == WGPURequestDeviceStatus_Success) rr->dev = dev;
    else rr->msg = one_line(str(msg));
  };
  cb.userdata1 = &r;
  wgpuAdapterRequestDevice(s.adapter, &dd, cb);
  if (!r.done) wgpuInstanceProcessEvents(s.instance);
  if (!r.dev) throw error(errc::no_adapter, "could not open a device on " + s.info.name + ": " + r.msg);
  s.device = r.dev;
  s.queue = wgpuDeviceGetQueue(s.device);

  detail::read_limits(s);
  if (s.info.kind == adapter_kind::cpu) s.spin_window = std::chrono::microseconds(50);
  if (const unsigned q = detail::env::queued_calls()) s.open_limit = q;
}

context::~context() = default;
context::context(adopt_tag) {}
context::context(context&& o) noexcept : impl_(std::move(o.impl_)) {
  if (impl_) impl_->link->ctx = this;
}
context& context::operator=(context&& o) noexcept {
  if (this != &o) {
    impl_ = std::move(o.impl_);  // the context this one held, if any, is destroyed: its link goes null
    if (impl_) impl_->link->ctx = this;
  }
  return *this;
}
std::shared_ptr<detail::context_link> context::link() const { return impl().link; }

detail::context_impl& context::impl() {
  if (!impl_) throw error(errc::invalid_argument, "this wgprim::context was moved from; use the context it moved to");
  return *impl_;
}
const detail::context_impl& context::impl() const {
  if (!impl_) throw error(errc::invalid_argument, "this wgprim::context was moved from; use the context it moved to");
  return *impl_;
}
std::uint64_t context::id() const { return impl().id; }
backend_choice context::backend() const { return impl().native ? backend_choice::native : backend_choice::webgpu; }
const adapter_info& context::adapter() const { return impl().info; }
const device_limits& context::limits() const { return impl().limits; }
const device_features& context::features() const { return impl().features; }
bool context::supports(dtype t) const {
  if (impl().native) return dtype_bytes(t) == 4;  // the native backend's loops are 32-bit
  if (t == dtype::f64) return impl().features.shader_f64;
  if (t == dtype::i64 || t == dtype::u64) return impl().features.shader_int64;
  return true;
}
bool context::timestamps_trustworthy() const {
  return impl().features.timestamp_query && impl().info.kind != adapter_kind::cpu;
}
std::uint64_t context::binding_limit() const { return impl().binding_limit; }

context context::from_device(WGPUDevice device, WGPUQueue queue, WGPUAdapter adapter, double timeout_s) {
  if (!device || !queue) throw error(errc::invalid_argument, "context::from_device: null device or queue");
  if ((wgpuGetVersion() >> 24) != 29)
    throw error(errc::unsupported, "wgprim needs wgpu-native 29.x, found " + wgpu_version());
  context c{adopt_tag{}};
  c.impl_ = std::make_unique<detail::context_impl>();
  auto& s = *c.impl_;
  s.link->ctx = &c;
  s.id = detail::next_context_id();
  s.timeout_s = detail::checked_timeout(timeout_s);
  s.external = true;
  s.open_limit = 1;  // the caller may submit to this queue too: each queued call is submitted as it is made
  s.device = device;
  s.queue = queue;
  if (adapter) {
    s.info = read_info(adapter);
  } else {
    s.info.name = "external";
    s.info.type = "unknown";
  }
  s.features.timestamp_query = wgpuDeviceHasFeature(device, WGPUFeatureName_TimestampQuery);
  s.features.shader_f16 = wgpuDeviceHasFeature(device, WGPUFeatureName_ShaderF16);
  s.features.subgroups = wgpuDeviceHasFeature(device, WGPUFeatureName_Subgroups) ||
                         wgpuDeviceHasFeature(device, static_cast<WGPUFeatureName>(WGPUNativeFeature_Subgroup));
  s.features.subgroup_barrier =
      s.features.subgroups &&
      wgpuDeviceHasFeature(device, static_cast<WGPUFeatureName>(WGPUNativeFeature_SubgroupBarrier));
  s.features.shader_f64 = wgpuDeviceHasFeature(device, static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderF64));
  s.features.shader_int64 = wgpuDeviceHasFeature(device, static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderInt64));
  wgpuDevicePushErrorScope(device, WGPUErrorFilter_Validation);
  detail::read_limits(s);
  return c;
}

buffer context::create_buffer(std::uint64_t bytes) {
  auto& s = impl();
  if (s.native) {
    if (bytes > s.limits.max_buffer_size) throw error(errc::limit, "a buffer of " + std::to_string(bytes) + " bytes is too large");
    bytes = std::max<std::uint64_t>(4, (bytes + 3) / 4 * 4);
    void* p = std::calloc(1, bytes);
    if (!p) throw error(errc::out_of_memory, "could not allocate " + std::to_string(bytes) + " bytes of host memory");
    return detail_buffer_access::make_host(p, bytes, s.id);
  }
  s.check();
  if (bytes > s.limits.max_buffer_size)
    throw error(errc::limit, "a buffer of " + std::to_string(bytes) + " bytes exceeds the adapter's maximum of " +
                                 std::to_string(s.limits.max_buffer_size) + " bytes");
  bytes = std::max<std::uint64_t>(4, (bytes + 3) / 4 * 4);
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  // Indirect: a buffer may hold the grid of an indirect dispatch (device counts, src/pipeline).
  d.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst | WGPUBufferUsage_Indirect;
  d.size = bytes;
  WGPUBuffer b = wgpuDeviceCreateBuffer(s.device, &d);
  if (!b) throw error(errc::out_of_memory, "could not allocate " + std::to_string(bytes) + " bytes on the GPU");
  if (!s.registered) {
    std::lock_guard<std::mutex> g(detail::registry_mu());
    detail::registry()[s.id] = &s;
    s.registered = true;
  }
  s.own_buffers.insert(b);
  s.created_since_wait += bytes;
  buffer out = detail_buffer_access::make(b, bytes, s.id);
  s.check(errc::out_of_memory, "allocating " + std::to_string(bytes) + " bytes");
  return out;
}

namespace {
void check_owner(const detail::context_impl& s, const buffer& b) {
  if (!b) throw error(errc::invalid_argument, "an empty (moved-from or default) buffer");
  if (b.owner() != s.id)
    throw error(errc::invalid_argument, "a buffer of another wgprim::context: buffers work only with the context that made them");
}
}  // namespace

void context::write(buffer& dst, std::uint64_t offset, const void* data, std::uint64_t bytes) {
  auto& s = impl();
  s.check();
  check_owner(s, dst);
  if (bytes == 0) return;
  if (offset % 4 || bytes % 4 || offset > dst.size_bytes() || bytes > dst.size_bytes() - offset)
    throw error(errc::invalid_argument, "write out of the buffer's range or not 4-byte aligned");
  if (s.native) {
    std::memcpy(static_cast<char*>(dst.host_data()) + offset, data, bytes);
    return;
  }
  s.flush_open();  // queued calls that use dst run before the write
  wgpuQueueWriteBuffer(s.queue, dst.native(), offset, data, bytes);
  s.check(errc::out_of_memory, "uploading");
}

namespace detail {
const void* map_read(context_impl& s, WGPUBuffer b, std::uint64_t bytes) {
  s.need_webgpu("mapping a GPU buffer");
  // The callback's state is shared with the callback itself: if this wait times out, the callback can still fire
  // later (or on the buffer's destruction) and must not write into a finished stack frame.
  struct st { bool done = false; WGPUMapAsyncStatus status{}; std::string msg; };
  auto m = std::make_shared<st>();
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView msg, void* u1, void*) {
    auto* owner = static_cast<std::shared_ptr<st>*>(u1);
    (*owner)->done = true;
    (*owner)->status = status;
    (*owner)->msg = one_line(str(msg));
    delete owner;
  };
  cb.userdata1 = new std::shared_ptr<st>(m);
  wgpuBufferMapAsync(b, WGPUMapMode_Read, 0, bytes, cb);
  s.wait_until([&](bool) { return m->done; }, "reading back");
  s.check();
  if (m->status != WGPUMapAsyncStatus_Success) throw error(errc::gpu, "reading back from the GPU failed: " + m->msg);
  const void* p = wgpuBufferGetConstMappedRange(b, 0, bytes);
  if (!p) throw error(errc::gpu, "reading back from the GPU failed: no mapped range");
  return p;
}

WGPUBuffer make_raw(context_impl& s, WGPUBufferUsage usage, std::uint64_t bytes) {
  s.need_webgpu("a staging buffer");
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  d.usage = usage;
  d.size = bytes;
  WGPUBuffer b = wgpuDeviceCreateBuffer(s.device, &d);
  if (!b) throw error(errc::out_of_memory, "could not allocate a staging buffer");
  s.check(errc::out_of_memory, "allocating a staging buffer");
  return b;
}
}  // namespace detail
using detail::make_raw;
using detail::map_read;


void context::read(const buffer& src, std::uint64_t offset, void* data, std::uint64_t bytes) {
  auto& s = impl();
  s.check();
  check_owner(s, src);
  if (bytes == 0) return;
  if (offset % 4 || bytes % 4 || offset > src.size_bytes() || bytes > src.size_bytes() - offset)
    throw error(errc::invalid_argument, "read out of the buffer's range or not 4-byte aligned");
  if (s.native) {
    std::memcpy(data, static_cast<const char*>(src.host_data()) + offset, bytes);
    return;
  }
  // Small reads go through the context's persistent staging buffer (no allocation per read); large ones get
  // their own, released at once.
  const bool small = bytes <= (std::uint64_t(1) << 20);
  WGPUBuffer staging = small ? s.staging_for(bytes) : make_raw(s, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, bytes);
  auto drop = [&] {
    if (!small) { wgpuBufferDestroy(staging); wgpuBufferRelease(staging); }
  };
  try {
    WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(s.device, &ed);
    wgpuCommandEncoderCopyBufferToBuffer(enc, src.native(), offset, staging, 0, bytes);
    WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
    WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &cd);
    wgpuCommandEncoderRelease(enc);
    s.check();
    try {
      s.flush_open();  // the queued calls that write src go first
    } catch (...) {
      if (cmd) wgpuCommandBufferRelease(cmd);
      throw;
    }
    wgpuQueueSubmit(s.queue, 1, &cmd);
    wgpuCommandBufferRelease(cmd);
    const void* p = map_read(s, staging, bytes);
    std::memcpy(data, p, bytes);
    wgpuBufferUnmap(staging);
    s.queued = 0;  // the mapping waited for everything submitted
    s.created_since_wait = 0;
    s.idle_known = true;
  } catch (...) {
    drop();
    throw;
  }
  drop();
}

WGPUDevice context::native_device() const { return impl().device; }
WGPUQueue context::native_queue() const { return impl().queue; }

void context::flush() {
  auto& s = impl();
  if (s.native) return;
  s.check();
  s.flush_open();
}

void context::finish() {
  auto& s = impl();
  if (s.native) return;  // the native backend's calls return when their work is done
  s.check();
  s.wait_idle();
  s.check();
}

namespace detail {
WGPUBuffer context_impl::staging_for(std::uint64_t bytes) {
  bytes = std::max<std::uint64_t>(256, (bytes + 255) / 256 * 256);
  if (bytes > staging_bytes) {
    if (staging) wgpuBufferRelease(staging);
    staging = nullptr;
    staging = make_raw(*this, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, bytes);
    staging_bytes = bytes;
  }
  return staging;
}

WGPUBuffer context_impl::mapped_result_for(std::uint64_t bytes) {
  if (!mappable_primary) return nullptr;
  bytes = std::max<std::uint64_t>(256, (bytes + 255) / 256 * 256);
  if (bytes > mapped_result_bytes) {
    if (mapped_result) {
      forget_buffer(mapped_result);
      wgpuBufferRelease(mapped_result);
    }
    mapped_result = nullptr;
    mapped_result = make_raw(*this, WGPUBufferUsage_Storage | WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst |
                                        WGPUBufferUsage_CopySrc, bytes);
    own_buffers.insert(mapped_result);
    mapped_result_bytes = bytes;
  }
  return mapped_result;
}

const buffer& scratch(context& ctx, const std::string& name, std::uint64_t bytes) {
  auto& s = ctx.impl();
  auto it = s.scratch.find(name);
  if (it != s.scratch.end() && it->second.size_bytes() >= bytes) return it->second;
  // Grow by half again, so that a sweep of growing sizes does not allocate every call.
  const std::uint64_t want = std::min<std::uint64_t>(bytes + bytes / 2, s.limits.max_buffer_size);
  buffer b = ctx.create_buffer(std::max<std::uint64_t>({bytes, want, 256}));
  return s.scratch[name] = std::move(b);
}

const buffer& constant_buffer(context& ctx, const void* data, std::uint64_t bytes) {
  if (bytes == 0 || bytes > 65536) throw error(errc::gpu, "internal: constant_buffer takes 1 to 65,536 bytes");
  auto& s = ctx.impl();
  std::string key(static_cast<const char*>(data), bytes);
  auto it = s.constants.find(key);
  if (it != s.constants.end()) return it->second;
  if (s.constants.size() >= 64) s.constants.clear();
  buffer b = ctx.create_buffer((bytes + 3) / 4 * 4);
  ctx.write(b, 0, data, bytes);
  return s.constants.emplace(std::move(key), std::move(b)).first->second;
}

WGPUBuffer mapped_result(context& ctx, std::uint64_t bytes, std::uint64_t& size) {
  auto& s = ctx.impl();
  WGPUBuffer b = s.mapped_result_for(bytes);
  if (b) size = s.mapped_result_bytes;
  return b;
}

bool lookback_stress(const context& ctx) { return ctx.impl().lookback_stress; }

std::uint32_t next_epoch(context& ctx, const std::string& name, bool& restarted) {
  std::uint32_t& e = ctx.impl().epochs[name];
  restarted = e == 0 || e >= (1u << 24) - 1;
  e = restarted ? 1 : e + 1;
  return e;
}

void wgpu_write(context& ctx, WGPUBuffer dst, std::uint64_t offset, const void* data, std::uint64_t bytes) {
  auto& s = ctx.impl();
  s.need_webgpu("a queued write");
  s.check();
  s.flush_open();
  if (bytes) wgpuQueueWriteBuffer(s.queue, dst, offset, data, bytes);
  s.check(errc::out_of_memory, "uploading");
}
}  // namespace detail

WGPUCommandEncoder context::begin_commands() {
  auto& s = impl();
  s.need_webgpu("recording into a command encoder");
  s.check();
  WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
  WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(s.device, &ed);
  s.check(errc::gpu, "creating a command encoder");
  s.own_encoders.insert(enc);
  return enc;
}

namespace detail {
namespace {
// An encoder whose command buffer was made: released once it leaves submitted_encoders, until then a second submit
// of it is recognised.
void remember_submitted(context_impl& s, WGPUCommandEncoder encoder) {
  s.submitted_encoders.push_back(encoder);
  if (s.submitted_encoders.size() > s.submitted_kept) {
    wgpuCommandEncoderRelease(s.submitted_encoders.front());
    s.submitted_encoders.pop_front();
  }
}

// Submits `encoder`'s finished command buffer: the parameter slots of the calls recorded into it uploaded first
// (recorder::end leaves them to this upload), then free for the ring to reuse.
void submit_command_buffer(context_impl& s, WGPUCommandBuffer cmd, WGPUCommandEncoder encoder) {
  s.ring_flush();
  wgpuQueueSubmit(s.queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  s.idle_known = false;
  s.ring_encoders.erase(std::remove(s.ring_encoders.begin(), s.ring_encoders.end(), encoder), s.ring_encoders.end());
  s.check(errc::gpu, "submitting GPU work");
}
}  // namespace
}  // namespace detail

void context::submit(WGPUCommandEncoder encoder) {
  auto& s = impl();
  s.need_webgpu("submitting a command encoder");
  if (!encoder) throw error(errc::invalid_argument, "submit: null command encoder");
  if (s.was_submitted(encoder))
    throw error(errc::invalid_argument, "submit: this command encoder was already submitted (one submit per begin_commands)");
  s.flush_open();  // queued calls made before this submit run before it
  if (s.kept_enc == encoder) s.end_kept_pass();
  s.own_encoders.erase(encoder);
  WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(encoder, &cd);
  detail::remember_submitted(s, encoder);
  try {
    s.check(errc::gpu, "recording GPU work");
  } catch (...) {
    if (cmd) wgpuCommandBufferRelease(cmd);
    throw;
  }
  detail::submit_command_buffer(s, cmd, encoder);
}

namespace detail {
finished_commands finish_commands(context& ctx, WGPUCommandEncoder encoder, WGPUBuffer hold) {
  auto& s = ctx.impl();
  s.need_webgpu("finishing a command encoder");
  if (!encoder || !s.own_encoders.count(encoder))
    throw error(errc::gpu, "internal: finish_commands takes an encoder of begin_commands, not yet submitted");
  if (s.kept_enc == encoder) s.end_kept_pass();
  s.own_encoders.erase(encoder);
  WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
  finished_commands f;
  f.owner = s.id;
  f.cmd = wgpuCommandEncoderFinish(encoder, &cd);
  f.enc = encoder;  // kept (not released) while its ring slots are: ring_encoders knows it by its handle
  if (hold) {
    wgpuBufferAddRef(hold);
    f.held = hold;
  }
  try {
    s.check(errc::gpu, "recording GPU work");
  } catch (...) {
    drop_finished(f);
    throw;
  }
  return f;
}

void submit_finished(context& ctx, finished_commands& f) {
  auto& s = ctx.impl();
  if (!f) throw error(errc::gpu, "internal: submit_finished of nothing");
  s.flush_open();  // queued calls made before this submit run before it
  const finished_commands g = f;
  f = {};
  remember_submitted(s, g.enc);
  if (g.held) wgpuBufferRelease(g.held);  // wgpu keeps it for the work submitted below
  submit_command_buffer(s, g.cmd, g.enc);
}

void drop_finished(finished_commands& f) noexcept {
  if (f.enc) {
    // The context's bookkeeping of the encoder, if the context still lives (found by id, as buffers tell theirs).
    std::lock_guard<std::mutex> g(registry_mu());
    auto it = registry().find(f.owner);
    if (it != registry().end()) {
      context_impl& s = *it->second;
      if (s.kept_enc == f.enc) s.end_kept_pass();  // an encoder dropped before it was finished
      s.ring_encoders.erase(std::remove(s.ring_encoders.begin(), s.ring_encoders.end(), f.enc), s.ring_encoders.end());
      s.own_encoders.erase(f.enc);
    }
  }
  if (f.cmd) wgpuCommandBufferRelease(f.cmd);
  if (f.enc) wgpuCommandEncoderRelease(f.enc);
  if (f.held) wgpuBufferRelease(f.held);
  f = {};
}

bool owns_buffer(const context& ctx, WGPUBuffer b) { return b && ctx.impl().own_buffers.count(b) > 0; }
}  // namespace detail

namespace testing {
void simulate_device_loss(context& ctx) {
  auto& s = ctx.impl();
  s.need_webgpu("simulate_device_loss");
  if (s.external) throw error(errc::invalid_argument, "simulate_device_loss: the device belongs to the caller");
  s.flush_open();
  s.drain(s.timeout_s);
  s.destroyed = true;
  wgpuDeviceDestroy(s.device);
  wgpuDevicePoll(s.device, false, nullptr);
  std::lock_guard<std::mutex> g(s.mu);
  s.lost = true;
  if (s.lost_message.empty()) s.lost_message = "device destroyed";
}
void set_binding_limit(context& ctx, std::uint64_t bytes) {
  if (bytes && (bytes % 256 || bytes < 16384))
    throw error(errc::invalid_argument, "set_binding_limit: a multiple of 256 bytes, at least 16,384");
  detail::apply_binding_limit(ctx.impl(), bytes);
}
void set_lookback_stress(context& ctx, bool on) { ctx.impl().lookback_stress = on; }
}  // namespace testing


}  // namespace wgprim
