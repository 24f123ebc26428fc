// The one file that talks to webgpu.h / wgpu.h. When wgpu-native's API changes, this is what changes.
#include <webgpu/webgpu.h>
#include <webgpu/wgpu.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include "gpu.hpp"
#include "wgprim/error.hpp"

namespace wgprim {

namespace {

WGPUStringView sv(const std::string& s) { return WGPUStringView{s.data(), s.size()}; }
std::string str(WGPUStringView v) {
  if (!v.data) return {};
  return v.length == WGPU_STRLEN ? std::string(v.data) : std::string(v.data, v.length);
}
// Error text from wgpu is multi-line; the CLI prints one line.
std::string one_line(std::string s, std::size_t max_len = 600) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string out;
  for (char c : s)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_len) out = out.substr(0, max_len) + "...";
  return out;
}
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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
int type_rank(const std::string& t) {
  if (t == "discrete-gpu") return 0;
  if (t == "integrated-gpu") return 1;
  if (t == "unknown") return 2;
  return 3;  // cpu
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
    int tx = type_rank(x.info.type), ty = type_rank(y.info.type);
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
  if (!std::getenv("XDG_RUNTIME_DIR")) {
    std::string dir = "/tmp/wgprim-runtime-" + std::to_string(::getuid());
    ::mkdir(dir.c_str(), 0700);
    ::setenv("XDG_RUNTIME_DIR", dir.c_str(), 0);
  }
  WGPUInstanceExtras extras{};
  extras.chain.sType = static_cast<WGPUSType>(WGPUSType_InstanceExtras);
  const char* env = std::getenv("WGPRIM_BACKENDS");
  extras.backends = (env && std::string(env) == "all") ? WGPUInstanceBackend_All : WGPUInstanceBackend_Primary;
  WGPUInstanceDescriptor d = WGPU_INSTANCE_DESCRIPTOR_INIT;
  d.nextInChain = &extras.chain;
  WGPUInstance inst = wgpuCreateInstance(&d);
  if (!inst) throw error(errc::no_adapter, "could not create a WebGPU instance");
  return inst;
}

}  // namespace

namespace detail {

struct kernel {
  WGPUComputePipeline pipeline = nullptr;
  WGPUBindGroupLayout layout = nullptr;
  std::size_t slots = 0;
};

struct render_kernel {
  WGPURenderPipeline pipeline = nullptr;
  WGPUBindGroupLayout layout = nullptr;
  std::vector<rslot> slots;
};

struct context_impl {
  WGPUInstance instance = nullptr;
  WGPUAdapter adapter = nullptr;
  WGPUDevice device = nullptr;
  WGPUQueue queue = nullptr;
  adapter_info info;
  device_limits limits;
  device_features features;
  std::uint64_t binding_limit = 0;
  std::uint32_t uniform_align = 256;

  // Filled by the callbacks; turned into exceptions by check().
  std::mutex mu;
  bool has_error = false;
  errc error_code = errc::gpu;
  std::string error_message;
  bool lost = false;
  std::string lost_message;

  std::map<std::string, std::unique_ptr<kernel>> kernels;
  std::map<std::string, std::unique_ptr<render_kernel>> render_kernels;
  std::vector<WGPUBuffer> param_pool;  // 64 KiB uniform buffers reused by recorders

