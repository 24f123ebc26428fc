// The floor of a call on wgpu-native: what the least possible work costs a caller, measured on webgpu.h + wgpu.h
// alone (no wgprim code), so that wgprim's per-call figures can be put beside it from the same run (issue 11).
//
// Each measurement runs `warmup` discarded calls, then `calls` timed calls (wall clock, steady_clock), and reports
// median, p10, p90, min and mean in microseconds. "spin" waits by calling wgpuDevicePoll(wait = false) in a loop
// until the callback fired; "block" calls wgpuDevicePoll(wait = true) on the submission's index (then spins on the
// rare chance that the callback is still pending). Every call that reads back checks the value it read.
//
//   empty_submit_*      an empty command buffer submitted, then a wait for its work-done callback
//   dispatch_*          one 1-invocation dispatch, work-done wait, nothing read back (what the read-back adds)
//   dispatch_read_*     one dispatch + copy of 4 bytes to a MapRead buffer + mapAsync + read + unmap; the same
//                       MapRead buffer every call, mapAsync issued right after the submit
//   dispatch_read_write_params_spin  as dispatch_read_spin with a 16-byte wgpuQueueWriteBuffer before each call
//   dispatch_read_new_bind_group_spin as dispatch_read_spin with a bind group created (and released) per call
//   dispatch_read_primary_*  the shader writes straight into a STORAGE | MAP_READ buffer (native feature
//                       MappablePrimaryBuffers, where the adapter has it): no copy command, no second buffer
//   reduce_read_*       a sum of 2^20 floats: 256 workgroups write partials, then a second tiny dispatch (one
//                       workgroup) combines them, in the same compute pass; result copied and mapped as above
//   reduce_subgroup_read_*  the same with subgroupAdd in the partials pass (where the adapter has subgroups)
//   reduce_atomic_read_*    one dispatch: each workgroup atomicAdds its sum into one f32 (native feature
//                       ShaderFloat32Atomic), cleared by the same command buffer; no second dispatch
//
// usage: wgprim_floor [--calls 500] [--warmup 20] [--adapter SUBSTRING] [--json]
#include <webgpu/webgpu.h>
#include <webgpu/wgpu.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "floor_wgsl.hpp"  // generated from floor.wgsl: const char* floor_wgsl

namespace {

using clock_type = std::chrono::steady_clock;
constexpr double wait_limit_s = 20;  // a single wait longer than this means the device is stuck

std::string str(WGPUStringView s) {
  if (!s.data) return "";
  return s.length == WGPU_STRLEN ? std::string(s.data) : std::string(s.data, s.length);
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "wgprim_floor: %s\n", msg.c_str());
  std::exit(1);
}

// Errors arrive through callbacks (the defaults would panic and abort across the C boundary); they are recorded
// here and turned into a clean exit after the call that caused them.
struct device_state {
  bool error = false, lost = false;
  std::string message;
} g_state;

void check_device() {
  if (g_state.lost) die("device lost: " + g_state.message);
  if (g_state.error) die("GPU error: " + g_state.message);
}

// blocking polls have no timeout: a stuck device ends the process instead of hanging it.
void on_alarm(int) {
  const char msg[] = "wgprim_floor: a measurement took longer than its time limit; giving up\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  std::_Exit(3);
}

struct gpu {
  WGPUInstance instance = nullptr;
  WGPUAdapter adapter = nullptr;
  WGPUDevice device = nullptr;
  WGPUQueue queue = nullptr;
  std::string adapter_name, backend;
  bool mappable_primary = false, subgroups = false, f32_atomics = false;
};

std::string backend_name(WGPUBackendType t) {
  switch (t) {
    case WGPUBackendType_Vulkan: return "vulkan";
    case WGPUBackendType_Metal: return "metal";
    case WGPUBackendType_D3D12: return "d3d12";
    case WGPUBackendType_OpenGL: return "opengl";
    default: return "other";
  }
}

