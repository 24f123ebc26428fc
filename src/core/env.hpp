// Every environment variable the library reads is read here, and nowhere else; docs/cli.md ("Environment
// variables") is their table. The command line reads none of its own (its options serve), and the test hooks of
// the MPI tests are compiled into the test build of the command only (tools/cli/test_hooks.cpp).
#pragma once
#include <optional>
#include <string>

namespace wgprim::detail::env {

/// WGPRIM_ADAPTER: the adapter a context opens when none is named ("" when unset).
std::string adapter();
/// WGPRIM_BACKENDS=all: let the GL backend's adapters in (Vulkan, Metal and D3D12 only otherwise).
bool all_backends();
/// WGPRIM_TIMEOUT_S: the longest wait on the GPU, overriding context_options::timeout_s; throws
/// errc::invalid_argument when it is set to anything but a positive number.
std::optional<double> timeout_s();
/// WGPRIM_IMMEDIATES=0: kernel parameters through a uniform ring instead of immediates (for comparison); throws
/// errc::invalid_argument for any value but 0 or 1.
bool immediates_off();
/// WGPRIM_MAPPED_RESULT=0: a reduce's result through a staging copy instead of a buffer the host maps; throws
/// errc::invalid_argument for any value but 0 or 1.
bool mapped_result_off();
/// WGPRIM_QUEUED_CALLS: how many queued device-range calls share one submission (1..4096; 1: each call submits
/// its own; docs/cpp.md "When calls wait"); 0 when unset or empty (the default); throws errc::invalid_argument for
/// anything else.
unsigned queued_calls();
/// WGPRIM_MPI_TIMEOUT_S: the MPI watchdog's longest time in one collective; a value that is not a number >= 0 is
/// ignored (nullopt).
std::optional<double> mpi_timeout_s();

/// WGPRIM_ONESWEEP_WG=256|512: the onesweep sort's workgroup size instead of its policy's (A/B runs, tests); 0 when
/// unset or "0"; throws errc::invalid_argument for any other value.
unsigned onesweep_wg();
/// WGPRIM_ONESWEEP_POOL=WORDS (measurement only): the onesweep's workgroup pool at least this many u32 words, so
/// that fewer workgroups fit an SM (an occupancy sweep: the time stays flat until the pad limits residency below
/// what registers already allow); 0 when unset; throws errc::invalid_argument for anything but 0..2^20.
unsigned onesweep_pool();
/// WGPRIM_ONESWEEP_RANK=ballot|atomic: how the onesweep sort ranks a tile's keys (A/B runs, tests): -1 unset (the
/// adapter's policy: atomic on GPUs, ballot on CPU adapters), 0 ballot (a workgroup barrier per key), 1 atomic
/// (ballots, and each digit's running count bumped with a workgroup atomic whose old value is the rank base: no
/// barrier per key); throws errc::invalid_argument for any other value.
int onesweep_rank();
/// WGPRIM_ONESWEEP_RELOAD=0|1: the keys' digits packed four to a word after the loads and the keys read again
/// for the scatter (1), or the keys held in registers through the pass (0); -1 when unset (the policy's:
/// sort.reload_keys, on for GPUs); throws
/// errc::invalid_argument for any other value.
int onesweep_reload();
/// WGPRIM_ONESWEEP_FOLD=0|1: the onesweep adds the tile's digit starts into the slots' prefixes when every subgroup
/// ranks in one phase (1, the default), or after the look-back (0; A/B runs); -1 when unset
int onesweep_fold();
/// WGPRIM_ONESWEEP_EARLY=0|1: the onesweep publishes its tiles' digit counts before ranking (1) or after (0); -1
/// unset (the policy's sort.early_counts).
int onesweep_early();
/// WGPRIM_ONESWEEP_MATCH=0|1: the onesweep ranks 32-lane (or narrower) subgroups by workgroup atomicOr match words and
/// subgroup barriers (1) or by eight ballots per key (0); -1 unset (the policy's sort.rank_match). Needs the adapter's
/// subgroup barrier; without it the ballots rank.
int onesweep_match();
/// WGPRIM_ONESWEEP_MATCH_CLEAR=leader|own|pair (A/B runs): after every lane has read a match word, its lowest lane
/// clears it and a third subgroup barrier orders that before the next key (leader, the default); each lane takes its
/// own bit back with an atomicXor and no third barrier (own); or alternate keys use two words per digit and each
/// lane takes back its bit of the previous key after this key's one barrier (pair); 0 / 1 / 2, -1 unset.
int onesweep_match_clear();
/// WGPRIM_ONESWEEP_ROUNDS=1..6 / WGPRIM_ONESWEEP_SLOTS=1..16 (A/B runs): the onesweep's scatter rounds and subgroup
/// histograms instead of the policy's (sort.scatter_rounds, sort.slots); 0 when unset; throws
/// errc::invalid_argument for any other value.
unsigned onesweep_rounds();
unsigned onesweep_slots();
/// WGPRIM_UNROLL=0|1 (A/B runs, tests): the loops marked `//! unroll` written out (1) or left loops (0) instead of
/// the policy's choice, in every kernel that has one: the onesweep sort (sort.unroll: GPUs on, CPU adapters off) and
/// the decoupled select family (select.unroll: off); -1 when unset; throws errc::invalid_argument for any other value.
int unroll();
/// WGPRIM_EXACT_LOAD_FIRST=0|1 (A/B runs): the exact sum's tile walk loads a whole tile into registers before adding
/// it (1, the default) or loads each vec4 as it adds it (0); -1 when unset.
int exact_load_first();
/// A 0|1 setting read as -1 when unset (unroll(), onesweep_reload(), onesweep_early()...): the setting where set,
/// else the policy's choice `policy`.
inline bool set_or(int setting, bool policy) { return setting >= 0 ? setting == 1 : policy; }
/// unroll() where set, else the policy's choice `policy`.
inline bool unroll_or(bool policy) { return set_or(unroll(), policy); }
/// WGPRIM_ONESWEEP_ABLATE=rank,lookback,scatter (any subset): measurement only, the onesweep digit pass skips those
/// phases (the output is then NOT sorted) so that per-phase costs show in `sort --phases` (issue 25 item 1). Bit 0
/// rank, bit 1 look-back, bit 2 scatter; 0 when unset.
unsigned onesweep_ablate();
/// WGPRIM_HISTOGRAM_AB=step1|step2|step4|step8,scalar,merge|nomerge,noatomic (A/B runs): the atomic histogram's loads
/// per step, scalar loads instead of vec4, one atomic per run of one bin or per value, and (measurement only: wrong
/// counts) no atomic per value.
struct histogram_ab {
  unsigned step = 0;  // 0: the policy's
  int merge = -1;     // -1: the policy's
  bool scalar = false, no_atomics = false;
};
histogram_ab histogram_variant();
/// WGPRIM_SORT_MID=memory|registers|subgroups|merge: the segmented sort's one-workgroup sort of a segment (sort_mid,
/// also the comparator sort's block sort on CPU adapters) for A/B runs and tests: -1 unset (the policy's), 0 memory
/// (a bitonic network, entries in workgroup memory), 1 registers (the network, entries in registers, no shuffles),
/// 2 subgroups (registers and subgroup shuffles), 3 merge (tile/merge_sort.wgsl: a merge sort in workgroup memory).
int sort_mid();
/// WGPRIM_COMPARATOR_MERGE=tile|level: the comparator sort's merge levels; level: the per-invocation global-memory
/// merge before the tiled one (A/B runs); false when unset, empty or "tile"; throws errc::invalid_argument otherwise.
bool comparator_merge_level();
/// WGPRIM_DIST_SORT=device|host: the distributed sort's steps on a WebGPU context; host: the earlier steps (host
/// samples and searches, the received runs sorted again) for A/B runs; false when unset, empty or "device"; throws
/// errc::invalid_argument otherwise.
bool dist_sort_host();

/// WGPRIM_NO_TUNE=1 (any value but "" or "0"): contexts ignore the tuned per-adapter policy file (wgprim tune) and
/// run the built-in policy table.
bool no_tune();
/// The folder of the tuned per-adapter policy files: $XDG_CACHE_HOME/wgprim, else $HOME/.cache/wgprim ("" when
/// neither is set).
std::string policy_dir();

/// A variable of the system, not wgprim's (XDG_RUNTIME_DIR, the MPI launchers' OMPI_* and PMI_*): nullptr when unset.
const char* system(const char* name);

}  // namespace wgprim::detail::env
