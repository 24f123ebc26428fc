// The recorder: compute passes, bind groups, parameter blocks and copies recorded into one command encoder, then
// submitted and waited for (or left in a caller's encoder).
#include "gpu/device_impl.hpp"

namespace wgprim::detail {


recorder::recorder(context& ctx, bool timestamps) : ctx_(ctx), s_(std::make_unique<state>()) {
  auto& c = ctx.impl();
  s_->c = &c;
  c.need_webgpu("recording GPU work");
  c.check();
  s_->wait = timestamps;
  if (!timestamps && c.open_limit > 1 && !c.open_user_enc) {
    // A call that may queue: it records into the open encoder (see context_impl::flush_open), in the pass the
    // calls before it left open, which this recorder holds until it submits.
    if (!c.open_enc) {
      WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
      c.open_enc = wgpuDeviceCreateCommandEncoder(c.device, &ed);
      c.check(errc::gpu, "creating a command encoder");
    }
    s_->enc = c.open_enc;
    s_->open = true;
    if (c.kept_pass && c.kept_enc == c.open_enc) {
      s_->pass = c.kept_pass;
      c.kept_pass = nullptr;
      c.kept_enc = nullptr;
    } else if (c.kept_pass) {
      c.end_kept_pass();
    }
    c.open_user_pass = &s_->pass;
    c.open_user_enc = &s_->enc;
    return;
  }
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
  ctx.impl().need_webgpu("recording into a WGPUCommandEncoder");
  ctx.impl().check();
  if (!external) throw error(errc::invalid_argument, "null command encoder");
  if (ctx.impl().was_submitted(external))
    throw error(errc::invalid_argument, "this command encoder was already submitted: record into a new one (begin_commands)");
  s_->enc = external;
  s_->external = true;
  auto& c = ctx.impl();
  s_->c = &c;
  s_->keep_pass = c.own_encoders.count(external) > 0;
  if (c.kept_pass && c.kept_enc == external) {
    s_->pass = c.kept_pass;  // the previous call's pass on this encoder: this call's dispatches join it
  } else if (c.kept_pass) {
    c.end_kept_pass();  // one kept pass at a time (another encoder's ends; its next call opens a new one)
  }
}

void recorder::end() {
  auto& c = ctx_.impl();
  if (s_->keep_pass && s_->pass) {
    c.kept_enc = s_->enc;  // left open for the next call into this encoder (context::submit closes it)
    c.kept_pass = s_->pass;
    s_->pass = nullptr;
  } else {
    s_->close_pass();
  }
  // A caller's own encoder is submitted by the caller: its slots are uploaded now. One of begin_commands is
  // submitted through context::submit, which uploads the slots of all the calls recorded into it at once.
  if (!s_->keep_pass) c.ring_flush();
  s_->release_ring(c, s_->enc);
  c.check(errc::gpu, "recording GPU work");
}

recorder::~recorder() {
  auto& c = ctx_.impl();
  s_->close_pass();
  if (s_->open) {
    // Never submitted (an exception): what it recorded stays in the open encoder, which is submitted now with the
    // queued calls before it (their work is not lost; an error of the encoder is the one already thrown).
    c.open_user_pass = nullptr;
    c.open_user_enc = nullptr;
    s_->release_ring(c, s_->enc);
    try { c.flush_open(); } catch (...) {}
    s_->enc = nullptr;
  }
  if (s_->enc && !s_->external) wgpuCommandEncoderRelease(s_->enc);
  // Never submitted (an exception): a caller's encoder may still be submitted later, so it keeps its slots.
  s_->release_ring(c, s_->external ? s_->enc : nullptr);
  for (WGPUBindGroup g : s_->groups) wgpuBindGroupRelease(g);
  if (s_->queries) wgpuQuerySetRelease(s_->queries);
  for (WGPUBuffer b : {s_->resolve, s_->readback})
    if (b) { wgpuBufferDestroy(b); wgpuBufferRelease(b); }
}

void context_impl::ring_next() {
  ring_flush();
  if (ring && ring_holders == 0 && ring_encoders.empty()) {
    ring_cursor = 0;  // every slot written so far belongs to submitted work
    return;
  }
  if (ring) {
    forget_buffer(ring);
    wgpuBufferRelease(ring);  // wgpu keeps it alive for the work recorded with it
    ring = nullptr;
  }
  // CopySrc: a parameter slot may also seed a buffer inside the encoder (the scan copies its init value so).
  // Storage and Indirect: a work block (recorder::work_block) is written by a kernel, then read as a later
  // dispatch's uniform block or indirect grid.
  ring = make_raw(*this, WGPUBufferUsage_Uniform | WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect |
                             WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc,
                  ring_bytes);
  own_buffers.insert(ring);
  ring_shadow.assign(ring_bytes, 0);
  ++ring_gen;
  ring_holders = 0;
  ring_encoders.clear();
  ring_cursor = 0;
}

binding recorder::params(const void* data, std::size_t bytes) {
  auto& c = ctx_.impl();
  const std::uint64_t stride = c.uniform_align;
  if (bytes > stride) throw error(errc::invalid_argument, "parameter block too large");
  const std::uint64_t at = s_->take_ring(c, stride);
  std::memcpy(c.ring_shadow.data() + at, data, bytes);
  // Uploaded only if the GPU reads it from the ring (ring_mark in dispatch, draw, copy_raw): a block passed as
  // immediate data costs no queue write.
  return binding{c.ring, at, stride};
}

binding recorder::work_block(const void* data, std::size_t bytes) {
  auto& c = ctx_.impl();
  if (bytes == 0 || bytes % 4 || bytes > 1024) throw error(errc::gpu, "internal: a work block is 4 to 1,024 bytes, whole words");
  const std::uint64_t span = (bytes + c.uniform_align - 1) / c.uniform_align * c.uniform_align;
  const std::uint64_t at = s_->take_ring(c, span);
  std::memcpy(c.ring_shadow.data() + at, data, bytes);
  return binding{c.ring, at, bytes};
}

void context_impl::drop_groups() {
  for (auto& kv : groups) wgpuBindGroupRelease(kv.second);
  groups.clear();
  grouped.clear();
}

void context_impl::forget_buffer(WGPUBuffer b) {
  own_buffers.erase(b);
  auto it = grouped.find(b);
  if (it == grouped.end()) return;
  for (auto g = groups.begin(); g != groups.end();) {
    const group_key& k = g->first;
    bool binds = false;
    for (std::uint32_t i = 0; i < k.count; ++i) binds = binds || k.ranges[i].buf == b;
    if (!binds) { ++g; continue; }
    for (std::uint32_t i = 0; i < k.count; ++i) {
      auto c = grouped.find(k.ranges[i].buf);
      if (c != grouped.end() && --c->second == 0) grouped.erase(c);
    }
    wgpuBindGroupRelease(g->second);
    g = groups.erase(g);
  }
}

void recorder::dispatch_indirect(const kernel& k, std::initializer_list<binding> bindings, WGPUBuffer args,
                                 std::uint64_t offset) {
  if (!args || offset % 4) throw error(errc::gpu, "internal: indirect arguments must be a 4-byte aligned buffer range");
  indirect_ = {args, offset, 12};
  dispatch(k, bindings, 1, 1);
}

void recorder::dispatch(const kernel& k, std::initializer_list<binding> bindings, std::uint32_t x, std::uint32_t y) {
  const binding indirect = indirect_;
  indirect_ = {};
  auto& c = ctx_.impl();
  if (bindings.size() != k.slots) throw error(errc::gpu, "internal: binding count does not match the kernel");
  if (bindings.size() > group_key::max_slots) throw error(errc::gpu, "internal: too many bindings for one kernel");
  if (x == 0 || y == 0) return;
  if (x > c.limits.max_compute_workgroups_per_dimension || y > c.limits.max_compute_workgroups_per_dimension)
    throw error(errc::limit, "internal: dispatch exceeds the workgroups-per-dimension limit");
  ++c.dispatches;
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
  // The group's key, and the dynamic offsets of the uniform and work-block slots (in binding order, as WebGPU
  // wants them).
  group_key key;
  key.k = &k;
  key.count = static_cast<std::uint32_t>(bindings.size());
  std::uint32_t dyn[group_key::max_slots];
  std::uint32_t n_dyn = 0;
  bool cacheable = true;
  std::uint32_t i = 0;
  const void* immediate = nullptr;
  for (const binding& b : bindings) {
    if (i == 0 && k.immediate_bytes) {
      // The parameter block goes in as immediate data: read from the ring's host shadow, never uploaded.
      if (b.buf != c.ring || b.offset + k.immediate_bytes > context_impl::ring_bytes)
        throw error(errc::gpu, "internal: an immediate parameter block must come from recorder::params");
      immediate = c.ring_shadow.data() + b.offset;
      key.ranges[i] = {nullptr, 0, 0};
      ++i;
      continue;
    }
    // wgpu-native panics (aborts the process) on a bind group entry without a buffer: an internal error instead.
    if (!b.buf) throw error(errc::gpu, "internal: binding " + std::to_string(i) + " of a dispatch has no buffer");
    c.ring_mark(b.buf, b.offset, b.size);
    if (k.dynamic_mask >> i & 1) {
      if (b.offset > 0xffffffffull) throw error(errc::gpu, "internal: dynamic offset past 4 GiB");
      dyn[n_dyn++] = static_cast<std::uint32_t>(b.offset);
      key.ranges[i] = {b.buf, 0, b.size};
    } else {
      key.ranges[i] = {b.buf, b.offset, b.size};
    }
    cacheable = cacheable && c.own_buffers.count(b.buf);
    ++i;
  }
  WGPUBindGroup g = nullptr;
  auto hit = cacheable ? c.groups.find(key) : c.groups.end();
  if (hit != c.groups.end()) {
    g = hit->second;
  } else {
    WGPUBindGroupEntry es[group_key::max_slots];
    std::uint32_t n_es = 0;
    for (std::uint32_t j = k.immediate_bytes ? 1 : 0; j < key.count; ++j) {
      WGPUBindGroupEntry& e = es[n_es++];
      e = WGPU_BIND_GROUP_ENTRY_INIT;
      e.binding = j;
      e.buffer = key.ranges[j].buf;
      e.offset = key.ranges[j].offset;
      e.size = key.ranges[j].size;
    }
    WGPUBindGroupDescriptor gd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    gd.layout = k.layout;
    gd.entryCount = n_es;
    gd.entries = es;
    g = wgpuDeviceCreateBindGroup(c.device, &gd);
    try {
      c.check(errc::gpu, "binding buffers");
    } catch (...) {
      if (g) wgpuBindGroupRelease(g);
      throw;
    }
    if (cacheable) {
      if (c.groups.size() >= context_impl::max_groups) c.drop_groups();
      c.groups.emplace(key, g);
      for (std::uint32_t j = 0; j < key.count; ++j)
        if (key.ranges[j].buf) ++c.grouped[key.ranges[j].buf];
    } else {
      s_->groups.push_back(g);
    }
  }
  wgpuComputePassEncoderSetPipeline(s_->pass, k.pipeline);
  wgpuComputePassEncoderSetBindGroup(s_->pass, 0, g, n_dyn, n_dyn ? dyn : nullptr);
  if (immediate) wgpuComputePassEncoderSetImmediates(s_->pass, 0, immediate, k.immediate_bytes);
  if (indirect.buf) wgpuComputePassEncoderDispatchWorkgroupsIndirect(s_->pass, indirect.buf, indirect.offset);
  else wgpuComputePassEncoderDispatchWorkgroups(s_->pass, x, y, 1);
}

void recorder::copy(const buffer& src, std::uint64_t so, const buffer& dst, std::uint64_t dof, std::uint64_t bytes) {
  copy_raw(src.native(), so, dst.native(), dof, bytes);
}

void recorder::copy_raw(WGPUBuffer src, std::uint64_t so, WGPUBuffer dst, std::uint64_t dof, std::uint64_t bytes) {
  s_->close_pass();
  ctx_.impl().ring_mark(src, so, bytes);
  if (bytes) wgpuCommandEncoderCopyBufferToBuffer(s_->enc, src, so, dst, dof, bytes);
}



void recorder::clear_raw(WGPUBuffer b, std::uint64_t offset, std::uint64_t bytes) {
  s_->close_pass();
  if (bytes) wgpuCommandEncoderClearBuffer(s_->enc, b, offset, bytes);
}

void context_impl::flush_open() {
  if (!open_enc) return;
  if (open_user_pass && *open_user_pass) {
    wgpuComputePassEncoderEnd(*open_user_pass);
    wgpuComputePassEncoderRelease(*open_user_pass);
    *open_user_pass = nullptr;
  }
  if (kept_enc == open_enc) end_kept_pass();
  WGPUCommandEncoder enc = open_enc;
  const std::uint32_t calls = open_calls;
  open_enc = nullptr;
  open_calls = 0;
  WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &cd);
  wgpuCommandEncoderRelease(enc);
  if (open_user_enc) {
    // A recorder is halfway through a call: it goes on in a fresh encoder.
    WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
    open_enc = wgpuDeviceCreateCommandEncoder(device, &ed);
    *open_user_enc = open_enc;
  }
  try {
    check(errc::gpu, "recording GPU work");
  } catch (...) {
    if (cmd) wgpuCommandBufferRelease(cmd);
    throw;
  }
  ring_flush();
  wgpuQueueSubmit(queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  ring_encoders.erase(std::remove(ring_encoders.begin(), ring_encoders.end(), enc), ring_encoders.end());
  idle_known = false;
  queued += std::max<std::uint32_t>(calls, 1);
  if (queued >= queued_limit * open_limit || created_since_wait >= created_limit) {
    wait_submitted();
  } else {
    wgpuDevicePoll(device, false, nullptr);  // reclaims what earlier submissions finished with
  }
  check(errc::gpu, "running GPU work");
}

gpu_time recorder::submit(const readback* rb) {
  auto& c = ctx_.impl();
  if (s_->external) throw error(errc::gpu, "internal: submit() on a recorder of an external encoder");
  WGPUCommandEncoder adopted = nullptr;
  if (s_->open) {
    c.open_user_pass = nullptr;
    c.open_user_enc = nullptr;
    s_->open = false;
    if (!rb || !rb->bytes) {
      // Queued: the pass stays open for the next call; the encoder is submitted once enough calls are in it.
      if (s_->pass) {
        c.kept_enc = s_->enc;
        c.kept_pass = s_->pass;
        s_->pass = nullptr;
      }
      s_->release_ring(c, s_->enc);
      s_->enc = nullptr;
      gpu_time t;
      t.compile_ms = c.compile_pending_ms;
      c.compile_pending_ms = 0;
      if (++c.open_calls >= c.open_limit || c.idle_known || c.created_since_wait >= context_impl::created_limit)
        c.flush_open();
      c.check(errc::gpu, "recording GPU work");
      return t;
    }
    // A result to read back: the open encoder, with the queued calls before this one, is this call's submission.
    adopted = c.open_enc;
    c.open_enc = nullptr;
    c.open_calls = 0;
  } else {
    c.flush_open();  // queued calls before this one go first
  }
  s_->close_pass();
  bool stamped = s_->timestamps && !s_->first_pass;
  if (stamped) {
    wgpuCommandEncoderResolveQuerySet(s_->enc, s_->queries, 0, 2, s_->resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(s_->enc, s_->resolve, 0, s_->readback, 0, 16);
  }
  // A small result comes back in the same submission: copied into the context's persistent MapRead staging
  // buffer, which is mapped once the work is done (one submit, one wait per call).
  WGPUBuffer staging = nullptr;
  std::uint64_t staging_offset = 0;
  if (rb && rb->bytes && rb->src_mappable) {
    staging = rb->src;  // the kernel wrote the result into a buffer the host maps: nothing to copy
    staging_offset = rb->offset;
  } else if (rb && rb->bytes) {
    staging = c.staging_for(rb->bytes);
    wgpuCommandEncoderCopyBufferToBuffer(s_->enc, rb->src, rb->offset, staging, 0, rb->bytes);
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
  c.ring_flush();
  auto t0 = std::chrono::steady_clock::now();
  wgpuQueueSubmit(c.queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  s_->release_ring(c, nullptr);
  if (adopted)
    c.ring_encoders.erase(std::remove(c.ring_encoders.begin(), c.ring_encoders.end(), adopted), c.ring_encoders.end());
  c.idle_known = false;
  if (staging) {
    const void* p = map_read(c, staging, (staging_offset + rb->bytes + 3) / 4 * 4);
    std::memcpy(rb->dst, static_cast<const std::uint8_t*>(p) + staging_offset, rb->bytes);
    wgpuBufferUnmap(staging);
    c.queued = 0;  // the mapping waited for everything submitted
    c.created_since_wait = 0;
    c.idle_known = true;
  } else if (s_->wait || ++c.queued >= context_impl::queued_limit * c.open_limit) {
    c.wait_submitted();
  } else {
    wgpuDevicePoll(c.device, false, nullptr);  // reclaims what earlier submissions finished with
  }
  // Otherwise the work is queued and the call returns, as CUB's calls on a stream do (docs/cpp.md, "When calls
  // wait"): a later read, finish() or readback waits for it, in queue order; a caller reading a device result
  // waits once instead of twice.
  auto t1 = std::chrono::steady_clock::now();
  c.check(errc::gpu, "running GPU work");
  gpu_time t;
  t.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  t.compile_ms = c.compile_pending_ms;
  c.compile_pending_ms = 0;
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

}  // namespace wgprim::detail