gpu open_gpu(const std::string& want) {
  if (!std::getenv("XDG_RUNTIME_DIR")) {  // Mesa's WSI warns on every adapter probe without one
    std::string dir = "/tmp/wgprim-runtime-" + std::to_string(::getuid());
    ::mkdir(dir.c_str(), 0700);
    ::setenv("XDG_RUNTIME_DIR", dir.c_str(), 0);
  }
  gpu g;
  WGPUInstanceExtras extras{};
  extras.chain.sType = static_cast<WGPUSType>(WGPUSType_InstanceExtras);
  extras.backends = WGPUInstanceBackend_Primary;
  WGPUInstanceDescriptor id = WGPU_INSTANCE_DESCRIPTOR_INIT;
  id.nextInChain = &extras.chain;
  g.instance = wgpuCreateInstance(&id);
  if (!g.instance) die("could not create a WebGPU instance");

  // All adapters, the first whose name contains `want` (or the first of all).
  const std::size_t count = wgpuInstanceEnumerateAdapters(g.instance, nullptr, nullptr);
  std::vector<WGPUAdapter> all(count);
  if (count) wgpuInstanceEnumerateAdapters(g.instance, nullptr, all.data());
  std::string names;
  for (WGPUAdapter a : all) {
    WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
    wgpuAdapterGetInfo(a, &info);
    std::string name = str(info.device);
    names += (names.empty() ? "" : ", ") + name;
    if (!g.adapter && (want.empty() || name.find(want) != std::string::npos)) {
      g.adapter = a;
      g.adapter_name = name;
      g.backend = backend_name(info.backendType);
    } else {
      wgpuAdapterRelease(a);
    }
    wgpuAdapterInfoFreeMembers(info);
  }
  if (!g.adapter) die(count ? "no adapter matches '" + want + "'; available: " + names : "no WebGPU adapter found");

  // Optional features, each enabling one variant: taken where the adapter has them.
  std::vector<WGPUFeatureName> features;
  auto take = [&](WGPUFeatureName f) {
    if (!wgpuAdapterHasFeature(g.adapter, f)) return false;
    features.push_back(f);
    return true;
  };
  g.mappable_primary = take(static_cast<WGPUFeatureName>(WGPUNativeFeature_MappablePrimaryBuffers));
  g.subgroups = take(WGPUFeatureName_Subgroups) || take(static_cast<WGPUFeatureName>(WGPUNativeFeature_Subgroup));
  g.f32_atomics = take(static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderFloat32Atomic));
  WGPUDeviceDescriptor dd = WGPU_DEVICE_DESCRIPTOR_INIT;
  dd.requiredFeatureCount = features.size();
  dd.requiredFeatures = features.data();
  dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  dd.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason, WGPUStringView msg, void*,
                                          void*) {
    if (reason == WGPUDeviceLostReason_CallbackCancelled || reason == WGPUDeviceLostReason_Destroyed) return;
    g_state.lost = true;
    g_state.message = str(msg);
  };
  dd.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType, WGPUStringView msg, void*, void*) {
    if (!g_state.error) g_state.message = str(msg);
    g_state.error = true;
  };
  struct request { WGPUDevice device = nullptr; std::string message; } r;
  WGPURequestDeviceCallbackInfo cb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowSpontaneous;
  cb.callback = [](WGPURequestDeviceStatus status, WGPUDevice d, WGPUStringView msg, void* u, void*) {
    auto* rr = static_cast<request*>(u);
    if (status == WGPURequestDeviceStatus_Success) rr->device = d;
    else rr->message = str(msg);
  };
  cb.userdata1 = &r;
  wgpuAdapterRequestDevice(g.adapter, &dd, cb);  // fires inside the call in wgpu-native
  if (!r.device) wgpuInstanceProcessEvents(g.instance);
  if (!r.device) die("could not open a device on " + g.adapter_name + ": " + r.message);
  g.device = r.device;
  g.queue = wgpuDeviceGetQueue(g.device);
  return g;
}

WGPUBuffer make_buffer(const gpu& g, WGPUBufferUsage usage, std::uint64_t size) {
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  d.usage = usage;
  d.size = size;
  WGPUBuffer b = wgpuDeviceCreateBuffer(g.device, &d);
  check_device();
  if (!b) die("buffer creation failed");
  return b;
}

WGPUComputePipeline make_pipeline(const gpu& g, WGPUShaderModule module, const char* entry) {
  WGPUComputePipelineDescriptor d = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  d.compute.module = module;
  d.compute.entryPoint = WGPUStringView{entry, WGPU_STRLEN};
  WGPUComputePipeline p = wgpuDeviceCreateComputePipeline(g.device, &d);
  check_device();
  if (!p) die(std::string("pipeline ") + entry + " failed");
  return p;
}

