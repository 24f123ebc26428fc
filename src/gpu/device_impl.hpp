// Internal to src/gpu/: the state behind a context (device, callbacks, waits, caches) and a recorder, shared by
// the files of this folder. Nothing outside src/gpu/ includes this file or webgpu.h.
#pragma once
#include <webgpu/webgpu.h>
#include <webgpu/wgpu.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
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
  std::uint32_t dynamic_mask = 0;  // bit i: slot i (a uniform block or a ring work block) takes a dynamic offset
  // Non-zero: slot 0's parameter block is passed as immediate data (push constants) of this many bytes instead
  // of a uniform binding: no queue write, no copy before the dispatch (see get_kernel).
  std::uint32_t immediate_bytes = 0;
};

// A bind group's identity: the kernel (its layout) and every bound range. Slots with a dynamic offset (uniform
// blocks, ring work blocks) are keyed by buffer and size only: their offset is set per dispatch, so one group
// serves every slot of the ring.
struct group_key {
  static constexpr std::size_t max_slots = 12;
  const kernel* k = nullptr;
  std::uint32_t count = 0;
  struct range { WGPUBuffer buf; std::uint64_t offset, size; } ranges[max_slots];
  bool operator==(const group_key& o) const {
    if (k != o.k || count != o.count) return false;
    for (std::uint32_t i = 0; i < count; ++i)
      if (ranges[i].buf != o.ranges[i].buf || ranges[i].offset != o.ranges[i].offset || ranges[i].size != o.ranges[i].size)
        return false;
    return true;
  }
};
struct group_key_hash {
  std::size_t operator()(const group_key& g) const {
    std::uint64_t h = 1469598103934665603ull ^ reinterpret_cast<std::uintptr_t>(g.k);
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; h ^= h >> 29; };
    for (std::uint32_t i = 0; i < g.count; ++i) {
      mix(reinterpret_cast<std::uintptr_t>(g.ranges[i].buf));
      mix(g.ranges[i].offset);
      mix(g.ranges[i].size);
    }
    return static_cast<std::size_t>(h);
  }
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
  std::uint32_t max_immediate = 0;  // bytes of immediate data a pipeline may take (0: the feature is off)

  // Filled by the callbacks; turned into exceptions by check().
  std::mutex mu;
  bool has_error = false;
  errc error_code = errc::gpu;
  std::string error_message;
  bool lost = false;
  std::string lost_message;

  std::map<std::string, std::unique_ptr<kernel>> kernels;
  std::uint64_t dispatches = 0;  // dispatches recorded so far (direct and indirect): dispatches_recorded()
  std::map<std::string, std::unique_ptr<render_kernel>> render_kernels;
  // Kernels found without rebuilding a key from the WGSL text: (memoised composed text, spec, trusted) -> kernel.
  struct spec_key {
    const void* text; const void* spec; bool trusted;
    bool operator==(const spec_key& o) const { return text == o.text && spec == o.spec && trusted == o.trusted; }
  };
  struct spec_key_hash {
    std::size_t operator()(const spec_key& k) const {
      return std::hash<const void*>()(k.text) * 31 + std::hash<const void*>()(k.spec) * 7 + k.trusted;
    }
  };
  std::unordered_map<spec_key, const kernel*, spec_key_hash> kernels_by_spec;
  double compile_pending_ms = 0;  // pipeline creation since the last submit (reported as compile_ms)
  std::map<std::string, std::uint32_t> epochs;  // detail::next_epoch

  // ---- per-call caches (recorder.cpp) ----
  // Bind groups kept between calls, for bindings whose buffers all belong to this context (their release is seen
  // by forget_buffer, which drops the groups first: a cached group never outlives a buffer it binds, and a reused
  // handle address cannot hit a stale group). Buffers of the caller (device_span::wrap) are never cached.
  std::unordered_map<group_key, WGPUBindGroup, group_key_hash> groups;
  std::unordered_set<WGPUBuffer> own_buffers;
  std::unordered_map<WGPUBuffer, std::uint32_t> grouped;  // cached groups binding each buffer
  static constexpr std::size_t max_groups = 4096;         // then the cache starts again (bounded memory)
  bool registered = false;                                // in the id -> context registry (device.cpp)
  void forget_buffer(WGPUBuffer b);
  void drop_groups();

  // Parameter blocks: one ring per context with a host shadow; every submit (or end() of a caller's encoder, or
  // context::submit of one of begin_commands) uploads the slots written since the last upload with ONE queue
  // write. Work blocks (recorder::work_block) live in the same ring: kernels write them, later dispatches of the
  // same recording read them. A slot is reused only once the work that reads it has been submitted (queue writes
  // are ordered after earlier submissions): the cursor goes back to 0 when no recorder or encoder holds an
  // unsubmitted slot; while one does, a full ring is replaced by a fresh one instead.
  static constexpr std::uint64_t ring_bytes = 64 * 1024;
  WGPUBuffer ring = nullptr;
  std::vector<std::uint8_t> ring_shadow;
  std::uint64_t ring_cursor = 0, ring_lo = ~0ull, ring_hi = 0, ring_gen = 0;
  int ring_holders = 0;                          // recorders of this generation with unsubmitted slots
  std::vector<WGPUCommandEncoder> ring_encoders;  // callers' encoders with slots, not yet seen submitted
  // A slot read by the GPU from the ring buffer (a uniform binding, a copy): it must be uploaded at the next flush.
  // Slots passed as immediates never are.
  void ring_mark(WGPUBuffer b, std::uint64_t offset, std::uint64_t bytes) {
    if (b != ring || !ring) return;
    ring_lo = std::min(ring_lo, offset);
    ring_hi = std::max(ring_hi, std::min<std::uint64_t>(offset + (bytes + 3) / 4 * 4, ring_bytes));
  }
  void ring_flush() {
    if (ring && ring_hi > ring_lo) wgpuQueueWriteBuffer(queue, ring, ring_lo, ring_shadow.data() + ring_lo, ring_hi - ring_lo);
    ring_lo = ~0ull;
    ring_hi = 0;
  }
  void ring_next();
  // Encoders from context::begin_commands: wgprim calls recorded into one share one compute pass (kept open
  // between calls, closed by a copy, a clear, a draw or context::submit). Every pass boundary costs ~9 us on the
  // H200 (bench/floor batch20_passes vs batch20_one_pass), more than a small dispatch itself.
  std::set<WGPUCommandEncoder> own_encoders;
  // The latest encoders context::submit released, each still referenced so that its address is not reused: a
  // second submit (or a recording) of one throws instead of touching a released handle (a segfault, issue 29
  // row 6). Bounded; the oldest reference is dropped first.
  std::deque<WGPUCommandEncoder> submitted_encoders;
  static constexpr std::size_t submitted_kept = 256;
  bool was_submitted(WGPUCommandEncoder e) const {
    return std::find(submitted_encoders.begin(), submitted_encoders.end(), e) != submitted_encoders.end();
  }
  WGPUCommandEncoder kept_enc = nullptr;
  WGPUComputePassEncoder kept_pass = nullptr;
  void end_kept_pass() {
    if (kept_pass) { wgpuComputePassEncoderEnd(kept_pass); wgpuComputePassEncoderRelease(kept_pass); }
    kept_pass = nullptr;
    kept_enc = nullptr;
  }
  std::map<std::string, buffer> scratch;  // detail::scratch
  std::map<std::string, buffer> constants;  // detail::constant_buffer, by content
  WGPUBuffer staging = nullptr;           // MapRead, for results read back with their submission
  std::uint64_t staging_bytes = 0;
  WGPUBuffer staging_for(std::uint64_t bytes);
  // A storage buffer the host can map (wgpu-native's mappable-primary-buffers): a kernel writes a small result
  // there and the host maps it after the submission, with no copy into staging first. nullptr without the feature.
  bool mappable_primary = false;
  WGPUBuffer mapped_result = nullptr;
  std::uint64_t mapped_result_bytes = 0;
  WGPUBuffer mapped_result_for(std::uint64_t bytes);

  void record_error(errc code, const std::string& msg) {
    std::lock_guard<std::mutex> g(mu);
    if (!has_error) { has_error = true; error_code = code; error_message = msg; }
  }
  // A context on a caller's device (context::from_device) cannot install device callbacks: it reads errors of its
  // own work through an error scope, pushed at creation and popped (then pushed again) by every check().
  bool external = false;
  void cycle_error_scope(bool reopen = true);
  std::uint64_t id = 0;
  // Shared with the containers made on this context (device_vector): follows the context through moves and is
  // emptied here at destruction, so a container used afterwards throws instead of reaching freed memory.
  std::shared_ptr<context_link> link = std::make_shared<context_link>();
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
        std::ostringstream limit;  // 6 significant digits: 30, 0.5, 1e-09 (std::to_string printed 1e-9 as 0.000000)
        limit << timeout_s;
        lost_message = "timed out after " + limit.str() + " s " + what;
        throw error(errc::timeout, "GPU work did not finish within " + limit.str() + " s (" + what +
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
  // Calls queued without a wait since the last wait_idle (recorder::submit, flush_open) are bounded, so that a loop
  // of calls that never reads keeps a bounded amount of work and temporaries in flight.
  // Calls queued without a wait since the last one: once queued_limit x open_limit are in flight, a submission waits
  // (16 with open_limit 1, as before queued calls shared encoders).
  std::uint32_t queued = 0;
  static constexpr std::uint32_t queued_limit = 16;
  // Bytes of buffers created since the last wait: past this, the next submission of queued calls waits too, so
  // that the temporaries of calls in flight stay bounded.
  std::uint64_t created_since_wait = 0;
  static constexpr std::uint64_t created_limit = std::uint64_t(1) << 30;
  // Everything submitted so far has finished (nothing was submitted since the last wait): the next queued call is
  // submitted at once, so that the GPU starts on it while the host goes on.
  bool idle_known = true;
  void wait_idle() {
    if (lost) return;
    flush_open();
    wait_submitted();
  }
  void wait_submitted() {
    queued = 0;
    created_since_wait = 0;
    const std::uint64_t ticket = request_work_done();
    wait_until([&](bool) { return done_seen >= ticket; }, "waiting for submitted work");
    idle_known = true;
  }

  // ---- queued calls (recorder.cpp) ----
  // Device-range calls that return without waiting record into one context-held encoder, the open encoder, and
  // share its compute pass; it is submitted once open_limit calls are in it, when the GPU was idle, or before
  // anything that must follow those calls in the queue: a wait, a read, a queue write, another submission
  // (flush_open, called by each of these). A call that reads a result back submits the open encoder with its
  // own work in it. A recorder recording into it now is its user: a flush meanwhile ends the user's pass and
  // hands it a fresh encoder (open_user_pass, open_user_enc point into that recorder).
  WGPUCommandEncoder open_enc = nullptr;
  WGPUComputePassEncoder* open_user_pass = nullptr;
  WGPUCommandEncoder* open_user_enc = nullptr;
  std::uint32_t open_calls = 0;
  std::uint32_t open_limit = 32;  // env WGPRIM_QUEUED_CALLS; 1: every call submits its own encoder
  void flush_open();

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
  void unregister();

  ~context_impl() {
    if (open_enc && !lost) {
      try { flush_open(); } catch (...) {}  // queued calls still run before the device goes
    }
    for (auto& kv : kernels) {
      wgpuComputePipelineRelease(kv.second->pipeline);
      wgpuBindGroupLayoutRelease(kv.second->layout);
    }
    for (auto& kv : render_kernels) {
      wgpuRenderPipelineRelease(kv.second->pipeline);
      wgpuBindGroupLayoutRelease(kv.second->layout);
    }
    unregister();
    drop_groups();
    if (ring) wgpuBufferRelease(ring);
    scratch.clear();
    if (staging) wgpuBufferRelease(staging);
    if (mapped_result) wgpuBufferRelease(mapped_result);
    if (kept_pass) wgpuComputePassEncoderRelease(kept_pass);  // its encoder was never submitted
    if (open_enc) wgpuCommandEncoderRelease(open_enc);
    for (WGPUCommandEncoder e : submitted_encoders) wgpuCommandEncoderRelease(e);
    submitted_encoders.clear();
    if (link) link->ctx = nullptr;
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
  context_impl* c = nullptr;
  WGPUCommandEncoder enc = nullptr;
  WGPUComputePassEncoder pass = nullptr;
  bool keep_pass = false;  // an encoder of begin_commands: end() leaves the pass open for the next call
  std::vector<WGPUBindGroup> groups;  // not cached (a caller's buffer is bound): released with the recorder
  std::uint64_t ring_gen = 0;
  bool holds_ring = false;  // has parameter slots in generation ring_gen not yet submitted
  bool timestamps = false, first_pass = true, external = false;
  bool wait = false;  // submit() waits for the work (its time was asked for); else it queues it and returns
  bool open = false;  // records into the context's open encoder (context_impl::flush_open)
  WGPUQuerySet queries = nullptr;
  WGPUBuffer resolve = nullptr, readback = nullptr;

  // `span` bytes of the ring (a multiple of uniform_align, >= 256: the most WebGPU asks of any offset) for this
  // recorder; returns where they start.
  std::uint64_t take_ring(context_impl& c, std::uint64_t span) {
    if (c.ring && !holds_ring && c.ring_holders == 0 && c.ring_encoders.empty() && c.ring_cursor) {
      // Every slot taken so far belongs to submitted work: start again at 0, so that each call (a pipeline's
      // replay) finds the same offsets (its cached bind groups) and a full ring is seldom replaced.
      c.ring_flush();
      c.ring_cursor = 0;
    }
    if (!c.ring || c.ring_cursor + span > context_impl::ring_bytes) c.ring_next();
    if (!holds_ring || ring_gen != c.ring_gen) {
      holds_ring = true;
      ring_gen = c.ring_gen;
      ++c.ring_holders;
    }
    const std::uint64_t at = c.ring_cursor;
    c.ring_cursor += span;
    return at;
  }
  // The recorder's slots are submitted (or handed to the caller's encoder): the ring may reuse them.
  void release_ring(context_impl& c, WGPUCommandEncoder external_enc) {
    if (!holds_ring) return;
    holds_ring = false;
    if (ring_gen != c.ring_gen) return;
    --c.ring_holders;
    if (external_enc && std::find(c.ring_encoders.begin(), c.ring_encoders.end(), external_enc) == c.ring_encoders.end())
      c.ring_encoders.push_back(external_enc);
  }
  void close_pass() {
    if (!pass) return;
    if (c && c->kept_pass == pass) {
      c->end_kept_pass();
    } else {
      wgpuComputePassEncoderEnd(pass);
      wgpuComputePassEncoderRelease(pass);
    }
    pass = nullptr;
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
WGPUPipelineLayout make_pipeline_layout(context_impl& s, WGPUBindGroupLayout* group, std::uint32_t immediate_bytes = 0);

// A cache key: the entry points, a layout tag, and the source.
template <class Slot>
std::string cache_key(const std::string& head, const std::vector<Slot>& layout, const std::string& source) {
  std::string key = head + "|";
  for (Slot sl : layout) key += static_cast<char>('0' + static_cast<int>(sl));
  return key + "|" + source;
}

}  // namespace wgprim::detail
