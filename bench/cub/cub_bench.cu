// The speed anchor: CUB (and cudaMemcpy / a trivial copy kernel) timed the three ways a caller can see it, for every
// primitive wgprim has or plans (issues 11, 12, 13), over n = 2^16 .. 2^28:
//   call_ms    wall clock per call of: one call + cudaMemcpyAsync of its result into pinned host memory + stream
//              sync (the result read back is named in each record's "readback"); mean of K such calls;
//   batched_ms wall clock of K calls issued back to back on one stream and one stream sync at the end, / K;
//   gpu_ms     CUDA events around one call (median over K x reps single calls).
// call_ms and batched_ms are medians over `reps` rounds, after `warmup` (at least one) discarded calls. Temporary
// storage is allocated once per primitive and n, outside every timed region. Outputs are poisoned before each case
// and the result of the last timed call is checked against a CPU twin computed from the same generator (exact for
// integers and counts; a stated relative bound for float sums), so a record cannot be a timing of wrong work.
// GB/s = bytes moved (the least traffic the primitive needs, "bytes" in the record) / batched_ms; gpu_gbps uses
// gpu_ms.
// The anchors of issues 24, 25 and 27 (sort on bits 0:16, segmented reduce/scan/sort of other lengths, 4096-bin
// histogram, merge sort with a comparator, and the select -> sort -> unique -> count chain) are cases like the others;
// the chain's call contains its own host round trip (CUB needs the select's count to size the next steps), so its
// batched_ms and gpu_ms include that wait too.
//
// Build: nvcc -arch=sm_90 -O3 -std=c++17 -o build/cub_bench bench/cub/cub_bench.cu   (or: make -C bench/cub)
// Run:   build/cub_bench --json > cub.jsonl      (--help for the options)
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

namespace {

// ---- data: a pure function of the index, so that the CPU twin regenerates exactly what the GPU holds --------------

constexpr int run_length = 20;         // runs of equal keys for unique, reduce-by-key, run-length encode
constexpr int segment_length = 1000;   // segmented reduce: segments of 1000 (the last one may be shorter)
constexpr int histogram_bins = 256;
constexpr int histogram_bins_many = 4096;  // the second histogram case: bin width 1000/4096 = 0.244140625, exact
constexpr float histogram_lo = -500.f, histogram_hi = 500.f;

__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {  // an integer hash with good avalanche
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
__host__ __device__ inline std::uint32_t gen_u32(std::size_t i) { return mix(std::uint32_t(i) * 2u + 1u); }
// Floats uniform in [-500, 500): an integer k times 2^-14, both exact in f32, so the GPU and the CPU hold bit-equal
// values whatever either compiler contracts. About half are > 0.
__host__ __device__ inline float gen_f32(std::size_t i) {
  std::int32_t k = std::int32_t(mix(std::uint32_t(i) * 2u) % (1000u << 14)) - std::int32_t(500u << 14);
  return float(k) * (1.0f / 16384.0f);
}
__host__ __device__ inline std::uint32_t gen_flag(std::size_t i) { return mix(std::uint32_t(i) ^ 0x9e3779b9u) & 1u; }
__host__ __device__ inline std::uint32_t gen_key(std::size_t i) {
  return mix(std::uint32_t(i / run_length) + 0x51ed27u);
}

__global__ void fill_kernel(std::uint32_t* u, float* f, std::uint32_t* keys, std::uint32_t* flags,
                            std::uint32_t* iota, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    u[i] = gen_u32(i);
    f[i] = gen_f32(i);
    keys[i] = gen_key(i);
    flags[i] = gen_flag(i);
    iota[i] = std::uint32_t(i);
  }
}

// 64-bit data (the f64 / i64 rows): doubles k * 2^-14 like gen_f32 (exact in both), and 64-bit integers of the
// full range (sums wrap modulo 2^64 in CUB and in the twin alike).
__host__ __device__ inline double gen_f64(std::size_t i) { return double(gen_f32(i)); }
__host__ __device__ inline std::int64_t gen_i64(std::size_t i) {
  return std::int64_t((std::uint64_t(gen_u32(i)) << 32) | mix(std::uint32_t(i) + 0x2545f491u));
}
__global__ void fill64_kernel(double* d, std::int64_t* q, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    d[i] = gen_f64(i);
    q[i] = gen_i64(i);
  }
}
// CSR offsets of segments of `length` (the last one may be shorter): offsets[s] = min(s * length, n).
__global__ void offsets_kernel(int* offsets, std::size_t n_segments, std::size_t n, std::size_t length) {
  for (std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; s <= n_segments;
       s += std::size_t(gridDim.x) * blockDim.x)
    offsets[s] = int(s * length < n ? s * length : n);
}
// Segment ids (the keys of a scan by key): ids[i] = i / length; length 0 means one segment (all ids 0).
__global__ void segment_ids_kernel(std::uint32_t* ids, std::size_t n, std::size_t length) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    ids[i] = length ? std::uint32_t(i / length) : 0u;
}

// The trivial copy kernel: one 16-byte vector per thread, the tail (n not a multiple of 4) by the first thread.
__global__ void copy_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out, std::size_t n) {
  const std::size_t n4 = n / 4;
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n4) reinterpret_cast<uint4*>(out)[i] = reinterpret_cast<const uint4*>(in)[i];
  if (i == 0)
    for (std::size_t j = n4 * 4; j < n; ++j) out[j] = in[j];
}

struct is_positive {
  __host__ __device__ bool operator()(float x) const { return x > 0.f; }
};
struct square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};
struct greater_u32 {  // merge sort's comparator: a > b (descending)
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const { return a > b; }
};
struct low16 {  // the chain's fused input transform: x & 0xffff
  __host__ __device__ std::uint32_t operator()(std::uint32_t x) const { return x & 0xffffu; }
};
struct is_even {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) == 0u; }
};

// Start of the last segment when n items are cut into segments of `length`.
inline std::size_t last_segment_start(std::size_t n, std::size_t length) {
  return n ? (n - 1) / length * length : 0;
}

// ---- the CPU twin: everything the checks need, in one pass over the generator ---------------------------------------

