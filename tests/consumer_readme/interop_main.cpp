// Runs docs/cpp.md's interop block (struct prefix_sums, included below from the page as written) the way an
// application would: on a device, queue, buffers and command encoder that are not wgprim's. A plain wgprim context
// stands in for the application's WebGPU set-up (its native device and buffers); the page's struct adopts that
// device through context::from_device and sees the buffers only as WGPUBuffers. Checked against the CPU.
#include WGPRIM_README_SNIPPET

#include <cstdio>
#include <vector>

int main() {
  try {
    wgprim::context_options webgpu;  // a WebGPU device (the default is the native backend where only a CPU adapter is)
    webgpu.backend = wgprim::backend_choice::webgpu;
    wgprim::context app(webgpu);  // the application's device, queue and buffers
    const std::size_t first = 7, n = 5000;  // an element offset into the buffer, and several scan tiles
    std::vector<float> weights(first + n);
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i % 9) * 0.5f;  // exact sums
    wgprim::buffer w = app.create_buffer(weights.size() * sizeof(float));
    wgprim::buffer sums = app.create_buffer(n * sizeof(float)), total = app.create_buffer(sizeof(float));
    app.write(w, 0, weights.data(), weights.size() * sizeof(float));
    app.finish();

    prefix_sums ps(app.native_device(), app.native_queue());
    WGPUCommandEncoderDescriptor ed = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
    WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(app.native_device(), &ed);
    ps.record(enc, w.native(), first, n, sums.native(), total.native());
    WGPUCommandBufferDescriptor cd = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
    WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &cd);
    wgpuQueueSubmit(app.native_queue(), 1, &cmd);
    wgpuCommandBufferRelease(cmd);
    wgpuCommandEncoderRelease(enc);

    std::vector<float> got(n);
    float got_total = 0;
    app.read(sums, 0, got.data(), n * sizeof(float));
    app.read(total, 0, &got_total, sizeof(float));
    // Partial sums are multiples of 0.5 far below 2^24: exact in f32 in any order of addition.
    float running = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      running += weights[first + i];
      bad += got[i] != running;
    }
    std::printf("readme interop: %zu mismatches of %zu; total %g (expected %g)\n", bad, n, got_total, running);
    return bad == 0 && got_total == running ? 0 : 1;
  } catch (const wgprim::error& e) {
    std::fprintf(stderr, "readme interop: %s\n", e.what());
    return 2;
  }
}
