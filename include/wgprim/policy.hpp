/// @file
/// Policies as data: the knobs of each primitive family's kernels (items per invocation, workgroups, look-back
/// window, ...) come from one built-in table keyed by the adapter's class (vendor, or a CPU adapter such as
/// lavapipe), replaced knob by knob by the per-adapter file that `wgprim tune` writes under
/// $XDG_CACHE_HOME/wgprim/ (WGPRIM_NO_TUNE=1 ignores the file). run_options::tune still overrides a single call.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "wgprim/context.hpp"

namespace wgprim {

/// One knob of a policy, named "family.knob" ("scan.items", "reduce.workgroups", ...).
struct policy_knob {
  std::string name;          ///< "family.knob"
  std::uint64_t value = 0;   ///< the value in effect (flags are 0 or 1, layouts 0 direct, 1 staged, 2 raked)
  std::uint64_t builtin = 0;  ///< the built-in table's value for this adapter class
  /// The range the kernels take.
  ///@{
  std::uint64_t min = 0, max = 0;
  ///@}
  std::string about;  ///< one line: what it sets
};

/// The policy a context runs and where it came from.
struct policy_info {
  std::string adapter_class;  ///< the built-in table's row: "nvidia", "amd", "intel", "apple", "gpu", "cpu-adapter", "native"
  std::string source;         ///< "built-in (CLASS)", or the file whose values replaced the built-in ones
  std::string file;           ///< the per-adapter file looked for ("" on a native context or without a cache folder)
  std::string warning;        ///< why the file was not used ("" when it was, or there is none)
  std::vector<policy_knob> knobs;  ///< every knob, in table order
};

/// The policy in effect on `ctx` (read once per context; the first call loads the per-adapter file).
policy_info policy(const context& ctx);

/// Replaces knobs of `ctx`'s policy for its later calls, e.g. {{"scan.items", 2}} (`wgprim tune` times candidates
/// so); the other knobs keep their values. Throws errc::invalid_argument naming an unknown knob or a value out of
/// its range (and changes nothing then).
void set_policy(context& ctx, const std::vector<std::pair<std::string, std::uint64_t>>& values);

/// The file name (without folder) of the adapter's tuned policy: its name and driver, lower case, runs of other
/// characters than [a-z0-9] as one '-', then ".json".
std::string policy_file_name(const adapter_info& adapter);

}  // namespace wgprim
