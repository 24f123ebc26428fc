// The policy table: every primitive family's policy struct (its folder's policy.hpp), one built-in row per adapter
// class, replaced knob by knob by the per-adapter file of `wgprim tune` (wgprim/policy.hpp). Each family's
// <name>_policy_for starts from policy_for(ctx) and applies what the adapter's limits and features impose and the
// per-call tuning; the values that measurements chose live here, with the measurements.
#pragma once
#include <memory>
#include <string>

#include "primitives/arg_reduce/policy.hpp"
#include "primitives/histogram/policy.hpp"
#include "primitives/reduce/policy.hpp"
#include "primitives/scan/policy.hpp"
#include "primitives/select/policy.hpp"
#include "primitives/sort/policy.hpp"
#include "wgprim/context.hpp"

namespace wgprim::detail {

// The table's rows. The vendors are told apart by PCI vendor id; a CPU adapter (lavapipe, SwiftShader) by its kind.
enum class adapter_class { nvidia, amd, intel, apple, gpu, cpu_adapter, native };
const char* adapter_class_name(adapter_class c);
adapter_class classify(const context& ctx);

struct policies {
  scan_policy scan;
  select_policy select;
  reduce_policy reduce;
  arg_reduce_policy arg_reduce;
  sort_onesweep_policy sort;
  sort_merge_policy merge;
  histogram_policy histogram;
};

// The built-in row of a class (what every policy was before the table: tests check it).
policies builtin_policies(adapter_class c);

struct policy_set {
  adapter_class cls = adapter_class::gpu;
  policies p;
  std::string source, file, warning;
};

// The context's policy set, built on its first use (the file read then) and kept while the context lives.
const policy_set& policy_set_for(const context& ctx);
// Its policies: what each family's <name>_policy_for starts from.
inline const policies& policy_for(const context& ctx) { return policy_set_for(ctx).p; }

}  // namespace wgprim::detail
