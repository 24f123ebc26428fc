// The recorder: compute passes, bind groups, parameter blocks and copies recorded into one command encoder, then
// submitted and waited for (or left in a caller's encoder).
#include "gpu/device_impl.hpp"

namespace wgprim::detail {


recorder::recorder(context& ctx, bool timestamps) : ctx_(ctx), s_(std::make_unique<state>()) {
  auto& c = ctx.impl();
  c.need_webgpu("recording GPU work");
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
  ctx.impl().need_webgpu("recording into a WGPUCommandEncoder");
  ctx.impl().check();
  if (!external) throw error(errc::invalid_argument, "null command encoder");
  s_->enc = external;
  s_->external = true;
}

void recorder::end() {
  auto& c = ctx_.impl();
  s_->close_pass();
  s_->upload_params(c);
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
    else b = make_raw(c, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc, state::param_buffer_bytes);
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
  copy_raw(src.native(), so, dst.native(), dof, bytes);
}

void recorder::copy_raw(WGPUBuffer src, std::uint64_t so, WGPUBuffer dst, std::uint64_t dof, std::uint64_t bytes) {
  s_->close_pass();
  if (bytes) wgpuCommandEncoderCopyBufferToBuffer(s_->enc, src, so, dst, dof, bytes);
}



void recorder::clear(const buffer& b, std::uint64_t offset, std::uint64_t bytes) {
  s_->close_pass();
  if (bytes) wgpuCommandEncoderClearBuffer(s_->enc, b.native(), offset, bytes);
}

gpu_time recorder::submit(const readback* rb) {
  auto& c = ctx_.impl();
  if (s_->external) throw error(errc::gpu, "internal: submit() on a recorder of an external encoder");
  s_->close_pass();
  bool stamped = s_->timestamps && !s_->first_pass;
  if (stamped) {
    wgpuCommandEncoderResolveQuerySet(s_->enc, s_->queries, 0, 2, s_->resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(s_->enc, s_->resolve, 0, s_->readback, 0, 16);
  }
  // A small result comes back in the same submission: copied into the context's persistent MapRead staging
  // buffer, which is mapped once the work is done (one submit, one wait per call).
  WGPUBuffer staging = nullptr;
  if (rb && rb->bytes) {
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
  s_->upload_params(c);
  auto t0 = std::chrono::steady_clock::now();
  wgpuQueueSubmit(c.queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  if (staging) {
    const void* p = map_read(c, staging, (rb->bytes + 3) / 4 * 4);
    std::memcpy(rb->dst, p, rb->bytes);
    wgpuBufferUnmap(staging);
  } else {
    c.wait_idle();
  }
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

}  // namespace wgprim::detail
