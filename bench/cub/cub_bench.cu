// The speed anchor: CUB's DeviceReduce / DeviceScan and cudaMemcpy D2D over the sizes `wgprim bench` sweeps,
// timed with CUDA events (median of `reps` after `warmup` discarded runs), printed in wgprim bench's JSON format
// so bench/compare.py can put the two side by side.
// Build: nvcc -arch=sm_90 -O3 -std=c++17 -o build/cub_bench bench/cub/cub_bench.cu
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(x)                                                                      \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "cub_bench: %s: %s\n", #x, cudaGetErrorString(e_));        \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

struct max_op {
  __device__ float operator()(float a, float b) const { return a > b ? a : b; }
};

__global__ void fill(unsigned* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = 0x3f800000u | ((unsigned(i) * 2654435761u) & 0x7fffffu);  // floats in [1, 2), as wgprim bench
}

int main(int argc, char** argv) {
  int min_log2 = 16, max_log2 = 28, reps = 20, warmup = 3;
  if (argc > 1) min_log2 = std::atoi(argv[1]);
  if (argc > 2) max_log2 = std::atoi(argv[2]);
  if (argc > 3) reps = std::atoi(argv[3]);
  const size_t n_max = size_t(1) << max_log2;
  unsigned *in, *out;
  CHECK(cudaMalloc(&in, n_max * 4));
  CHECK(cudaMalloc(&out, n_max * 4));
  fill<<<4096, 256>>>(in, n_max);
  CHECK(cudaDeviceSynchronize());
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));

  struct bench_case {
    const char *primitive, *algorithm, *type, *op;
    double bytes;
    // call(temp, temp_bytes, n): with temp == nullptr it only sizes temp_bytes
    std::function<void(void*, size_t&, size_t)> call;
  };
  float* fin = reinterpret_cast<float*>(in);
  float* fout = reinterpret_cast<float*>(out);
  std::vector<bench_case> cases = {
      {"reduce", "cub", "f32", "sum", 4, [&](void* t, size_t& b, size_t n) { CHECK(cub::DeviceReduce::Sum(t, b, fin, fout, int(n))); }},
      {"reduce", "cub", "u32", "sum", 4, [&](void* t, size_t& b, size_t n) { CHECK(cub::DeviceReduce::Sum(t, b, in, out, int(n))); }},
      {"reduce", "cub", "f32", "max", 4, [&](void* t, size_t& b, size_t n) { CHECK(cub::DeviceReduce::Max(t, b, fin, fout, int(n))); }},
      {"inclusive_scan", "cub", "u32", "sum", 8, [&](void* t, size_t& b, size_t n) { CHECK(cub::DeviceScan::InclusiveSum(t, b, in, out, int(n))); }},
      {"inclusive_scan", "cub", "f32", "sum", 8, [&](void* t, size_t& b, size_t n) { CHECK(cub::DeviceScan::InclusiveSum(t, b, fin, fout, int(n))); }},
      {"exclusive_scan", "cub", "u32", "sum", 8, [&](void* t, size_t& b, size_t n) { CHECK(cub::DeviceScan::ExclusiveSum(t, b, in, out, int(n))); }},
      {"copy", "cudaMemcpy", "u32", "-", 8, [&](void* t, size_t& b, size_t n) { if (t) CHECK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); else b = 1; }},
  };
  std::printf("{\"adapter\": \"%s (CUDA %d.%d)\", \"backend\": \"cuda\", \"timer\": \"cuda-events\", \"reps\": %d, "
              "\"warmup\": %d, \"results\": [\n", prop.name, CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10,
              reps, warmup);
  bool first = true;
  for (int lg = min_log2; lg <= max_log2; ++lg) {
    size_t n = size_t(1) << lg;
    for (auto& c : cases) {
      size_t bytes = 0;
      c.call(nullptr, bytes, n);
      void* temp = nullptr;
      CHECK(cudaMalloc(&temp, std::max<size_t>(bytes, 16)));
      for (int i = 0; i < warmup; ++i) c.call(temp, bytes, n);
      std::vector<float> ms;
      for (int i = 0; i < reps; ++i) {
        CHECK(cudaEventRecord(t0));
        c.call(temp, bytes, n);
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        float m;
        CHECK(cudaEventElapsedTime(&m, t0, t1));
        ms.push_back(m);
      }
      CHECK(cudaFree(temp));
      std::sort(ms.begin(), ms.end());
      double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
      std::printf("%s{\"primitive\": \"%s\", \"algorithm\": \"%s\", \"type\": \"%s\", \"op\": \"%s\", \"n\": %zu, "
                  "\"gpu_ms\": %.6f, \"gbps\": %.2f}", first ? "" : ",\n", c.primitive, c.algorithm, c.type, c.op, n,
                  med, c.bytes * double(n) / (med * 1e-3) / 1e9);
      first = false;
    }
  }
  std::printf("\n]}\n");
  return 0;
}
