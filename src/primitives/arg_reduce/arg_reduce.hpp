// The arg-min / arg-max primitive's record function and its algorithm.
#pragma once
#include "primitives/primitive.hpp"
#include "wgprim/arg_reduce.hpp"
#include "wgprim/view.hpp"

namespace wgprim::detail {

struct arg_reduce_args {
  device_view in;             // bindable (aligned); in.count > 0
  dtype type;
  arg_op op;
  WGPUBuffer result;          // the result words (value bits, index low, index high) land at word result_word
  std::uint64_t result_bytes; // of this buffer (bound whole)
  std::uint32_t result_word;
  const run_options* opt;
  const view_desc* view = nullptr;  // a fused view (counting, constant, gather; bindable) read instead of `in`
  const algorithm_entry* alg = nullptr;  // what the call resolved; null: record_arg_reduce picks it
};

/// Records the arg reduction of args.in into the result words: args.alg, else the registry's pick.
void record_arg_reduce(recorder& rec, const arg_reduce_args& args);

void record_arg_reduce_fast(recorder& rec, const arg_reduce_args& a);

extern const kernel_spec arg_reduce_partials_spec, arg_reduce_final_spec;

}  // namespace wgprim::detail