// A pipeline from a module that may not compile on this adapter (optional features): errors are caught by an
// error scope and reported as a reason to skip, instead of ending the program.
WGPUComputePipeline try_pipeline(const gpu& g, const std::string& source, const char* entry, std::string& why) {
  wgpuDevicePushErrorScope(g.device, WGPUErrorFilter_Validation);
  WGPUShaderSourceWGSL src = WGPU_SHADER_SOURCE_WGSL_INIT;
  src.code = WGPUStringView{source.data(), source.size()};
  WGPUShaderModuleDescriptor md = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  md.nextInChain = &src.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(g.device, &md);
  WGPUComputePipeline p = nullptr;
  if (module) {
    WGPUComputePipelineDescriptor d = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    d.compute.module = module;
    d.compute.entryPoint = WGPUStringView{entry, WGPU_STRLEN};
    p = wgpuDeviceCreateComputePipeline(g.device, &d);
  }
  struct scope { bool done = false; std::string error; } sc;
  WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView msg, void* u, void*) {
    auto* s = static_cast<scope*>(u);
    s->done = true;
    if (status != WGPUPopErrorScopeStatus_Success) s->error = "error scope: " + str(msg);
    else if (type != WGPUErrorType_NoError) s->error = str(msg);
  };
  cb.userdata1 = &sc;
  wgpuDevicePopErrorScope(g.device, cb);
  for (int i = 0; !sc.done && i < 1000; ++i) {
    wgpuInstanceProcessEvents(g.instance);
    wgpuDevicePoll(g.device, false, nullptr);
  }
  if (module) wgpuShaderModuleRelease(module);
  check_device();
  if (!sc.done) why = "the error scope never answered";
  else if (!sc.error.empty()) why = sc.error;
  else if (!p) why = "pipeline creation returned null";
  if (!why.empty() && p) {
    wgpuComputePipelineRelease(p);
    p = nullptr;
  }
  return p;
}

WGPUBindGroup make_bind_group(const gpu& g, WGPUComputePipeline p,
                              const std::vector<std::pair<std::uint32_t, WGPUBuffer>>& bufs) {
  std::vector<WGPUBindGroupEntry> entries;
  for (const auto& [binding, buf] : bufs) {
    WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
    e.binding = binding;
    e.buffer = buf;
    e.offset = 0;
    e.size = wgpuBufferGetSize(buf);
    entries.push_back(e);
  }
  WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(p, 0);
  WGPUBindGroupDescriptor d = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  d.layout = layout;
  d.entryCount = entries.size();
  d.entries = entries.data();
  WGPUBindGroup bg = wgpuDeviceCreateBindGroup(g.device, &d);
  wgpuBindGroupLayoutRelease(layout);
  check_device();
  if (!bg) die("bind group creation failed");
  return bg;
}

// ---- waiting --------------------------------------------------------------------------------------------------------

enum class wait_mode { spin, block };

// Polls until *flag is set: without blocking (spin), or blocking on the submission first (block). Bounded.
void wait_for(const gpu& g, const bool* flag, wait_mode mode, WGPUSubmissionIndex index) {
  if (mode == wait_mode::block && !*flag) wgpuDevicePoll(g.device, true, &index);
  const auto deadline = clock_type::now() + std::chrono::duration<double>(wait_limit_s);
  while (!*flag) {
    wgpuDevicePoll(g.device, false, nullptr);
    check_device();
    if (!*flag && clock_type::now() > deadline) die("a wait did not finish within the time limit");
  }
  check_device();
}

void wait_work_done(const gpu& g, wait_mode mode, WGPUSubmissionIndex index) {
  bool done = false;
  WGPUQueueWorkDoneCallbackInfo cb = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUQueueWorkDoneStatus status, WGPUStringView msg, void* u, void*) {
    if (status != WGPUQueueWorkDoneStatus_Success) die("work-done callback failed: " + str(msg));
    *static_cast<bool*>(u) = true;
  };
  cb.userdata1 = &done;
  wgpuQueueOnSubmittedWorkDone(g.queue, cb);
  wait_for(g, &done, mode, index);
}

