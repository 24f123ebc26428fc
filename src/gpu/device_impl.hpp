// Internal to src/gpu/: the state behind a context (device, callbacks, waits, caches) and a recorder, shared by
// the files of this folder. Nothing outside src/gpu/ includes this file or webgpu.h.
#pragma once
#include <webgpu/webgpu.h>
#include <webgpu/wgpu.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu/gpu.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

inline WGPUStringView sv(const std::string& s) { return WGPUStringView{s.data(), s.size()}; }
inline std::string str(WGPUStringView v) {
  if (!v.data) return {};
  return v.length == WGPU_STRLEN ? std::string(v.data) : std::string(v.data, v.length);
}
// Error text from wgpu is multi-line; the CLI prints one line.
inline std::string one_line(std::string s, std::size_t max_len = 600) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string out;
  for (char c : s)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_len) out = out.substr(0, max_len) + "...";
  return out;
}
inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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
  std::map<std::string, buffer> scratch;  // detail::scratch
  WGPUBuffer staging = nullptr;           // MapRead, for results read back with their submission
  std::uint64_t staging_bytes = 0;
  WGPUBuffer staging_for(std::uint64_t bytes);

  void record_error(errc code, const std::string& msg) {
    std::lock_guard<std::mutex> g(mu);
    if (!has_error) { has_error = true; error_code = code; error_message = msg; }
  }
  // A context on a caller's device (context::from_device) cannot install device callbacks: it reads errors of its
  // own work through an error scope, pushed at creation and popped (then pushed again) by every check().
  bool external = false;
  void cycle_error_scope(bool reopen = true);
  std::uint64_t id = 0;
  // The native CPU backend (src/native/): no instance, adapter, device or queue; buffers are host memory.
  bool native = false;
  // Every path into wgpu goes through this first, so that a primitive without a native implementation (or any
  // WebGPU-only call) fails with one clear line instead of calling wgpu on a null device.
  void need_webgpu(const char* what) const {
    if (native)
      throw error(errc::unsupported, std::string(what) +
                                         " needs a WebGPU device; this context runs the native CPU backend "
                                         "(use --adapter llvmpipe or context_options::backend = webgpu)");
  }
  std::uint64_t device_binding_limit = 0;  // before testing::set_binding_limit
  bool lookback_stress = false;             // testing::set_lookback_stress
  // Throws the first error the device reported since the last check.
  void check(errc fallback = errc::gpu, const std::string& what = "") {
    if (external && !lost) cycle_error_scope();
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
  std::chrono::microseconds spin_window{2000};  // 50 us on CPU adapters
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
      // Spin (small dispatches finish in microseconds; a sleeping wait costs tens of microseconds of wake-up on
      // the H200 host, see bench/floor), then back off to at most 1 ms between polls. A CPU adapter's worker
      // threads need the cores, so there the spin is short.
      if (now - start < spin_window) {
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
    scratch.clear();
    if (staging) wgpuBufferRelease(staging);
    // Releasing a device while its work still runs aborts inside wgpu-native, so work in flight (after a
    // timeout) gets another bounded wait; if it still runs, the device is leaked rather than the process lost.
    if (device && !destroyed && !drain(std::max(timeout_s, 10.0))) return;
    if (external) {
      // The caller's device: close our error scope, leave the device and queue to their owner.
      if (!lost) cycle_error_scope(/*reopen=*/false);
      return;
    }
    if (queue) wgpuQueueRelease(queue);
    if (device) {
      if (!destroyed) wgpuDeviceDestroy(device);
      wgpuDeviceRelease(device);
    }
    if (adapter) wgpuAdapterRelease(adapter);
    if (instance) wgpuInstanceRelease(instance);
  }
};


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

  // Parameter blocks go up through the queue, ordered before the submit that uses them.
  void upload_params(context_impl& c) {
    for (std::size_t i = 0; i < param_buffers.size(); ++i) {
      std::uint64_t used = i + 1 == param_buffers.size() ? param_used : param_buffer_bytes;
      wgpuQueueWriteBuffer(c.queue, param_buffers[i], 0, param_data[i].data(), used);
    }
  }
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

// Maps a MapRead buffer and waits; returns the mapped pointer or throws.
const void* map_read(context_impl& s, WGPUBuffer b, std::uint64_t bytes);
WGPUBuffer make_raw(context_impl& s, WGPUBufferUsage usage, std::uint64_t bytes);
WGPUShaderModule make_module(context_impl& s, const std::string& source, bool trusted, const std::string& what);
WGPUBindGroupLayout make_layout(context_impl& s, std::vector<WGPUBindGroupLayoutEntry>& entries);
WGPUPipelineLayout make_pipeline_layout(context_impl& s, WGPUBindGroupLayout* group);

// A cache key: the entry points, a layout tag, and the source.
template <class Slot>
std::string cache_key(const std::string& head, const std::vector<Slot>& layout, const std::string& source) {
  std::string key = head + "|";
  for (Slot sl : layout) key += static_cast<char>('0' + static_cast<int>(sl));
  return key + "|" + source;
}

}  // namespace wgprim::detail