struct twin {
  std::size_t n = 0;
  std::uint32_t u_sum = 0, u_sum_but_last = 0, u_max = 0, u_last = 0;
  double f_sum = 0, f_abs_sum = 0, f_sq_sum = 0, last_segment_sum = 0, last_segment_abs = 0;
  float f_max = 0;
  std::int64_t f_argmax = 0, positives = 0, flagged = 0, key_runs = 0, segments = 0;
  std::uint64_t q_sum = 0;  // the i64 data's sum, wrapped modulo 2^64
  std::int64_t q_max = INT64_MIN;  // its largest value (the i64 sort's last key)
  std::vector<std::int64_t> bins, bins_many;
  // sort by bits 0:16: the largest low half, and the last key (index order) that has it, which a stable sort puts
  // last; merge sort a > b: the smallest key.
  std::uint32_t u_min = 0, lo16_max = 0, lo16_max_last = 0;
  // Last segments: f32 sum over segments of 4; u32 wrapped sums over segments of 1000 and of 4 (scan by key);
  // u32 max and wrapped sum over segments of 16 and of 1000 (segmented sort).
  double last_segment4_sum = 0, last_segment4_abs = 0;
  std::uint32_t u_last_segment_sum = 0, u_last_segment4_sum = 0;
  std::uint32_t seg16_max = 0, seg16_sum = 0, seg1000_max = 0;
  // The chain: kept = even values of (x & 0xffff), distinct = how many different ones.
  std::int64_t chain_kept = 0, chain_distinct = 0;

  explicit twin(std::size_t n_) : n(n_), bins(histogram_bins, 0), bins_many(histogram_bins_many, 0) {
    segments = std::int64_t((n + segment_length - 1) / segment_length);
    const std::size_t last_start = last_segment_start(n, segment_length), last_start4 = last_segment_start(n, 4),
                      last_start16 = last_segment_start(n, 16);
    std::vector<bool> seen(1u << 16, false);
    f_max = -INFINITY;
    u_min = ~0u;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t u = gen_u32(i);
      const float f = gen_f32(i);
      u_min = std::min(u_min, u);
      if ((u & 0xffffu) >= lo16_max) { lo16_max = u & 0xffffu; lo16_max_last = u; }
      if (i >= last_start4) { last_segment4_sum += f; last_segment4_abs += std::fabs(f); u_last_segment4_sum += u; }
      if (i >= last_start16) { seg16_max = std::max(seg16_max, u); seg16_sum += u; }
      if (i >= last_start) { u_last_segment_sum += u; seg1000_max = std::max(seg1000_max, u); }
      if ((u & 1u) == 0) {
        ++chain_kept;
        if (!seen[u & 0xffffu]) { seen[u & 0xffffu] = true; ++chain_distinct; }
      }
      // f = k / 2^14 with k + 500 * 2^14 = m in [0, 1000 * 2^14); the 4096-bin width is 4000 / 2^14: bin m / 4000.
      ++bins_many[std::int64_t(double(f) * 16384.0 + 500.0 * 16384.0) / 4000];
      if (i + 1 < n) u_sum_but_last += u;
      u_sum += u;
      q_sum += std::uint64_t(gen_i64(i));
      q_max = std::max(q_max, gen_i64(i));
      u_max = std::max(u_max, u);
      f_sum += f;
      f_abs_sum += std::fabs(f);
      f_sq_sum += double(f) * f;
      if (f > f_max) { f_max = f; f_argmax = std::int64_t(i); }  // first maximum, as CUB's ArgMax
      positives += f > 0.f;
      flagged += gen_flag(i) != 0;
      key_runs += i == 0 || gen_key(i) != gen_key(i - 1);
      if (i >= last_start) { last_segment_sum += f; last_segment_abs += std::fabs(f); }
      // Bin width 1000/256 = 3.90625 is exact; samples on a bin edge may be binned either way by a float formula,
      // which is why the histogram check allows a small difference per bin.
      const int b = int(std::floor((double(f) - histogram_lo) / 3.90625));
      if (b >= 0 && b < histogram_bins) ++bins[b];
    }
    u_last = n ? gen_u32(n - 1) : 0;
  }
};

// ---- one benchmark case ---------------------------------------------------------------------------------------------

using byte = unsigned char;

struct buffers {
  std::uint32_t *u, *keys, *flags, *iota, *out, *out2;
  float *f;
  double* d;         // n_max doubles (gen_f64)
  std::int64_t* q;   // n_max 64-bit integers (gen_i64)
  unsigned char* out64;  // n_max 8-byte outputs
  int* offsets;               // segments of 1000
  int *offsets4, *offsets16;  // segments of 4 and of 16
  int* offsets_one;           // one segment: {0, n}
  std::uint32_t *ids1000, *ids4, *ids_one;  // segment ids i / 1000, i / 4, and all 0 (scan by key)
  unsigned char* small;  // results: scalar at 0, int64 count at 0, arg-max index at 8, the chain's first count at
                         // 16, 256-bin histogram at 1024, 4096-bin histogram at 4096 (small_bytes in all)
  unsigned char* host;   // pinned host memory the read-backs land in (small_bytes)
};
constexpr std::size_t small_bytes = 4096 + histogram_bins_many * 4;

struct bench_case {
  const char *primitive, *type, *op, *readback;
  // Sizes the temporary storage when temp == nullptr, else runs once on `s`.
  std::function<cudaError_t(void* temp, std::size_t& temp_bytes, std::size_t n, cudaStream_t s)> call;
  std::function<std::pair<const void*, std::size_t>(std::size_t n)> result;  // device address and bytes read back
  std::function<double(const twin&)> bytes_moved;
  std::function<std::string(const unsigned char* host, const twin&)> check;  // "" when the result is right
};

std::string expect_eq(const char* what, std::int64_t got, std::int64_t want) {
  if (got == want) return "";
  return std::string(what) + " " + std::to_string(got) + ", expected " + std::to_string(want);
}