// Maps `bytes` of `buf` for reading, waits, copies them out, unmaps.
void map_read(const gpu& g, WGPUBuffer buf, void* dst, std::size_t bytes, wait_mode mode, WGPUSubmissionIndex index) {
  bool done = false;
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView msg, void* u, void*) {
    if (status != WGPUMapAsyncStatus_Success) die("mapAsync failed: " + str(msg));
    *static_cast<bool*>(u) = true;
  };
  cb.userdata1 = &done;
  wgpuBufferMapAsync(buf, WGPUMapMode_Read, 0, bytes, cb);
  wait_for(g, &done, mode, index);
  const void* p = wgpuBufferGetConstMappedRange(buf, 0, bytes);
  if (!p) die("mapped range is null");
  std::memcpy(dst, p, bytes);
  wgpuBufferUnmap(buf);
}

WGPUSubmissionIndex submit(const gpu& g, WGPUCommandEncoder enc) {
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, nullptr);
  wgpuCommandEncoderRelease(enc);
  WGPUSubmissionIndex index = wgpuQueueSubmitForIndex(g.queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  return index;
}

WGPUCommandEncoder encoder(const gpu& g) { return wgpuDeviceCreateCommandEncoder(g.device, nullptr); }

void dispatch(WGPUCommandEncoder enc, std::initializer_list<std::pair<WGPUComputePipeline, WGPUBindGroup>> steps,
              std::initializer_list<std::uint32_t> groups) {
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, nullptr);
  auto g = groups.begin();
  for (const auto& [pipeline, bind_group] : steps) {
    wgpuComputePassEncoderSetPipeline(pass, pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, bind_group, 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass, *g++, 1, 1);
  }
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
}

// ---- measuring ------------------------------------------------------------------------------------------------------

struct result {
  std::string name;
  double median_us, p10_us, p90_us, min_us, mean_us;
  int calls;
};

result measure(const std::string& name, int warmup, int calls, const std::function<void()>& call) {
  ::alarm(600);
  for (int i = 0; i < warmup; ++i) call();
  std::vector<double> us;
  us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    const auto t0 = clock_type::now();
    call();
    us.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - t0).count());
  }
  ::alarm(0);
  check_device();
  std::vector<double> s = us;
  std::sort(s.begin(), s.end());
  auto at = [&](double q) { return s[static_cast<std::size_t>(q * double(s.size() - 1) + 0.5)]; };
  double sum = 0;
  for (double x : s) sum += x;
  return {name, at(0.5), at(0.1), at(0.9), s.front(), sum / double(s.size()), calls};
}

