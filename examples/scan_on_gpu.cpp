// Keep data on the GPU: upload once, record an exclusive scan and a reduce into our own command encoder,
// submit once, and read back only to check.
#include <webgpu/webgpu.h>
#include <wgprim/wgprim.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  try {
    wgprim::context ctx;
    const std::size_t n = 1'000'000;
    std::vector<std::uint32_t> counts(n);
    for (std::size_t i = 0; i < n; ++i) counts[i] = static_cast<std::uint32_t>(i % 7);

    wgprim::buffer in = ctx.create_buffer(n * 4), offsets = ctx.create_buffer(n * 4), total = ctx.create_buffer(4);
    ctx.write(in, 0, counts.data(), n * 4);

    // Our encoder: wgprim records into it, we submit.
    WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(ctx.native_device(), &ed);
    const wgprim::monoid sum(wgprim::op::sum(), wgprim::dtype::u32);
    wgprim::scan(ctx, enc, in, offsets, n, sum, wgprim::scan_kind::exclusive);
    wgprim::reduce(ctx, enc, in, n, sum, total);
    WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
    WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &cd);
    wgpuQueueSubmit(ctx.native_queue(), 1, &cmd);
    wgpuCommandBufferRelease(cmd);
    wgpuCommandEncoderRelease(enc);
    ctx.finish();

    std::vector<std::uint32_t> got(n);
    std::uint32_t got_total = 0;
    ctx.read(offsets, 0, got.data(), n * 4);
    ctx.read(total, 0, &got_total, 4);
    std::uint32_t running = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      bad += got[i] != running;
      running += counts[i];
    }
    std::printf("exclusive scan of %zu counts: %zu mismatches; total %u (expected %u)\n", n, bad, got_total, running);
    return bad == 0 && got_total == running ? 0 : 1;
  } catch (const wgprim::error& e) {
    std::fprintf(stderr, "scan_on_gpu: %s\n", e.what());
    return 2;
  }
}
