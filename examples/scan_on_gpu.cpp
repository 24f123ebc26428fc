// Keep data on the GPU: upload once into a device_vector, record an exclusive scan and a reduce into our own
// command encoder, submit once, and read back only to check. This is how a WebGPU application uses wgprim on its
// own buffers (device_span::wrap views a WGPUBuffer of the caller's; context::from_device adopts its device).
#include <webgpu/webgpu.h>
#include <wgprim/wgprim.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  try {
    // Recording into our own encoder needs a WebGPU device: ask for the WebGPU backend (the default would pick
    // the native CPU backend on a machine without a GPU, which has no device and no encoders).
    wgprim::context_options opt;
    opt.backend = wgprim::backend_choice::webgpu;
    wgprim::context ctx(opt);
    const std::size_t n = 1'000'000;
    std::vector<std::uint32_t> counts(n);
    for (std::size_t i = 0; i < n; ++i) counts[i] = static_cast<std::uint32_t>(i % 7);

    wgprim::device_vector<std::uint32_t> in(ctx, counts), offsets(ctx, n), total(ctx, 1);

    // Our encoder: wgprim records into it, we submit.
    WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(ctx.native_device(), &ed);
    wgprim::exclusive_scan(ctx, enc, in, offsets);
    wgprim::reduce(ctx, enc, in, total);
    WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
    WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &cd);
    wgpuQueueSubmit(ctx.native_queue(), 1, &cmd);
    wgpuCommandBufferRelease(cmd);
    wgpuCommandEncoderRelease(enc);

    std::vector<std::uint32_t> got = offsets.to_host();
    std::uint32_t got_total = total.to_host()[0];
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