int parse_int(const char* flag, const char* v, int lo, int hi) {
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (!*v || *end || x < lo || x > hi) die(std::string(flag) + " wants an integer in [" + std::to_string(lo) + ", " +
                                           std::to_string(hi) + "], got '" + v + "'");
  return int(x);
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 500, warmup = 20;
  bool json = false;
  std::string want;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--json") json = true;
    else if (a == "--calls") calls = parse_int("--calls", value(), 1, 1000000);
    else if (a == "--warmup") warmup = parse_int("--warmup", value(), 0, 100000);
    else if (a == "--adapter") want = value();
    else if (a == "--help" || a == "-h") {
      std::printf("usage: wgprim_floor [--calls 500] [--warmup 20] [--adapter SUBSTRING] [--json]\n");
      return 0;
    } else die("unknown argument '" + a + "' (try --help)");
  }
  std::signal(SIGALRM, on_alarm);

  gpu g = open_gpu(want);

  WGPUShaderSourceWGSL src = WGPU_SHADER_SOURCE_WGSL_INIT;
  src.code = WGPUStringView{floor_wgsl, WGPU_STRLEN};
  WGPUShaderModuleDescriptor md = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  md.nextInChain = &src.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(g.device, &md);
  check_device();
  if (!module) die("shader module creation failed");
  WGPUComputePipeline bump = make_pipeline(g, module, "bump");
  WGPUComputePipeline partials_p = make_pipeline(g, module, "reduce_partials");
  WGPUComputePipeline combine_p = make_pipeline(g, module, "reduce_combine");

  const WGPUBufferUsage storage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
  WGPUBuffer counter = make_buffer(g, storage, 256);
  WGPUBuffer readback = make_buffer(g, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 256);
  WGPUBuffer params = make_buffer(g, WGPUBufferUsage_CopyDst | WGPUBufferUsage_Uniform, 256);
  WGPUBindGroup bump_bg = make_bind_group(g, bump, {{0, counter}});

  constexpr std::uint32_t n = 1u << 20, groups = 256;
  std::vector<float> host(n);
  double expected_sum = 0;
  for (std::uint32_t i = 0; i < n; ++i) {  // small integers: every partial and the total are exact in f32
    host[i] = float(i % 8);
    expected_sum += host[i];
  }
  WGPUBuffer data = make_buffer(g, storage, std::uint64_t(n) * 4);
  WGPUBuffer partials = make_buffer(g, storage, (groups + 1) * 4);
  wgpuQueueWriteBuffer(g.queue, data, 0, host.data(), host.size() * 4);
  WGPUBindGroup partials_bg = make_bind_group(g, partials_p, {{0, data}, {1, partials}});
  WGPUBindGroup combine_bg = make_bind_group(g, combine_p, {{1, partials}});

  // The counter's value after the last bump, as the host expects it.
  std::uint32_t expected = 0;
  auto check_counter = [&](std::uint32_t got) {
    ++expected;
    if (got != expected) die("read back " + std::to_string(got) + ", expected " + std::to_string(expected));
  };
  // The counter starts at 0 (buffers are zero-initialised).

  std::vector<result> results;
  for (wait_mode mode : {wait_mode::spin, wait_mode::block}) {
    const std::string suffix = mode == wait_mode::spin ? "_spin" : "_block";
    results.push_back(measure("empty_submit" + suffix, warmup, calls, [&] {
      wait_work_done(g, mode, submit(g, encoder(g)));
    }));
    results.push_back(measure("dispatch" + suffix, warmup, calls, [&] {
      WGPUCommandEncoder enc = encoder(g);
      dispatch(enc, {{bump, bump_bg}}, {1});
      wait_work_done(g, mode, submit(g, enc));
      ++expected;  // not read back here; the next read-back checks the total
    }));
    results.push_back(measure("dispatch_read" + suffix, warmup, calls, [&] {
      WGPUCommandEncoder enc = encoder(g);
      dispatch(enc, {{bump, bump_bg}}, {1});
      wgpuCommandEncoderCopyBufferToBuffer(enc, counter, 0, readback, 0, 4);
      WGPUSubmissionIndex index = submit(g, enc);
      std::uint32_t got = 0;
      map_read(g, readback, &got, 4, mode, index);
      check_counter(got);
    }));
    results.push_back(measure("reduce_read" + suffix, warmup, calls, [&] {
      WGPUCommandEncoder enc = encoder(g);
      dispatch(enc, {{partials_p, partials_bg}, {combine_p, combine_bg}}, {groups, 1});
      wgpuCommandEncoderCopyBufferToBuffer(enc, partials, groups * 4, readback, 0, 4);
      WGPUSubmissionIndex index = submit(g, enc);
      float got = 0;
      map_read(g, readback, &got, 4, mode, index);
      if (double(got) != expected_sum) die("reduce read back " + std::to_string(got) + ", expected " +
                                           std::to_string(expected_sum));
    }));
  }

  // What a library adds on top of the floor: a parameter upload per call, a bind group per call.
  results.push_back(measure("dispatch_read_write_params_spin", warmup, calls, [&] {
    const std::uint32_t p[4] = {expected, n, 0, 0};
    wgpuQueueWriteBuffer(g.queue, params, 0, p, sizeof p);
    WGPUCommandEncoder enc = encoder(g);
    dispatch(enc, {{bump, bump_bg}}, {1});
    wgpuCommandEncoderCopyBufferToBuffer(enc, counter, 0, readback, 0, 4);
    WGPUSubmissionIndex index = submit(g, enc);
    std::uint32_t got = 0;
    map_read(g, readback, &got, 4, wait_mode::spin, index);
    check_counter(got);
  }));
  results.push_back(measure("dispatch_read_new_bind_group_spin", warmup, calls, [&] {
    WGPUBindGroup bg = make_bind_group(g, bump, {{0, counter}});
    WGPUCommandEncoder enc = encoder(g);
    dispatch(enc, {{bump, bg}}, {1});
    wgpuCommandEncoderCopyBufferToBuffer(enc, counter, 0, readback, 0, 4);
    WGPUSubmissionIndex index = submit(g, enc);
    wgpuBindGroupRelease(bg);
    std::uint32_t got = 0;
    map_read(g, readback, &got, 4, wait_mode::spin, index);
    check_counter(got);
  }));

  // Batches (what a recorded batch pays per call on the GPU side): 20 one-workgroup dispatches in one submission,
  // each in its own compute pass, all in one pass, or each after a small clearBuffer (a transfer between passes).
  // The figures are per batch of 20.
  constexpr int batch = 20;
  results.push_back(measure("batch20_passes_spin", warmup, calls, [&] {
    WGPUCommandEncoder enc = encoder(g);
    for (int i = 0; i < batch; ++i) dispatch(enc, {{bump, bump_bg}}, {1});
    wait_work_done(g, wait_mode::spin, submit(g, enc));
    expected += batch;
  }));
  results.push_back(measure("batch20_one_pass_spin", warmup, calls, [&] {
    WGPUCommandEncoder enc = encoder(g);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, nullptr);
    for (int i = 0; i < batch; ++i) {
      wgpuComputePassEncoderSetPipeline(pass, bump);
      wgpuComputePassEncoderSetBindGroup(pass, 0, bump_bg, 0, nullptr);
      wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    }
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    wait_work_done(g, wait_mode::spin, submit(g, enc));
    expected += batch;
  }));
  results.push_back(measure("batch20_clear_passes_spin", warmup, calls, [&] {
    WGPUCommandEncoder enc = encoder(g);
    for (int i = 0; i < batch; ++i) {
      wgpuCommandEncoderClearBuffer(enc, partials, 0, 256);
      dispatch(enc, {{bump, bump_bg}}, {1});
    }
    wait_work_done(g, wait_mode::spin, submit(g, enc));
    expected += batch;
  }));
  {  // one read-back checks the batches' bumps
    WGPUCommandEncoder enc = encoder(g);
    dispatch(enc, {{bump, bump_bg}}, {1});
    wgpuCommandEncoderCopyBufferToBuffer(enc, counter, 0, readback, 0, 4);
    WGPUSubmissionIndex index = submit(g, enc);
    std::uint32_t got = 0;
    map_read(g, readback, &got, 4, wait_mode::spin, index);
    check_counter(got);
  }

  // The shader writes into a mappable buffer itself: no copy, one buffer.
  if (g.mappable_primary) {
    WGPUBuffer mapped_counter = make_buffer(g, WGPUBufferUsage_Storage | WGPUBufferUsage_MapRead, 256);
    WGPUBindGroup mapped_bg = make_bind_group(g, bump, {{0, mapped_counter}});
    std::uint32_t mapped_expected = 0;
    for (wait_mode mode : {wait_mode::spin, wait_mode::block}) {
      results.push_back(measure(std::string("dispatch_read_primary") + (mode == wait_mode::spin ? "_spin" : "_block"),
                                warmup, calls, [&] {
        WGPUCommandEncoder enc = encoder(g);
        dispatch(enc, {{bump, mapped_bg}}, {1});
        WGPUSubmissionIndex index = submit(g, enc);
        std::uint32_t got = 0;
        map_read(g, mapped_counter, &got, 4, mode, index);
        if (got != ++mapped_expected)
          die("primary read back " + std::to_string(got) + ", expected " + std::to_string(mapped_expected));
      }));
    }
    wgpuBindGroupRelease(mapped_bg);
    wgpuBufferRelease(mapped_counter);
  }

  // Other ways to the same reduce: subgroups in the partials pass; a single dispatch with f32 atomics.
  std::vector<std::string> skipped;
  auto skip = [&](const std::string& what, const std::string& why) {
    skipped.push_back(what);
    std::fprintf(stderr, "wgprim_floor: skipped %s: %s\n", what.c_str(), why.c_str());
  };
  auto check_sum = [&](float got) {
    if (double(got) != expected_sum)
      die("reduce read back " + std::to_string(got) + ", expected " + std::to_string(expected_sum));
  };
  if (!g.subgroups) {
    skip("reduce_subgroup", "the adapter has no subgroups");
  } else {
    std::string why;
    WGPUComputePipeline p =
        try_pipeline(g, std::string(floor_wgsl) + floor_subgroup_wgsl, "reduce_partials_subgroup", why);
    if (!p) {
      skip("reduce_subgroup", why);
    } else {
      WGPUBindGroup bg = make_bind_group(g, p, {{0, data}, {1, partials}});
      for (wait_mode mode : {wait_mode::spin, wait_mode::block})
        results.push_back(measure(std::string("reduce_subgroup_read") + (mode == wait_mode::spin ? "_spin" : "_block"),
                                  warmup, calls, [&] {
          WGPUCommandEncoder enc = encoder(g);
          dispatch(enc, {{p, bg}, {combine_p, combine_bg}}, {groups, 1});
          wgpuCommandEncoderCopyBufferToBuffer(enc, partials, groups * 4, readback, 0, 4);
          WGPUSubmissionIndex index = submit(g, enc);
          float got = 0;
          map_read(g, readback, &got, 4, mode, index);
          check_sum(got);
        }));
      wgpuBindGroupRelease(bg);
      wgpuComputePipelineRelease(p);
    }
  }
  if (!g.f32_atomics) {
    skip("reduce_atomic", "the adapter has no f32 atomics (ShaderFloat32Atomic)");
  } else {
    std::string why;
    WGPUComputePipeline p = try_pipeline(g, std::string(floor_wgsl) + floor_atomic_wgsl, "reduce_atomic", why);
    if (!p) {
      skip("reduce_atomic", why);
    } else {
      WGPUBuffer total = make_buffer(g, storage, 256);
      WGPUBindGroup bg = make_bind_group(g, p, {{0, data}, {2, total}});
      for (wait_mode mode : {wait_mode::spin, wait_mode::block})
        results.push_back(measure(std::string("reduce_atomic_read") + (mode == wait_mode::spin ? "_spin" : "_block"),
                                  warmup, calls, [&] {
          WGPUCommandEncoder enc = encoder(g);
          wgpuCommandEncoderClearBuffer(enc, total, 0, 4);
          dispatch(enc, {{p, bg}}, {groups});
          wgpuCommandEncoderCopyBufferToBuffer(enc, total, 0, readback, 0, 4);
          WGPUSubmissionIndex index = submit(g, enc);
          float got = 0;
          map_read(g, readback, &got, 4, mode, index);
          check_sum(got);
        }));
      wgpuBindGroupRelease(bg);
      wgpuBufferRelease(total);
      wgpuComputePipelineRelease(p);
    }
  }

  const std::uint32_t v = wgpuGetVersion();
  char version[32];
  std::snprintf(version, sizeof version, "%u.%u.%u.%u", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
  std::string skipped_list;  // names only: fixed identifiers, no escaping needed
  for (const auto& k : skipped) skipped_list += (skipped_list.empty() ? "\"" : ", \"") + k + "\"";
  if (json) {
    std::printf("{\"adapter\": \"%s\", \"backend\": \"%s\", \"wgpu_native\": \"%s\", \"calls\": %d, \"warmup\": %d, "
                "\"timer\": \"wall (steady_clock)\", \"mappable_primary_buffers\": %s, \"subgroups\": %s, "
                "\"f32_atomics\": %s, \"skipped\": [%s]}\n",
                g.adapter_name.c_str(), g.backend.c_str(), version, calls, warmup,
                g.mappable_primary ? "true" : "false", g.subgroups ? "true" : "false",
                g.f32_atomics ? "true" : "false", skipped_list.c_str());
    for (const auto& r : results)
      std::printf("{\"floor\": \"%s\", \"median_us\": %.2f, \"p10_us\": %.2f, \"p90_us\": %.2f, \"min_us\": %.2f, "
                  "\"mean_us\": %.2f, \"calls\": %d}\n",
                  r.name.c_str(), r.median_us, r.p10_us, r.p90_us, r.min_us, r.mean_us, r.calls);
  } else {
    std::printf("%s (%s), wgpu-native %s; %d calls after %d warm-up, wall clock in us\n", g.adapter_name.c_str(),
                g.backend.c_str(), version, calls, warmup);
    std::printf("%-36s %10s %10s %10s %10s %10s\n", "floor", "median", "p10", "p90", "min", "mean");
    for (const auto& r : results)
      std::printf("%-36s %10.1f %10.1f %10.1f %10.1f %10.1f\n", r.name.c_str(), r.median_us, r.p10_us, r.p90_us,
                  r.min_us, r.mean_us);
  }

  // Release in reverse order of creation; nothing is in flight (every call waited for its work).
  wgpuBindGroupRelease(combine_bg);
  wgpuBindGroupRelease(partials_bg);
  wgpuBindGroupRelease(bump_bg);
  for (WGPUBuffer b : {partials, data, params, readback, counter}) wgpuBufferRelease(b);
  for (WGPUComputePipeline p : {combine_p, partials_p, bump}) wgpuComputePipelineRelease(p);
  wgpuShaderModuleRelease(module);
  wgpuQueueRelease(g.queue);
  wgpuDeviceRelease(g.device);
  wgpuAdapterRelease(g.adapter);
  wgpuInstanceRelease(g.instance);
  return 0;
}