// A histogram's total: CUB bins in f32 ((x - lo) * scale), so a sample in the last ulps below the upper level can land
// past the last bin and go uncounted (1, 17 and 1 of 2^24 / 2^28 samples on an H200, session 8).
std::string samples_counted(std::int64_t total, std::size_t n) {
  const std::int64_t want = static_cast<std::int64_t>(n);
  return total <= want && want - total <= (want >> 20) + 4 ? std::string() : expect_eq("samples counted", total, want);
}
std::string expect_near(const char* what, double got, double want, double bound) {
  if (std::fabs(got - want) <= bound) return "";
  char b[200];
  std::snprintf(b, sizeof b, "%s %.9g, expected %.9g (bound %.3g)", what, got, want, bound);
  return b;
}
template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::vector<bench_case> make_cases(const buffers& b) {
  std::uint32_t *u = b.u, *keys = b.keys, *flags = b.flags, *iota = b.iota, *out = b.out, *out2 = b.out2;
  float* f = b.f;
  float* fout = reinterpret_cast<float*>(b.out);
  int* offsets = b.offsets;
  unsigned char* small = b.small;
  auto* count = reinterpret_cast<std::int64_t*>(small);
  auto* scalar_u = reinterpret_cast<std::uint32_t*>(small);
  auto* scalar_f = reinterpret_cast<float*>(small);
  auto* argmax_index = reinterpret_cast<std::int64_t*>(small + 8);
  auto* histogram = reinterpret_cast<std::uint32_t*>(small + 1024);
  auto scalar = [small](std::size_t) { return std::make_pair(static_cast<const void*>(small), std::size_t(4)); };
  auto count8 = [small](std::size_t) { return std::make_pair(static_cast<const void*>(small), std::size_t(8)); };
  auto last_of = [](const void* p) {
    return [p](std::size_t n) {
      return std::make_pair(static_cast<const void*>(static_cast<const std::uint32_t*>(p) + (n - 1)), std::size_t(4));
    };
  };
  const double sum_bound = 1e-5;  // relative to the sum of |x|: far above a float tree sum's error at 2^30

  std::vector<bench_case> c;
  c.push_back({"reduce", "f32", "sum", "scalar (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceReduce::Sum(t, tb, f, scalar_f, std::int64_t(n), s);
               },
               scalar, [](const twin& w) { return 4.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_near("sum", load<float>(h), w.f_sum, sum_bound * w.f_abs_sum + 1e-3);
               }});
  c.push_back({"reduce", "u32", "sum", "scalar (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceReduce::Sum(t, tb, u, scalar_u, std::int64_t(n), s);
               },
               scalar, [](const twin& w) { return 4.0 * w.n; },
               [=](const byte* h, const twin& w) { return expect_eq("sum", load<std::uint32_t>(h), w.u_sum); }});
  c.push_back({"reduce", "f32", "max", "scalar (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceReduce::Max(t, tb, f, scalar_f, std::int64_t(n), s);
               },
               scalar, [](const twin& w) { return 4.0 * w.n; },
               [=](const byte* h, const twin& w) { return expect_near("max", load<float>(h), w.f_max, 0); }});
  c.push_back({"transform_reduce", "f32", "sum_of_squares", "scalar (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceReduce::TransformReduce(t, tb, f, scalar_f, std::int64_t(n),
                                                           ::cuda::std::plus<>{}, square{}, 0.0f, s);
               },
               scalar, [](const twin& w) { return 4.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_near("sum of squares", load<float>(h), w.f_sq_sum, sum_bound * w.f_sq_sum + 1e-3);
               }});
  c.push_back({"arg_max", "f32", "max", "value and index (16 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceReduce::ArgMax(t, tb, f, scalar_f, argmax_index, std::int64_t(n), s);
               },
               [small](std::size_t) { return std::make_pair(static_cast<const void*>(small), std::size_t(16)); },
               [](const twin& w) { return 4.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 std::string e = expect_near("max", load<float>(h), w.f_max, 0);
                 return e.empty() ? expect_eq("arg-max index", load<std::int64_t>(h + 8), w.f_argmax) : e;
               }});
  {
    double* d = b.d;
    std::int64_t* q = b.q;
    auto* dout = reinterpret_cast<double*>(b.out64);
    auto* qout = reinterpret_cast<std::int64_t*>(b.out64);
    auto* scalar_d = reinterpret_cast<double*>(small);
    auto* scalar_q = reinterpret_cast<std::int64_t*>(small);
    auto scalar8 = [small](std::size_t) { return std::make_pair(static_cast<const void*>(small), std::size_t(8)); };
    auto last8 = [p = b.out64](std::size_t n) {
      return std::make_pair(static_cast<const void*>(p + (n - 1) * 8), std::size_t(8));
    };
    const double d_bound = 1e-12;  // relative to the sum of |x|: far above a double tree sum's error at 2^30
    c.push_back({"reduce", "f64", "sum", "scalar (8 B)",
                 [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                   return cub::DeviceReduce::Sum(t, tb, d, scalar_d, std::int64_t(n), s);
                 },
                 scalar8, [](const twin& w) { return 8.0 * w.n; },
                 [=](const byte* h, const twin& w) {
                   return expect_near("sum", load<double>(h), w.f_sum, d_bound * w.f_abs_sum);
                 }});
    c.push_back({"reduce", "i64", "sum", "scalar (8 B)",
                 [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                   return cub::DeviceReduce::Sum(t, tb, q, scalar_q, std::int64_t(n), s);
                 },
                 scalar8, [](const twin& w) { return 8.0 * w.n; },
                 [=](const byte* h, const twin& w) {
                   return expect_eq("sum", load<std::int64_t>(h), std::int64_t(w.q_sum));
                 }});
    c.push_back({"inclusive_scan", "f64", "sum", "last element (8 B)",
                 [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                   return cub::DeviceScan::InclusiveSum(t, tb, d, dout, std::int64_t(n), s);
                 },
                 last8, [](const twin& w) { return 16.0 * w.n; },
                 [=](const byte* h, const twin& w) {
                   return expect_near("last element", load<double>(h), w.f_sum, d_bound * w.f_abs_sum);
                 }});
    c.push_back({"inclusive_scan", "i64", "sum", "last element (8 B)",
                 [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                   return cub::DeviceScan::InclusiveSum(t, tb, q, qout, std::int64_t(n), s);
                 },
                 last8, [](const twin& w) { return 16.0 * w.n; },
                 [=](const byte* h, const twin& w) {
                   return expect_eq("last element", load<std::int64_t>(h), std::int64_t(w.q_sum));
                 }});
    // 64-bit keys over the whole range (issue 25: within 1.2x of the 32-bit sort's time per byte).
    c.push_back({"sort_keys", "i64", "ascending", "last key (8 B)",
                 [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                   return cub::DeviceRadixSort::SortKeys(t, tb, q, qout, std::int64_t(n), 0, 64, s);
                 },
                 last8, [](const twin& w) { return 16.0 * w.n; },
                 [=](const byte* h, const twin& w) { return expect_eq("last key", load<std::int64_t>(h), w.q_max); }});
  }
  c.push_back({"inclusive_scan", "u32", "sum", "last element (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceScan::InclusiveSum(t, tb, u, out, std::int64_t(n), s);
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_eq("last element", load<std::uint32_t>(h), w.u_sum);
               }});
  c.push_back({"exclusive_scan", "u32", "sum", "last element (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceScan::ExclusiveSum(t, tb, u, out, std::int64_t(n), s);
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_eq("last element", load<std::uint32_t>(h), w.u_sum_but_last);
               }});
  c.push_back({"copy", "u32", "copy-kernel", "last element (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 if (!t) { tb = 0; return cudaSuccess; }
                 const std::size_t threads = std::max<std::size_t>(1, n / 4);
                 copy_kernel<<<unsigned((threads + 255) / 256), 256, 0, s>>>(u, out, n);
                 return cudaGetLastError();
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_eq("last element", load<std::uint32_t>(h), w.u_last);
               }});
  c.push_back({"memcpy", "u32", "cudaMemcpyDeviceToDevice", "last element (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 if (!t) { tb = 0; return cudaSuccess; }
                 return cudaMemcpyAsync(out, u, n * 4, cudaMemcpyDeviceToDevice, s);
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_eq("last element", load<std::uint32_t>(h), w.u_last);
               }});
  c.push_back({"select_if", "f32", "a > 0", "count (8 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceSelect::If(t, tb, f, fout, count, std::int64_t(n), is_positive{}, s);
               },
               count8, [](const twin& w) { return 4.0 * w.n + 4.0 * w.positives; },
               [=](const byte* h, const twin& w) { return expect_eq("kept", load<std::int64_t>(h), w.positives); }});
  c.push_back({"select_flagged", "u32", "flags", "count (8 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceSelect::Flagged(t, tb, u, flags, out, count, std::int64_t(n), s);
               },
               count8, [](const twin& w) { return 8.0 * w.n + 4.0 * w.flagged; },
               [=](const byte* h, const twin& w) { return expect_eq("kept", load<std::int64_t>(h), w.flagged); }});
  c.push_back({"partition_if", "f32", "a > 0", "count (8 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DevicePartition::If(t, tb, f, fout, count, std::int64_t(n), is_positive{}, s);
               },
               count8, [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_eq("selected", load<std::int64_t>(h), w.positives);
               }});
  c.push_back({"unique", "u32", "runs of 20", "count (8 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceSelect::Unique(t, tb, keys, out, count, std::int64_t(n), s);
               },
               count8, [](const twin& w) { return 4.0 * w.n + 4.0 * w.key_runs; },
               [=](const byte* h, const twin& w) { return expect_eq("unique", load<std::int64_t>(h), w.key_runs); }});
  c.push_back({"histogram_even", "f32", "256 bins [-500,500)", "256 counts (1 KiB)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceHistogram::HistogramEven(t, tb, f, histogram, histogram_bins + 1, histogram_lo,
                                                            histogram_hi, int(n), s);
               },
               [histogram](std::size_t) {
                 return std::make_pair(static_cast<const void*>(histogram), std::size_t(histogram_bins * 4));
               },
               [](const twin& w) { return 4.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 std::int64_t total = 0;
                 for (int i = 0; i < histogram_bins; ++i) {
                   const std::int64_t got = load<std::uint32_t>(h + 1024 + 4 * i);
                   total += got;
                   // Only samples on a bin edge can move (1 in 2^14 / 3.9 of them): 1% + 4 is generous for that
                   // and still catches a wrong bin count or a shifted range.
                   const std::int64_t want = w.bins[i];
                   if (std::llabs(got - want) > want / 100 + 4)
                     return expect_eq(("bin " + std::to_string(i)).c_str(), got, want);
                 }
                 return samples_counted(total, w.n);
               }});
  c.push_back({"reduce_by_key", "u32", "sum, runs of 20", "count (8 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceReduce::ReduceByKey(t, tb, keys, out, u, out2, count, ::cuda::std::plus<>{},
                                                       std::int64_t(n), s);
               },
               count8, [](const twin& w) { return 8.0 * w.n + 8.0 * w.key_runs; },
               [=](const byte* h, const twin& w) { return expect_eq("runs", load<std::int64_t>(h), w.key_runs); }});
  c.push_back({"run_length_encode", "u32", "runs of 20", "count (8 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceRunLengthEncode::Encode(t, tb, keys, out, out2, count, int(n), s);
               },
               count8, [](const twin& w) { return 4.0 * w.n + 8.0 * w.key_runs; },
               [=](const byte* h, const twin& w) { return expect_eq("runs", load<std::int64_t>(h), w.key_runs); }});
  c.push_back({"segmented_reduce", "f32", "sum, segments of 1000", "last segment's sum (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 const std::int64_t segments = std::int64_t((n + segment_length - 1) / segment_length);
                 return cub::DeviceSegmentedReduce::Sum(t, tb, f, fout, segments, offsets, offsets + 1, s);
               },
               [out](std::size_t n) {
                 const std::size_t segments = (n + segment_length - 1) / segment_length;
                 return std::make_pair(static_cast<const void*>(out + (segments - 1)), std::size_t(4));
               },
               [](const twin& w) { return 4.0 * w.n + 8.0 * w.segments + 4.0; },
               [=](const byte* h, const twin& w) {
                 return expect_near("last segment", load<float>(h), w.last_segment_sum,
                                    sum_bound * w.last_segment_abs + 1e-3);
               }});
  c.push_back({"sort_keys", "u32", "ascending", "last key (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceRadixSort::SortKeys(t, tb, u, out, std::int64_t(n), 0, 32, s);
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) { return expect_eq("last key", load<std::uint32_t>(h), w.u_max); }});
  c.push_back({"sort_keys", "f32", "ascending", "last key (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceRadixSort::SortKeys(t, tb, f, fout, std::int64_t(n), 0, 32, s);
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) { return expect_near("last key", load<float>(h), w.f_max, 0); }});
  c.push_back({"sort_pairs", "u32", "ascending, u32 values", "last key (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceRadixSort::SortPairs(t, tb, u, out, iota, out2, std::int64_t(n), 0, 32, s);
               },
               last_of(out), [](const twin& w) { return 16.0 * w.n; },
               [=](const byte* h, const twin& w) { return expect_eq("last key", load<std::uint32_t>(h), w.u_max); }});
  // ---- anchors for issues 24, 25 and 27 ----
  c.push_back({"sort_keys", "u32", "ascending, bits 0:16", "last key (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceRadixSort::SortKeys(t, tb, u, out, std::int64_t(n), 0, 16, s);
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 // Keys are distinct, so the key names its index: the last input key with the largest low half.
                 return expect_eq("last key (stable: the last input key with the largest bits 0:16)",
                                  load<std::uint32_t>(h), w.lo16_max_last);
               }});
  c.push_back({"sort_pairs", "u32", "ascending, bits 0:16, u32 values", "last key (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 return cub::DeviceRadixSort::SortPairs(t, tb, u, out, iota, out2, std::int64_t(n), 0, 16, s);
               },
               last_of(out), [](const twin& w) { return 16.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_eq("last key (stable: the last input key with the largest bits 0:16)",
                                  load<std::uint32_t>(h), w.lo16_max_last);
               }});
  {
    // Segmented reduce with segments of 4 and with one segment of n: the same as segments of 1000 above, with
    // their own offsets (filled per n).
    struct seg_reduce {
      const char* op;
      int* offsets;
      std::size_t length;  // 0: one segment
    };
    for (const seg_reduce& sr : {seg_reduce{"sum, segments of 4", b.offsets4, 4},
                                 seg_reduce{"sum, one segment", b.offsets_one, 0}}) {
      int* offs = sr.offsets;
      const std::size_t len = sr.length;
      auto segments_of = [len](std::size_t n) -> std::size_t { return len ? (n + len - 1) / len : 1; };
      c.push_back({"segmented_reduce", "f32", sr.op, "last segment's sum (4 B)",
                   [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                     return cub::DeviceSegmentedReduce::Sum(t, tb, f, fout, std::int64_t(segments_of(n)), offs,
                                                            offs + 1, s);
                   },
                   [out, segments_of](std::size_t n) {
                     return std::make_pair(static_cast<const void*>(out + (segments_of(n) - 1)), std::size_t(4));
                   },
                   [segments_of](const twin& w) { return 4.0 * w.n + 8.0 * segments_of(w.n) + 4.0; },
                   [=](const byte* h, const twin& w) {
                     const double want = len ? w.last_segment4_sum : w.f_sum;
                     const double abs = len ? w.last_segment4_abs : w.f_abs_sum;
                     return expect_near("last segment", load<float>(h), want, sum_bound * abs + 1e-3);
                   }});
    }
  }
  {
    // Segmented scan: CUB has none by offsets; an inclusive sum by key over u32 segment ids (i / L) is the anchor.
    struct seg_scan {
      const char* op;
      const std::uint32_t* ids;
      int which;  // 0: segments of 1000, 1: of 4, 2: one segment
    };
    for (const seg_scan& ss : {seg_scan{"sum, segments of 1000", b.ids1000, 0},
                               seg_scan{"sum, segments of 4", b.ids4, 1},
                               seg_scan{"sum, one segment", b.ids_one, 2}}) {
      const std::uint32_t* ids = ss.ids;
      const int which = ss.which;
      c.push_back({"segmented_scan", "u32", ss.op, "last element (4 B)",
                   [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                     return cub::DeviceScan::InclusiveSumByKey(t, tb, ids, u, out, std::int64_t(n),
                                                               ::cuda::std::equal_to<>{}, s);
                   },
                   last_of(out), [](const twin& w) { return 12.0 * w.n; },
                   [=](const byte* h, const twin& w) {
                     const std::uint32_t want =
                         which == 0 ? w.u_last_segment_sum : which == 1 ? w.u_last_segment4_sum : w.u_sum;
                     return expect_eq("last element (the last segment's sum)", load<std::uint32_t>(h), want);
                   }});
    }
  }
  {
    auto* histogram_many = reinterpret_cast<std::uint32_t*>(small + 4096);
    c.push_back({"histogram_even", "f32", "4096 bins [-500,500)", "4096 counts (16 KiB)",
                 [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                   return cub::DeviceHistogram::HistogramEven(t, tb, f, histogram_many, histogram_bins_many + 1,
                                                              histogram_lo, histogram_hi, int(n), s);
                 },
                 [histogram_many](std::size_t) {
                   return std::make_pair(static_cast<const void*>(histogram_many),
                                         std::size_t(histogram_bins_many * 4));
                 },
                 [](const twin& w) { return 4.0 * w.n; },
                 [=](const byte* h, const twin& w) {
                   std::int64_t total = 0;
                   for (int i = 0; i < histogram_bins_many; ++i) {
                     const std::int64_t got = load<std::uint32_t>(h + 4096 + 4 * i);
                     total += got;
                     // 1 sample in 4000 lies on a bin edge (the twin bins it exactly; CUB's float formula may not).
                     const std::int64_t want = w.bins_many[i];
                     if (std::llabs(got - want) > want / 100 + 4)
                       return expect_eq(("bin " + std::to_string(i)).c_str(), got, want);
                   }
                   return samples_counted(total, w.n);
                 }});
  }
  {
    // Segmented sort: the read-back is the last key; the check also copies the whole last segment (outside the
    // timed calls) and wants it sorted, ending in the segment's max, with the segment's wrapped sum.
    struct seg_sort {
      const char* op;
      int* offsets;
      std::size_t length;
    };
    for (const seg_sort& ss : {seg_sort{"ascending, segments of 16", b.offsets16, 16},
                               seg_sort{"ascending, segments of 1000", b.offsets, std::size_t(segment_length)}}) {
      int* offs = ss.offsets;
      const std::size_t len = ss.length;
      c.push_back({"segmented_sort", "u32", ss.op, "last key (4 B)",
                   [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                     return cub::DeviceSegmentedSort::SortKeys(t, tb, u, out, std::int64_t(n),
                                                               std::int64_t((n + len - 1) / len), offs, offs + 1, s);
                   },
                   last_of(out), [len](const twin& w) { return 8.0 * w.n + 4.0 * ((w.n + len - 1) / len) + 4.0; },
                   [=](const byte* h, const twin& w) {
                     const std::uint32_t want_max = len == 16 ? w.seg16_max : w.seg1000_max;
                     const std::uint32_t want_sum = len == 16 ? w.seg16_sum : w.u_last_segment_sum;
                     std::string e = expect_eq("last key (the last segment's max)", load<std::uint32_t>(h), want_max);
                     if (!e.empty() || w.n == 0) return e;
                     const std::size_t start = last_segment_start(w.n, len);
                     std::vector<std::uint32_t> seg(w.n - start);
                     CHECK(cudaMemcpy(seg.data(), out + start, seg.size() * 4, cudaMemcpyDeviceToHost));
                     std::uint32_t sum = 0;
                     for (std::size_t i = 0; i < seg.size(); ++i) {
                       sum += seg[i];
                       if (i && seg[i - 1] > seg[i])
                         return "last segment not sorted at " + std::to_string(start + i);
                     }
                     e = expect_eq("last segment's wrapped sum", sum, want_sum);
                     return e.empty() ? expect_eq("last segment's last key", seg.back(), want_max) : e;
                   }});
    }
  }
  c.push_back({"merge_sort", "u32", "a > b", "last key (4 B)",
               [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) {
                 // SortKeysCopy: input untouched, the sorted copy in `out` (the in-place SortKeys would need a
                 // copy of the keys first).
                 return cub::DeviceMergeSort::SortKeysCopy(t, tb, u, out, std::int64_t(n), greater_u32{}, s);
               },
               last_of(out), [](const twin& w) { return 8.0 * w.n; },
               [=](const byte* h, const twin& w) {
                 return expect_eq("last key (min)", load<std::uint32_t>(h), w.u_min);
               }});
  {
    // Issue 27's chain: select the even values of the fused view x & 0xffff (a transform iterator over the u32
    // data), sort them on bits 0:16, unique, count. CUB needs the select's count on the host to size the sort and
    // the unique: one round trip inside the call (pinned host slot at 16), then the final count read back.
    auto view = thrust::make_transform_iterator(static_cast<const std::uint32_t*>(u), low16{});
    auto* kept_count = reinterpret_cast<std::int64_t*>(small + 16);
    byte* host = b.host;
    c.push_back({"chain", "u32", "select even of x & 0xffff -> sort 0:16 -> unique -> count", "count (8 B)",
                 [=](void* t, std::size_t& tb, std::size_t n, cudaStream_t s) -> cudaError_t {
                   std::size_t t1 = 0, t2 = 0, t3 = 0;
                   if (!t) {
                     cudaError_t e = cub::DeviceSelect::If(nullptr, t1, view, out, kept_count, std::int64_t(n),
                                                           is_even{}, s);
                     if (e == cudaSuccess)
                       e = cub::DeviceRadixSort::SortKeys(nullptr, t2, out, out2, std::int64_t(n), 0, 16, s);
                     if (e == cudaSuccess)
                       e = cub::DeviceSelect::Unique(nullptr, t3, out2, out, count, std::int64_t(n), s);
                     tb = std::max({t1, t2, t3});
                     return e;
                   }
                   t1 = tb;
                   cudaError_t e = cub::DeviceSelect::If(t, t1, view, out, kept_count, std::int64_t(n), is_even{}, s);
                   if (e != cudaSuccess) return e;
                   if ((e = cudaMemcpyAsync(host + 16, kept_count, 8, cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
                       (e = cudaStreamSynchronize(s)) != cudaSuccess)
                     return e;
                   const std::int64_t kept = load<std::int64_t>(host + 16);
                   t2 = tb;
                   if ((e = cub::DeviceRadixSort::SortKeys(t, t2, out, out2, kept, 0, 16, s)) != cudaSuccess) return e;
                   t3 = tb;
                   return cub::DeviceSelect::Unique(t, t3, out2, out, count, kept, s);
                 },
                 count8,
                 // Select reads n and writes the kept k, the sort reads and writes k, unique reads k and writes u.
                 [](const twin& w) { return 4.0 * w.n + 16.0 * w.chain_kept + 4.0 * w.chain_distinct; },
                 [=](const byte* h, const twin& w) {
                   return expect_eq("distinct kept values", load<std::int64_t>(h), w.chain_distinct);
                 }});
  }
  return c;
}

// ---- timing ---------------------------------------------------------------------------------------------------------

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct options {
  std::vector<int> log2s = {16, 18, 20, 22, 24, 26, 28};
  std::vector<std::string> primitives;  // empty: all
  int k = 50, reps = 7, warmup = 3, device = 0;
  bool json = false, check = true;
};

void usage() {
  std::printf(
      "usage: cub_bench [--sizes 16,18,...,28] [--primitives NAME,...] [--k 50] [--reps 7] [--warmup 3]\n"
      "                 [--device 0] [--no-check] [--json]\n"
      "  --sizes       log2 of n (0..30), comma-separated\n"
      "  --primitives  primitive names, or substrings of them (reduce, transform_reduce, arg_max, inclusive_scan,\n"
      "                exclusive_scan, copy, memcpy, select_if, select_flagged, partition_if, unique,\n"
      "                histogram_even, reduce_by_key, run_length_encode, segmented_reduce, sort_keys, sort_pairs,\n"
      "                segmented_scan, segmented_sort, merge_sort, chain)\n"
      "  --json        JSON lines: one header record, then one record per primitive/type/n\n");
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::size_t a = 0;
  while (a <= s.size()) {
    std::size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) r.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return r;
}

int parse_int(const char* flag, const char* v, int lo, int hi) {
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (!*v || *end || x < lo || x > hi) {
    std::fprintf(stderr, "cub_bench: %s wants an integer in [%d, %d], got '%s'\n", flag, lo, hi, v);
    std::exit(2);
  }
  return int(x);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cub_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--json") o.json = true;
    else if (a == "--no-check") o.check = false;
    else if (a == "--k") o.k = parse_int("--k", value(), 1, 100000);
    else if (a == "--reps") o.reps = parse_int("--reps", value(), 1, 1000);
    else if (a == "--warmup") o.warmup = parse_int("--warmup", value(), 0, 1000);
    else if (a == "--device") o.device = parse_int("--device", value(), 0, 64);
    else if (a == "--primitives") o.primitives = split(value());
    else if (a == "--sizes") {
      o.log2s.clear();
      for (const auto& s : split(value())) o.log2s.push_back(parse_int("--sizes", s.c_str(), 0, 30));
      if (o.log2s.empty()) { std::fprintf(stderr, "cub_bench: --sizes is empty\n"); std::exit(2); }
    } else if (a == "--help" || a == "-h") { usage(); std::exit(0); }
    else {
      std::fprintf(stderr, "cub_bench: unknown argument '%s' (try --help)\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  CHECK(cudaSetDevice(o.device));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, o.device));
  int driver = 0;
  CHECK(cudaDriverGetVersion(&driver));

  const std::size_t n_max = std::size_t(1) << *std::max_element(o.log2s.begin(), o.log2s.end());
  buffers b{};
  CHECK(cudaMalloc(&b.u, n_max * 4));
  CHECK(cudaMalloc(&b.f, n_max * 4));
  CHECK(cudaMalloc(&b.keys, n_max * 4));
  CHECK(cudaMalloc(&b.flags, n_max * 4));
  CHECK(cudaMalloc(&b.iota, n_max * 4));
  CHECK(cudaMalloc(&b.out, n_max * 4));
  CHECK(cudaMalloc(&b.out2, n_max * 4));
  CHECK(cudaMalloc(&b.offsets, (n_max / segment_length + 2) * sizeof(int)));
  CHECK(cudaMalloc(&b.offsets4, (n_max / 4 + 2) * sizeof(int)));
  CHECK(cudaMalloc(&b.offsets16, (n_max / 16 + 2) * sizeof(int)));
  CHECK(cudaMalloc(&b.offsets_one, 2 * sizeof(int)));
  CHECK(cudaMalloc(&b.ids1000, n_max * 4));
  CHECK(cudaMalloc(&b.ids4, n_max * 4));
  CHECK(cudaMalloc(&b.ids_one, n_max * 4));
  CHECK(cudaMalloc(&b.small, small_bytes));
  CHECK(cudaMalloc(&b.d, n_max * 8));
  CHECK(cudaMalloc(&b.q, n_max * 8));
  CHECK(cudaMalloc(&b.out64, n_max * 8));
  CHECK(cudaMallocHost(&b.host, small_bytes));
  fill_kernel<<<4096, 256>>>(b.u, b.f, b.keys, b.flags, b.iota, n_max);
  segment_ids_kernel<<<4096, 256>>>(b.ids1000, n_max, segment_length);
  segment_ids_kernel<<<4096, 256>>>(b.ids4, n_max, 4);
  segment_ids_kernel<<<4096, 256>>>(b.ids_one, n_max, 0);
  fill64_kernel<<<4096, 256>>>(b.d, b.q, n_max);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));

  // A --primitives entry that names a primitive exactly selects only it ("reduce"); otherwise it selects every
  // primitive whose name contains it ("scan", "sort").
  std::vector<bench_case> all = make_cases(b), cases;
  auto selects = [&](const std::string& entry, const std::string& name) {
    bool exact = false;
    for (const auto& c : all) exact = exact || entry == c.primitive;
    return exact ? entry == name : name.find(entry) != std::string::npos;
  };
  for (auto& c : all) {
    bool want = o.primitives.empty();
    for (const auto& p : o.primitives) want = want || selects(p, c.primitive);
    if (want) cases.push_back(c);
  }
  if (cases.empty()) {
    std::fprintf(stderr, "cub_bench: --primitives matches nothing (try --help)\n");
    return 2;
  }

  if (o.json)
    std::printf("{\"adapter\": \"%s\", \"backend\": \"cuda\", \"cuda_runtime\": %d, \"cuda_driver\": %d, "
                "\"cub_version\": %d, \"timer\": \"wall (steady_clock) and cuda-events\", \"k\": %d, \"reps\": %d, "
                "\"warmup\": %d, \"checked\": %s}\n",
                prop.name, CUDART_VERSION, driver, CUB_VERSION, o.k, o.reps, o.warmup, o.check ? "true" : "false");
  else
    std::printf("%s, CUDA runtime %d, CUB %d; wall clock per call: K = %d, median of %d rounds after %d warm-up\n"
                "%-18s %-4s %11s %10s %10s %10s %8s  %s\n",
                prop.name, CUDART_VERSION, CUB_VERSION, o.k, o.reps, o.warmup, "primitive", "type", "n", "call_ms",
                "batched_ms", "gpu_ms", "GB/s", "check");
  std::fflush(stdout);

  int failures = 0;
  for (int lg : o.log2s) {
    const std::size_t n = std::size_t(1) << lg;
    const std::size_t n_segments = (n + segment_length - 1) / segment_length;
    offsets_kernel<<<unsigned(std::min<std::size_t>(4096, n_segments / 256 + 1)), 256>>>(b.offsets, n_segments, n,
                                                                                         segment_length);
    for (std::size_t len : {std::size_t(4), std::size_t(16)}) {
      const std::size_t segs = (n + len - 1) / len;
      offsets_kernel<<<unsigned(std::min<std::size_t>(4096, segs / 256 + 1)), 256>>>(
          len == 4 ? b.offsets4 : b.offsets16, segs, n, len);
    }
    offsets_kernel<<<1, 32>>>(b.offsets_one, 1, n, n ? n : 1);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    const twin w(o.check ? n : 0);  // checks off: an empty twin, no CPU pass
    for (auto& c : cases) {
      std::size_t temp_bytes = 0;
      CHECK(c.call(nullptr, temp_bytes, n, s));
      void* temp = nullptr;
      CHECK(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 16)));
      const auto res = c.result(n);
      // The host copy lands at the result's offset within `small` when it lives there (arg-max index at 8,
      // histograms at 1024 and 4096), else at 0: the checks read one layout.
      std::size_t at = 0;
      const auto* res_p = static_cast<const unsigned char*>(res.first);
      if (res_p >= b.small && res_p < b.small + small_bytes) at = std::size_t(res_p - b.small);
      auto one_call_read_back = [&] {
        CHECK(c.call(temp, temp_bytes, n, s));
        CHECK(cudaMemcpyAsync(b.host + at, res.first, res.second, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
      };
      // Outputs poisoned first: a case that wrote nothing cannot pass on the previous case's results.
      CHECK(cudaMemsetAsync(b.out, 0xab, n * 4, s));
      CHECK(cudaMemsetAsync(b.out2, 0xab, n * 4, s));
      CHECK(cudaMemsetAsync(b.small, 0xab, small_bytes, s));
      for (int i = 0; i < std::max(o.warmup, 1); ++i) one_call_read_back();

      std::vector<double> call, batched, gpu;
      for (int r = 0; r < o.reps; ++r) {
        double t0 = now_ms();
        for (int k = 0; k < o.k; ++k) one_call_read_back();
        call.push_back((now_ms() - t0) / o.k);
      }
      // The last read-back is checked before anything else writes the output.
      std::string bad = o.check ? c.check(b.host, w) : "";
      for (int r = 0; r < o.reps; ++r) {
        double t0 = now_ms();
        for (int k = 0; k < o.k; ++k) CHECK(c.call(temp, temp_bytes, n, s));
        CHECK(cudaStreamSynchronize(s));
        batched.push_back((now_ms() - t0) / o.k);
      }
      for (int r = 0; r < o.reps; ++r)
        for (int k = 0; k < o.k; ++k) {
          CHECK(cudaEventRecord(e0, s));
          CHECK(c.call(temp, temp_bytes, n, s));
          CHECK(cudaEventRecord(e1, s));
          CHECK(cudaEventSynchronize(e1));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, e0, e1));
          gpu.push_back(ms);
        }
      CHECK(cudaFree(temp));

      const double call_ms = median(call), batched_ms = median(batched), gpu_ms = median(gpu);
      // Bytes moved need the twin's counts; with checks off, the generator's expected counts stand in.
      twin est(0);
      est.n = n;
      est.positives = est.flagged = std::int64_t(n / 2);
      est.key_runs = std::int64_t((n + run_length - 1) / run_length);
      est.segments = std::int64_t(n_segments);
      est.chain_kept = std::int64_t(n / 2);  // about half the values are even; 2^15 even values of 16 bits
      est.chain_distinct = std::int64_t(32768.0 * (1.0 - std::exp(-double(n / 2) / 32768.0)));
      const double bytes = c.bytes_moved(o.check ? w : est);
      const double gbps = bytes / (batched_ms * 1e-3) / 1e9, gpu_gbps = bytes / (gpu_ms * 1e-3) / 1e9;
      if (!bad.empty()) {
        ++failures;
        std::fprintf(stderr, "cub_bench: WRONG RESULT %s %s n=%zu: %s\n", c.primitive, c.type, n, bad.c_str());
      }
      const char* verdict = !o.check ? "unchecked" : bad.empty() ? "ok" : "WRONG";
      // The copies are no CUB algorithm: named apart, so that charts (wgprim bench --plot --cub) keep them apart.
      const std::string prim = c.primitive;
      const char* algorithm = prim == "copy" ? "copy-kernel" : prim == "memcpy" ? "cudaMemcpy" : "cub";
      if (o.json)
        std::printf("{\"primitive\": \"%s\", \"algorithm\": \"%s\", \"type\": \"%s\", \"op\": \"%s\", \"n\": %zu, "
                    "\"call_ms\": %.6f, \"batched_ms\": %.6f, \"gpu_ms\": %.6f, \"gbps\": %.2f, \"gpu_gbps\": %.2f, "
                    "\"bytes\": %.0f, \"readback\": \"%s\", \"temp_bytes\": %zu, \"check\": \"%s\"}\n",
                    c.primitive, algorithm, c.type, c.op, n, call_ms, batched_ms, gpu_ms, gbps, gpu_gbps, bytes,
                    c.readback,
                    temp_bytes, verdict);
      else
        std::printf("%-18s %-4s %11zu %10.4f %10.4f %10.4f %8.1f  %s\n", c.primitive, c.type, n, call_ms, batched_ms,
                    gpu_ms, gbps, verdict);
      std::fflush(stdout);
    }
  }
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFreeHost(b.host));
  for (void* p : {static_cast<void*>(b.d), static_cast<void*>(b.q), static_cast<void*>(b.out64)}) CHECK(cudaFree(p));
  for (void* p : {static_cast<void*>(b.u), static_cast<void*>(b.f), static_cast<void*>(b.keys),
                  static_cast<void*>(b.flags), static_cast<void*>(b.iota), static_cast<void*>(b.out),
                  static_cast<void*>(b.out2), static_cast<void*>(b.offsets), static_cast<void*>(b.small)})
    CHECK(cudaFree(p));
  for (void* p : {static_cast<void*>(b.offsets4), static_cast<void*>(b.offsets16), static_cast<void*>(b.offsets_one),
                  static_cast<void*>(b.ids1000), static_cast<void*>(b.ids4), static_cast<void*>(b.ids_one)})
    CHECK(cudaFree(p));
  if (failures) std::fprintf(stderr, "cub_bench: %d wrong result(s)\n", failures);
  return failures ? 1 : 0;
}