  void record_error(errc code, const std::string& msg) {
    std::lock_guard<std::mutex> g(mu);
    if (!has_error) { has_error = true; error_code = code; error_message = msg; }
  }
  // Throws the first error the device reported since the last check.
  void check(errc fallback = errc::gpu, const std::string& what = "") {
    std::lock_guard<std::mutex> g(mu);
    if (lost) throw error(errc::device_lost, "the GPU device was lost: " + lost_message);
    if (!has_error) return;
    has_error = false;
    errc code = error_code == errc::gpu ? fallback : error_code;
    throw error(code, (what.empty() ? "" : what + ": ") + error_message);
  }
  // No wait on the GPU is unbounded: wgpuDevicePoll(wait = true) has no timeout, so this polls without
  // blocking, yielding, then sleeping, until `ready` says so or the deadline passes. A timed-out device is in an
  // unknown state: the context is marked lost (a new context works).
  double timeout_s = 120;
  template <class Ready>
  void wait_until(Ready ready, const char* what) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto deadline = start + std::chrono::duration<double>(timeout_s);
    auto nap = std::chrono::microseconds(10);
    for (;;) {
      bool empty = wgpuDevicePoll(device, false, nullptr);
      check();
      if (ready(empty)) return;
      auto now = clock::now();
      if (now > deadline) {
        std::lock_guard<std::mutex> g(mu);
        lost = true;
        lost_message = std::string("timed out after ") + std::to_string(timeout_s) + " s " + what;
        throw error(errc::timeout, "GPU work did not finish within " + std::to_string(timeout_s) + " s (" + what +
                                       "); set WGPRIM_TIMEOUT_S to allow longer");
      }
      // Spin briefly (small dispatches finish in microseconds), then back off to at most 1 ms between polls so
      // that a CPU adapter's worker threads keep the cores.
      if (now - start < std::chrono::microseconds(50)) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(nap);
        nap = std::min(nap * 2, std::chrono::microseconds(1000));
      }
    }
  }
  // Work-done callbacks count into the context itself, not into a caller's stack frame: a wait that times out
  // returns while its callback is still pending, and that callback may fire during a later poll.
  std::uint64_t done_requested = 0, done_seen = 0;
  std::uint64_t request_work_done() {
    WGPUQueueWorkDoneCallbackInfo cb = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = [](WGPUQueueWorkDoneStatus, WGPUStringView, void* u1, void*) {
      ++static_cast<context_impl*>(u1)->done_seen;
    };
    cb.userdata1 = this;
    wgpuQueueOnSubmittedWorkDone(queue, cb);
    return ++done_requested;
  }

  // Waits for everything submitted so far: the queue's work-done callback fires inside a poll once it is done
  // (poll's own "queue empty" answer can come before the work has run).
  void wait_idle() {
    if (lost) return;
    const std::uint64_t ticket = request_work_done();
    wait_until([&](bool) { return done_seen >= ticket; }, "waiting for submitted work");
  }

  // Waits (bounded, ignoring errors) until submitted work has finished; false if it did not in time.
  bool drain(double seconds) {
    const std::uint64_t ticket = request_work_done();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (done_seen < ticket && std::chrono::steady_clock::now() < deadline) {
      wgpuDevicePoll(device, false, nullptr);
      if (done_seen < ticket) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return done_seen >= ticket;
  }

  bool destroyed = false;  // by simulate_device_loss

  ~context_impl() {
    for (auto& kv : kernels) {
      wgpuComputePipelineRelease(kv.second->pipeline);
      wgpuBindGroupLayoutRelease(kv.second->layout);
    }
    for (auto& kv : render_kernels) {
      wgpuRenderPipelineRelease(kv.second->pipeline);
      wgpuBindGroupLayoutRelease(kv.second->layout);
    }
    for (WGPUBuffer b : param_pool) wgpuBufferRelease(b);
    // Releasing a device while its work still runs aborts inside wgpu-native, so work in flight (after a
    // timeout) gets another bounded wait; if it still runs, the device is leaked rather than the process lost.
    if (device && !destroyed && !drain(std::max(timeout_s, 10.0))) return;
    if (queue) wgpuQueueRelease(queue);
    if (device) {
      if (!destroyed) wgpuDeviceDestroy(device);
      wgpuDeviceRelease(device);
    }
    if (adapter) wgpuAdapterRelease(adapter);
    if (instance) wgpuInstanceRelease(instance);
  }
};

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// buffer

// Release, not destroy: wgpu keeps a released buffer alive while recorded or submitted work still uses it, so
// dropping a buffer early can never invalidate a command buffer (a destroyed one makes the submit fatal).
buffer::~buffer() {
  if (handle_) wgpuBufferRelease(handle_);
}
buffer& buffer::operator=(buffer&& o) noexcept {
  if (this != &o) {
    if (handle_) wgpuBufferRelease(handle_);
    handle_ = o.handle_; size_ = o.size_;
    o.handle_ = nullptr; o.size_ = 0;
  }
  return *this;
}
struct detail_buffer_access {
  static buffer make(WGPUBuffer h, std::uint64_t size) { return buffer(h, size); }
};

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

