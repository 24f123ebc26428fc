/// @file
/// Recorded pipelines: a chain of primitives described once and run many times on new inputs of other lengths,
/// with no host round trip between its steps. Each step takes its length from the previous step's count on the
/// device (device_count.hpp): a compaction's count sizes the next pass's grid through an indirect dispatch. A run
/// records the whole chain into one command encoder and submits it once; reading the count or the output waits.
/// @code
///   auto p = wgprim::pipeline(ctx, wgprim::dtype::u32);
///   p.select_if(wgprim::predicate::expr("a % 2u == 0u")).sort(wgprim::key_bits(0, 16)).unique();
///   std::uint64_t k1 = p.run(d_x);          // one submit, one wait (the count)
///   std::uint64_t k2 = p.run(host_vector);  // again, on another input of another length: no shader compiled
///   std::vector<std::uint32_t> out = p.output<std::uint32_t>();
/// @endcode
/// WebGPU command buffers are single-use, so every run needs the recorded steps encoded again; a replay does not
/// compose WGSL anew into new shaders or create pipelines (kernels_created_last_run() is 0 from the second run
/// with a length that fits the capacity). Once two runs in a row had the same input (the same device range, or
/// host data of the same length), each run also encodes the next one while the GPU works on it, and the next run
/// with that input only submits it: the encoding is off the caller's wait. Such a run reads its input, like any
/// run, when it executes (writes queued before it are seen). It keeps a reference to its input buffer until the
/// next run or the pipeline's end, and the kernels and policies of when it was recorded (a set_policy between runs
/// takes effect from the run after). A step appended, another input or length drops it. The capacity grows to the largest input seen (new buffers, the same
/// kernels). On the native backend each step runs eagerly, the count read on the host between steps.
/// Element types: u32, i32 and f32. Steps: select_if, sort (keys, in place, a bit range), unique.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "wgprim/context.hpp"
#include "wgprim/device_count.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/predicate.hpp"
#include "wgprim/sort.hpp"

namespace wgprim {

/// A chain of steps recorded once, run many times (see the file's description). Move-only; keeps its context's
/// reference, so the context must outlive it.
class pipeline {
 public:
  /// An empty chain of `type` elements (u32, i32 or f32) on ctx.
  explicit pipeline(context& ctx, dtype type = dtype::u32);
  ~pipeline();
  /// Takes o's chain and buffers.
  pipeline(pipeline&& o) noexcept;
  /// Releases this chain and takes o's.
  pipeline& operator=(pipeline&& o) noexcept;
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;

  /// Appends a step: keep the elements for which `p` holds, in order (select_if). The predicate is checked here.
  pipeline& select_if(const predicate& p);
  /// Appends a step: sort the elements in place (a stable radix sort on the order's bit range).
  pipeline& sort(sort_order o = {});
  /// Appends a step: drop consecutive duplicates (unique).
  pipeline& unique();
  /// The number of steps.
  std::size_t steps() const;
  /// The element type.
  dtype type() const;

  /// Runs the chain on `in` (a device or host range of the pipeline's element type) and returns the final count:
  /// one submission, then one wait for the count.
  template <class R, class = std::enable_if_t<detail::is_range_v<R>>>
  std::uint64_t run(const R& in) {
    check_type(dtype_of<detail::range_value_t<R>>::value);
    enqueue_ref(detail::in_ref(in));
    return count().read();
  }
  /// Queues the chain on `in` and returns without waiting; count(), output() and context::finish() wait. Host
  /// input is copied before it returns; a device input may be changed or released at once (later writes queue
  /// behind the run, and wgpu keeps a released buffer until the work that reads it is done).
  template <class R, class = std::enable_if_t<detail::is_range_v<R>>>
  void enqueue(const R& in) {
    check_type(dtype_of<detail::range_value_t<R>>::value);
    enqueue_ref(detail::in_ref(in));
  }
  /// The final count, on the device (read() waits for the queued run).
  const device_count& count() const;
  /// The last step's elements (the first count() of the pipeline's buffer), read back: waits.
  template <class T>
  std::vector<T> output() {
    check_type(dtype_of<T>::value);
    std::vector<T> out(static_cast<std::size_t>(count().read()));
    read_output(out.data(), out.size());
    return out;
  }
  /// The first n elements of the last step's output as raw 32-bit words (whatever the element type): waits.
  void read_output_bits(std::uint32_t* dst, std::size_t n) { read_output(dst, n); }
  /// How many kernels (shaders and their pipelines) the last run created: 0 for a replay.
  std::uint64_t kernels_created_last_run() const;
  /// How many compute dispatches the last run's recording holds (each costs GPU time between passes: a few us on
  /// NVIDIA); 0 on the native backend, which runs the steps eagerly.
  std::uint64_t dispatches_last_run() const;
  /// The CPU twin of the chain on raw 32-bit elements: the expected output of run().
  std::vector<std::uint32_t> reference(const std::uint32_t* bits, std::size_t n) const;

 private:
  void check_type(dtype t) const;
  void enqueue_ref(const detail::range_ref& in);
  void read_output(void* dst, std::size_t n);
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace wgprim