context::context(const context_options& options) : impl_(std::make_unique<detail::context_impl>()) {
  auto& s = *impl_;
  s.timeout_s = options.timeout_s;
  if (const char* t = std::getenv("WGPRIM_TIMEOUT_S")) {
    char* end = nullptr;
    double v = std::strtod(t, &end);
    if (end == t || *end || !(v > 0)) throw error(errc::invalid_argument, "WGPRIM_TIMEOUT_S must be a positive number");
    s.timeout_s = v;
  }
  if ((wgpuGetVersion() >> 24) != 29)
    throw error(errc::unsupported, "wgprim needs wgpu-native 29.x, found " + wgpu_version());
  s.instance = make_instance();

  std::string want = options.adapter;
  if (want.empty())
    if (const char* env = std::getenv("WGPRIM_ADAPTER")) want = env;
  auto adapters = list(s.instance);
  std::string names;
  for (auto& a : adapters) {
    if (!s.adapter && (want.empty() || lower(a.info.name).find(lower(want)) != std::string::npos)) {
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
    throw error(errc::no_adapter, "no adapter matches '" + want + "'; available: " + names);
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

  // The algorithms bind at most this many bytes at once: a multiple of 2^20 (and so of every offset alignment)
  // so that chunks of an array start on aligned offsets.
  std::uint64_t bl = std::min<std::uint64_t>(L.max_storage_buffer_binding_size, L.max_buffer_size);
  if (options.max_binding_override) bl = std::min(bl, options.max_binding_override);
  std::uint64_t granule = bl >= (1u << 20) ? (1u << 20) : 1024;
  s.binding_limit = bl / granule * granule;
  if (s.binding_limit < 1024) throw error(errc::unsupported, "the adapter's storage binding limit is too small");
}

context::~context() = default;
context::context(context&&) noexcept = default;
context& context::operator=(context&&) noexcept = default;

const adapter_info& context::adapter() const { return impl_->info; }
const device_limits& context::limits() const { return impl_->limits; }
const device_features& context::features() const { return impl_->features; }
bool context::timestamps_trustworthy() const { return impl_->features.timestamp_query && impl_->info.type != "cpu"; }
std::uint64_t context::binding_limit() const { return impl_->binding_limit; }

buffer context::create_buffer(std::uint64_t bytes) {
  auto& s = *impl_;
  s.check();
  bytes = std::max<std::uint64_t>(4, (bytes + 3) / 4 * 4);
  if (bytes > s.limits.max_buffer_size)
    throw error(errc::limit, "a buffer of " + std::to_string(bytes) + " bytes exceeds the adapter's maximum of " +
                                 std::to_string(s.limits.max_buffer_size) + " bytes");
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  d.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
  d.size = bytes;
  WGPUBuffer b = wgpuDeviceCreateBuffer(s.device, &d);
  if (!b) throw error(errc::out_of_memory, "could not allocate " + std::to_string(bytes) + " bytes on the GPU");
  buffer out = detail_buffer_access::make(b, bytes);
  s.check(errc::out_of_memory, "allocating " + std::to_string(bytes) + " bytes");
  return out;
}

void context::write(buffer& dst, std::uint64_t offset, const void* data, std::uint64_t bytes) {
  auto& s = *impl_;
  s.check();
  if (bytes == 0) return;
  if (offset % 4 || bytes % 4 || offset + bytes > dst.size_bytes())
    throw error(errc::invalid_argument, "write out of the buffer's range or not 4-byte aligned");
  wgpuQueueWriteBuffer(s.queue, dst.native(), offset, data, bytes);
  s.check(errc::out_of_memory, "uploading");
}

namespace {
// Maps a MapRead buffer and waits; returns the mapped pointer or throws.
const void* map_read(detail::context_impl& s, WGPUBuffer b, std::uint64_t bytes) {
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

WGPUBuffer make_raw(detail::context_impl& s, WGPUBufferUsage usage, std::uint64_t bytes) {
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  d.usage = usage;
  d.size = bytes;
  WGPUBuffer b = wgpuDeviceCreateBuffer(s.device, &d);
  if (!b) throw error(errc::out_of_memory, "could not allocate a staging buffer");
  s.check(errc::out_of_memory, "allocating a staging buffer");
  return b;
}
}  // namespace

void context::read(const buffer& src, std::uint64_t offset, void* data, std::uint64_t bytes) {
  auto& s = *impl_;
  s.check();
  if (bytes == 0) return;
  if (offset % 4 || bytes % 4 || offset + bytes > src.size_bytes())
    throw error(errc::invalid_argument, "read out of the buffer's range or not 4-byte aligned");
  WGPUBuffer staging = make_raw(s, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, bytes);
  try {
    WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(s.device, &ed);
    wgpuCommandEncoderCopyBufferToBuffer(enc, src.native(), offset, staging, 0, bytes);
    WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
    WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &cd);
    wgpuCommandEncoderRelease(enc);
    s.check();
    wgpuQueueSubmit(s.queue, 1, &cmd);
    wgpuCommandBufferRelease(cmd);
    const void* p = map_read(s, staging, bytes);
    std::memcpy(data, p, bytes);
    wgpuBufferUnmap(staging);
  } catch (...) {
    wgpuBufferDestroy(staging); wgpuBufferRelease(staging);
    throw;
  }
  wgpuBufferDestroy(staging); wgpuBufferRelease(staging);
}

WGPUDevice context::native_device() const { return impl_->device; }
WGPUQueue context::native_queue() const { return impl_->queue; }

void context::finish() {
  impl_->check();
  impl_->wait_idle();
  impl_->check();
}

void context::simulate_device_loss() {
  impl_->drain(impl_->timeout_s);
  impl_->destroyed = true;
  wgpuDeviceDestroy(impl_->device);
  wgpuDevicePoll(impl_->device, false, nullptr);
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->lost = true;
  if (impl_->lost_message.empty()) impl_->lost_message = "device destroyed";
}

// ---------------------------------------------------------------------------------------------------------------
// kernels and recording

namespace detail {

namespace {
// Compiles WGSL; a compile error becomes errc::shader naming `what`. `trusted` drops naga's runtime checks.
WGPUShaderModule make_module(context_impl& s, const std::string& source, bool trusted, const std::string& what) {
  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = sv(source);
  WGPUShaderModuleDescriptor md = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  md.nextInChain = &wgsl.chain;
  WGPUShaderModule mod = trusted ? wgpuDeviceCreateShaderModuleTrusted(s.device, &md, WGPUShaderRuntimeChecks_None)
                                 : wgpuDeviceCreateShaderModule(s.device, &md);
  try {
    s.check(errc::shader, what + " failed to compile");
  } catch (...) {
    if (mod) wgpuShaderModuleRelease(mod);
    throw;
  }
  return mod;
}

// A cache key: the entry points, a layout tag, and the source.
template <class Slot>
std::string cache_key(const std::string& head, const std::vector<Slot>& layout, const std::string& source) {
  std::string key = head + "|";
  for (Slot sl : layout) key += static_cast<char>('0' + static_cast<int>(sl));
  return key + "|" + source;
}

WGPUBindGroupLayout make_layout(context_impl& s, std::vector<WGPUBindGroupLayoutEntry>& entries) {
  WGPUBindGroupLayoutDescriptor bd = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  bd.entryCount = entries.size();
  bd.entries = entries.data();
  return wgpuDeviceCreateBindGroupLayout(s.device, &bd);
}

WGPUPipelineLayout make_pipeline_layout(context_impl& s, WGPUBindGroupLayout* group) {
  WGPUPipelineLayoutDescriptor pd = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  pd.bindGroupLayoutCount = 1;
  pd.bindGroupLayouts = group;
  return wgpuDeviceCreatePipelineLayout(s.device, &pd);
}
}  // namespace

const kernel& get_kernel(context& ctx, const std::string& source, const std::string& entry,
                         const std::vector<slot>& layout, bool trusted) {
  auto& s = ctx.impl();
  const std::string key = cache_key(entry + (trusted ? "|t" : "|c"), layout, source);
  auto it = s.kernels.find(key);
  if (it != s.kernels.end()) return *it->second;
  s.check();
  WGPUShaderModule mod = make_module(s, source, trusted, "shader '" + entry + "'");

  std::vector<WGPUBindGroupLayoutEntry> entries(layout.size());
  for (std::size_t i = 0; i < layout.size(); ++i) {
    WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
    e.binding = static_cast<std::uint32_t>(i);
    e.visibility = WGPUShaderStage_Compute;
    e.buffer.type = layout[i] == slot::uniform ? WGPUBufferBindingType_Uniform
                    : layout[i] == slot::storage_read ? WGPUBufferBindingType_ReadOnlyStorage
                                                      : WGPUBufferBindingType_Storage;
    entries[i] = e;
  }
  auto k = std::make_unique<kernel>();
  k->slots = layout.size();
  k->layout = make_layout(s, entries);
  WGPUPipelineLayout pl = make_pipeline_layout(s, &k->layout);
  WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  cd.layout = pl;
  cd.compute.module = mod;
  cd.compute.entryPoint = sv(entry);
  k->pipeline = wgpuDeviceCreateComputePipeline(s.device, &cd);
  wgpuPipelineLayoutRelease(pl);
  wgpuShaderModuleRelease(mod);
  try {
    s.check(errc::shader, "pipeline '" + entry + "' could not be created");
  } catch (...) {
    if (k->pipeline) wgpuComputePipelineRelease(k->pipeline);
    wgpuBindGroupLayoutRelease(k->layout);
    throw;
  }
  return *s.kernels.emplace(key, std::move(k)).first->second;
}

struct recorder::state {
  WGPUCommandEncoder enc = nullptr;
  WGPUComputePassEncoder pass = nullptr;
  std::vector<WGPUBindGroup> groups;
  // parameter blocks: one 64 KiB uniform buffer per 256 slots
  static constexpr std::uint64_t param_buffer_bytes = 64 * 1024;
  std::vector<WGPUBuffer> param_buffers;
  std::vector<std::vector<std::uint8_t>> param_data;
  std::uint64_t param_used = param_buffer_bytes;
  bool timestamps = false, first_pass = true, external = false;
  WGPUQuerySet queries = nullptr;
  WGPUBuffer resolve = nullptr, readback = nullptr;

  void close_pass() {
    if (pass) { wgpuComputePassEncoderEnd(pass); wgpuComputePassEncoderRelease(pass); pass = nullptr; }
  }

  // A bind group kept alive until the recorder goes; an invalid binding becomes an error naming `what`.
  WGPUBindGroup make_group(context_impl& c, WGPUBindGroupLayout layout, const std::vector<WGPUBindGroupEntry>& es,
                           const char* what) {
    WGPUBindGroupDescriptor gd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    gd.layout = layout;
    gd.entryCount = es.size();
    gd.entries = es.data();
    WGPUBindGroup g = wgpuDeviceCreateBindGroup(c.device, &gd);
    groups.push_back(g);
    c.check(errc::gpu, what);
    return g;
  }
};

recorder::recorder(context& ctx, bool timestamps) : ctx_(ctx), s_(std::make_unique<state>()) {
  auto& c = ctx.impl();
  c.check();
  WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
  s_->enc = wgpuDeviceCreateCommandEncoder(c.device, &ed);
  s_->timestamps = timestamps && ctx.timestamps_trustworthy();
  if (s_->timestamps) {
    WGPUQuerySetDescriptor qd = WGPU_QUERY_SET_DESCRIPTOR_INIT;
    qd.type = WGPUQueryType_Timestamp;
    qd.count = 2;
    s_->queries = wgpuDeviceCreateQuerySet(c.device, &qd);
    s_->resolve = make_raw(c, WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc, 16);
    s_->readback = make_raw(c, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 16);
  }
}

recorder::recorder(context& ctx, WGPUCommandEncoder external) : ctx_(ctx), s_(std::make_unique<state>()) {
  ctx.impl().check();
  if (!external) throw error(errc::invalid_argument, "null command encoder");
  s_->enc = external;
  s_->external = true;
}

void recorder::end() {
  auto& c = ctx_.impl();
  s_->close_pass();
  for (std::size_t i = 0; i < s_->param_buffers.size(); ++i) {
    std::uint64_t used = i + 1 == s_->param_buffers.size() ? s_->param_used : state::param_buffer_bytes;
    wgpuQueueWriteBuffer(c.queue, s_->param_buffers[i], 0, s_->param_data[i].data(), used);
  }
  c.check(errc::gpu, "recording GPU work");
}

recorder::~recorder() {
  auto& c = ctx_.impl();
  s_->close_pass();
  if (s_->enc && !s_->external) wgpuCommandEncoderRelease(s_->enc);
  for (WGPUBindGroup g : s_->groups) wgpuBindGroupRelease(g);
  // Work in a caller's encoder may run later: its parameter buffers are released (wgpu keeps them alive while
  // the commands need them), not handed to the next recorder.
  for (WGPUBuffer b : s_->param_buffers) {
    if (s_->external) wgpuBufferRelease(b);
    else c.param_pool.push_back(b);
  }
  if (s_->queries) wgpuQuerySetRelease(s_->queries);
  for (WGPUBuffer b : {s_->resolve, s_->readback})
    if (b) { wgpuBufferDestroy(b); wgpuBufferRelease(b); }
}

binding recorder::params(const void* data, std::size_t bytes) {
  auto& c = ctx_.impl();
  const std::uint64_t stride = c.uniform_align;
  if (bytes > stride) throw error(errc::invalid_argument, "parameter block too large");
  if (s_->param_used + stride > state::param_buffer_bytes) {
    WGPUBuffer b;
    if (!c.param_pool.empty()) { b = c.param_pool.back(); c.param_pool.pop_back(); }
    else b = make_raw(c, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, state::param_buffer_bytes);
    s_->param_buffers.push_back(b);
    s_->param_data.emplace_back(state::param_buffer_bytes, 0);
    s_->param_used = 0;
  }
  std::memcpy(s_->param_data.back().data() + s_->param_used, data, bytes);
  binding out{s_->param_buffers.back(), s_->param_used, stride};
  s_->param_used += stride;
  return out;
}

void recorder::dispatch(const kernel& k, std::initializer_list<binding> bindings, std::uint32_t x, std::uint32_t y) {
  auto& c = ctx_.impl();
  if (bindings.size() != k.slots) throw error(errc::gpu, "internal: binding count does not match the kernel");
  if (x == 0 || y == 0) return;
  if (x > c.limits.max_compute_workgroups_per_dimension || y > c.limits.max_compute_workgroups_per_dimension)
    throw error(errc::limit, "internal: dispatch exceeds the workgroups-per-dimension limit");
  if (!s_->pass) {
    WGPUComputePassDescriptor pd = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
    WGPUPassTimestampWrites tw = WGPU_PASS_TIMESTAMP_WRITES_INIT;
    if (s_->timestamps) {
      tw.querySet = s_->queries;
      tw.beginningOfPassWriteIndex = s_->first_pass ? 0 : WGPU_QUERY_SET_INDEX_UNDEFINED;
      tw.endOfPassWriteIndex = 1;
      pd.timestampWrites = &tw;
    }
    s_->first_pass = false;
    s_->pass = wgpuCommandEncoderBeginComputePass(s_->enc, &pd);
  }
  std::vector<WGPUBindGroupEntry> es;
  std::uint32_t i = 0;
  for (const binding& b : bindings) {
    WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
    e.binding = i++;
    e.buffer = b.buf;
    e.offset = b.offset;
    e.size = b.size;
    es.push_back(e);
  }
  WGPUBindGroup g = s_->make_group(c, k.layout, es, "binding buffers");
  wgpuComputePassEncoderSetPipeline(s_->pass, k.pipeline);
  wgpuComputePassEncoderSetBindGroup(s_->pass, 0, g, 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(s_->pass, x, y, 1);
}

void recorder::copy(const buffer& src, std::uint64_t so, const buffer& dst, std::uint64_t dof, std::uint64_t bytes) {
  s_->close_pass();
  if (bytes) wgpuCommandEncoderCopyBufferToBuffer(s_->enc, src.native(), so, dst.native(), dof, bytes);
}


namespace {
WGPUTextureFormat wgpu_format(tex_format f) {
  switch (f) {
    case tex_format::r32float: return WGPUTextureFormat_R32Float;
    case tex_format::r32sint: return WGPUTextureFormat_R32Sint;
    case tex_format::r32uint: return WGPUTextureFormat_R32Uint;
    case tex_format::rgba8unorm: return WGPUTextureFormat_RGBA8Unorm;
  }
  return WGPUTextureFormat_RGBA8Unorm;
}
}  // namespace

texture::texture(context& ctx, std::uint32_t width, std::uint32_t height, tex_format format)
    : w_(width), h_(height), f_(format) {
  auto& c = ctx.impl();
  c.check();
  WGPULimits lim = WGPU_LIMITS_INIT;
  wgpuDeviceGetLimits(c.device, &lim);
  if (width == 0 || height == 0 || width > lim.maxTextureDimension2D || height > lim.maxTextureDimension2D)
    throw error(errc::limit, "a " + std::to_string(width) + "x" + std::to_string(height) +
                                 " texture exceeds the adapter's limit of " + std::to_string(lim.maxTextureDimension2D));
  WGPUTextureDescriptor d = WGPU_TEXTURE_DESCRIPTOR_INIT;
  d.usage = WGPUTextureUsage_RenderAttachment | WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopySrc |
            WGPUTextureUsage_CopyDst;
  d.dimension = WGPUTextureDimension_2D;
  d.size = {width, height, 1};
  d.format = wgpu_format(format);
  d.mipLevelCount = 1;
  d.sampleCount = 1;
  WGPUTexture t = wgpuDeviceCreateTexture(c.device, &d);
  c.check(errc::out_of_memory, "creating a texture");
  tex_ = t;
  view_ = wgpuTextureCreateView(t, nullptr);
}

texture::~texture() {
  if (view_) wgpuTextureViewRelease(static_cast<WGPUTextureView>(view_));
  if (tex_) wgpuTextureRelease(static_cast<WGPUTexture>(tex_));
}

texture& texture::operator=(texture&& o) noexcept {
  if (this != &o) {
    if (view_) wgpuTextureViewRelease(static_cast<WGPUTextureView>(view_));
    if (tex_) wgpuTextureRelease(static_cast<WGPUTexture>(tex_));
    tex_ = o.tex_; view_ = o.view_; w_ = o.w_; h_ = o.h_; f_ = o.f_;
    o.tex_ = o.view_ = nullptr;
  }
  return *this;
}

const render_kernel& get_render_kernel(context& ctx, const std::string& source, const std::string& vs_entry,
                                       const std::string& fs_entry, const std::vector<rslot>& layout,
                                       tex_format target) {
  auto& s = ctx.impl();
  const std::string key =
      cache_key(vs_entry + "|" + fs_entry + "|" + std::to_string(static_cast<int>(target)), layout, source);
  auto it = s.render_kernels.find(key);
  if (it != s.render_kernels.end()) return *it->second;
  s.check();
  WGPUShaderModule mod = make_module(s, source, false, "shader '" + vs_entry + "/" + fs_entry + "'");
  std::vector<WGPUBindGroupLayoutEntry> entries(layout.size());
  for (std::size_t i = 0; i < layout.size(); ++i) {
    WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
    e.binding = static_cast<std::uint32_t>(i);
    e.visibility = WGPUShaderStage_Vertex | WGPUShaderStage_Fragment;
    switch (layout[i]) {
      case rslot::uniform: e.buffer.type = WGPUBufferBindingType_Uniform; break;
      case rslot::storage_read: e.buffer.type = WGPUBufferBindingType_ReadOnlyStorage; break;
      case rslot::texture_float:
      case rslot::texture_sint:
      case rslot::texture_uint:
        e.visibility = WGPUShaderStage_Fragment;
        e.texture.sampleType = layout[i] == rslot::texture_float ? WGPUTextureSampleType_UnfilterableFloat
                               : layout[i] == rslot::texture_sint ? WGPUTextureSampleType_Sint
                                                                  : WGPUTextureSampleType_Uint;
        e.texture.viewDimension = WGPUTextureViewDimension_2D;
        break;
    }
    entries[i] = e;
  }
  auto k = std::make_unique<render_kernel>();
  k->slots = layout;
  k->layout = make_layout(s, entries);
  WGPUPipelineLayout pl = make_pipeline_layout(s, &k->layout);
  WGPUColorTargetState ct = WGPU_COLOR_TARGET_STATE_INIT;
  ct.format = wgpu_format(target);
  ct.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = mod;
  fs.entryPoint = sv(fs_entry);
  fs.targetCount = 1;
  fs.targets = &ct;
  WGPURenderPipelineDescriptor rd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  rd.layout = pl;
  rd.vertex.module = mod;
  rd.vertex.entryPoint = sv(vs_entry);
  rd.primitive.topology = WGPUPrimitiveTopology_TriangleStrip;
  rd.multisample.count = 1;
  rd.multisample.mask = 0xffffffffu;
  rd.fragment = &fs;
  k->pipeline = wgpuDeviceCreateRenderPipeline(s.device, &rd);
  wgpuPipelineLayoutRelease(pl);
  wgpuShaderModuleRelease(mod);
  try {
    s.check(errc::shader, "render pipeline '" + vs_entry + "/" + fs_entry + "' could not be created");
  } catch (...) {
    if (k->pipeline) wgpuRenderPipelineRelease(k->pipeline);
    wgpuBindGroupLayoutRelease(k->layout);
    throw;
  }
  return *s.render_kernels.emplace(key, std::move(k)).first->second;
}

void recorder::draw(const render_kernel& k, std::initializer_list<rbinding> bindings, const texture& target,
                    const double clear[4], std::uint32_t vertices, std::uint32_t instances) {
  auto& c = ctx_.impl();
  if (bindings.size() != k.slots.size()) throw error(errc::gpu, "internal: binding count does not match");
  s_->close_pass();
  std::vector<WGPUBindGroupEntry> es;
  std::uint32_t i = 0;
  for (const rbinding& b : bindings) {
    WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
    e.binding = i++;
    if (b.tex) {
      e.textureView = static_cast<WGPUTextureView>(b.tex->native_view());
    } else {
      e.buffer = b.buf.buf;
      e.offset = b.buf.offset;
      e.size = b.buf.size;
    }
    es.push_back(e);
  }
  WGPUBindGroup g = s_->make_group(c, k.layout, es, "binding render resources");
  WGPURenderPassColorAttachment ca = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
  ca.view = static_cast<WGPUTextureView>(target.native_view());
  ca.depthSlice = WGPU_DEPTH_SLICE_UNDEFINED;
  ca.loadOp = WGPULoadOp_Clear;
  ca.storeOp = WGPUStoreOp_Store;
  ca.clearValue = {clear[0], clear[1], clear[2], clear[3]};
  WGPURenderPassDescriptor rp = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
  rp.colorAttachmentCount = 1;
  rp.colorAttachments = &ca;
  WGPURenderPassEncoder pass = wgpuCommandEncoderBeginRenderPass(s_->enc, &rp);
  wgpuRenderPassEncoderSetPipeline(pass, k.pipeline);
  wgpuRenderPassEncoderSetBindGroup(pass, 0, g, 0, nullptr);
  wgpuRenderPassEncoderDraw(pass, vertices, instances, 0, 0);
  wgpuRenderPassEncoderEnd(pass);
  wgpuRenderPassEncoderRelease(pass);
}

void recorder::copy(const texture& src, const buffer& dst) {
  s_->close_pass();
  WGPUTexelCopyTextureInfo from = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
  from.texture = static_cast<WGPUTexture>(src.native_texture());
  WGPUTexelCopyBufferInfo to = WGPU_TEXEL_COPY_BUFFER_INFO_INIT;
  to.buffer = dst.native();
  to.layout.bytesPerRow = bytes_per_row(src);
  to.layout.rowsPerImage = src.height();
  WGPUExtent3D size = {src.width(), src.height(), 1};
  wgpuCommandEncoderCopyTextureToBuffer(s_->enc, &from, &to, &size);
}

void recorder::clear(const buffer& b, std::uint64_t offset, std::uint64_t bytes) {
  s_->close_pass();
  if (bytes) wgpuCommandEncoderClearBuffer(s_->enc, b.native(), offset, bytes);
}

gpu_time recorder::submit() {
  auto& c = ctx_.impl();
  if (s_->external) throw error(errc::gpu, "internal: submit() on a recorder of an external encoder");
  s_->close_pass();
  bool stamped = s_->timestamps && !s_->first_pass;
  if (stamped) {
    wgpuCommandEncoderResolveQuerySet(s_->enc, s_->queries, 0, 2, s_->resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(s_->enc, s_->resolve, 0, s_->readback, 0, 16);
  }
  WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(s_->enc, &cd);
  wgpuCommandEncoderRelease(s_->enc);
  s_->enc = nullptr;
  try {
    c.check(errc::gpu, "recording GPU work");
  } catch (...) {
    if (cmd) wgpuCommandBufferRelease(cmd);
    throw;
  }
  for (std::size_t i = 0; i < s_->param_buffers.size(); ++i) {
    std::uint64_t used = i + 1 == s_->param_buffers.size() ? s_->param_used : state::param_buffer_bytes;
    wgpuQueueWriteBuffer(c.queue, s_->param_buffers[i], 0, s_->param_data[i].data(), used);
  }
  auto t0 = std::chrono::steady_clock::now();
  wgpuQueueSubmit(c.queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  c.wait_idle();
  auto t1 = std::chrono::steady_clock::now();
  c.check(errc::gpu, "running GPU work");
  gpu_time t;
  t.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (stamped) {
    const void* p = map_read(c, s_->readback, 16);
    std::uint64_t ts[2];
    std::memcpy(ts, p, 16);
    wgpuBufferUnmap(s_->readback);
    double period = wgpuQueueGetTimestampPeriod(c.queue);
    if (ts[1] > ts[0]) {
      t.ms = static_cast<double>(ts[1] - ts[0]) * period / 1e6;
      t.from_timestamps = true;
    }
  }
  return t;
}

}  // namespace detail
}  // namespace wgprim
