// The policy table (primitives/policy.hpp), its knobs by name, and the per-adapter file of `wgprim tune`.
#include "primitives/policy.hpp"

#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#ifdef WGPRIM_HAVE_JSON
#include <nlohmann/json.hpp>
#endif

#include "core/env.hpp"
#include "wgprim/error.hpp"
#include "wgprim/policy.hpp"

namespace wgprim::detail {

const char* adapter_class_name(adapter_class c) {
  switch (c) {
    case adapter_class::nvidia: return "nvidia";
    case adapter_class::amd: return "amd";
    case adapter_class::intel: return "intel";
    case adapter_class::apple: return "apple";
    case adapter_class::gpu: return "gpu";
    case adapter_class::cpu_adapter: return "cpu-adapter";
    case adapter_class::native: return "native";
  }
  return "gpu";
}

adapter_class classify(const context& ctx) {
  if (ctx.backend() == backend_choice::native) return adapter_class::native;
  const adapter_info& a = ctx.adapter();
  if (a.kind == adapter_kind::cpu) return adapter_class::cpu_adapter;
  switch (a.vendor_id) {
    case 0x10de: return adapter_class::nvidia;
    case 0x1002: case 0x1022: return adapter_class::amd;
    case 0x8086: return adapter_class::intel;
    case 0x106b: return adapter_class::apple;
    default: break;
  }
  // Metal reports no PCI vendor id.
  if (a.backend == "metal" || a.vendor.find("Apple") != std::string::npos) return adapter_class::apple;
  return adapter_class::gpu;
}

policies builtin_policies(adapter_class c) {
  policies p;  // the structs' defaults: the GPU row, every vendor alike (measured on the H200; see the structs)
  if (c == adapter_class::nvidia) {
    p.sort.wg_size = 512;  // 32-bit keys: H100 session 26, ~5 % faster (sort/policy.hpp)
    p.sort.rank_match = true;  // H100 session 27: u32 keys 2^26 -8.5 %, pairs 2^24 -7.5 %, i64 2^24 -4.5 %
    p.sort.match_clear = 2;    // pair: H100 session 29, u32 keys 2^26 -0.9 %, pairs 2^24 -0.7 % (sort/policy.hpp)
    return p;
  }
  if (c != adapter_class::cpu_adapter && c != adapter_class::native) return p;
  // CPU adapters (lavapipe): a few threads run the workgroups in turn, so a predecessor is rarely running and
  // waiting on it is waste (spin), every workgroup barrier switches all invocations (bigger sort tiles pay), and
  // coalescing buys nothing. The native backend runs none of these kernels; it shows this row.
  p.scan.spin = 16;
  p.scan.items_wide = p.scan.items;  // 64-bit values: the same tile as 32-bit ones there
  p.scan.layout = p.scan.layout_wide = tile_layout::direct;  // raked's subgroup shuffles buy nothing on a CPU; direct was the default there
  p.select.spin = 16;
  // lavapipe 2^22 f32 select, loaded 2-core machine: staged 415-615 ms vs direct 436-516 ms, within the noise.
  p.select.tile = p.select.unique_tile = p.select.partition_tile = select_policy::layout::direct;
  p.select.partition_items = p.select.items;
  // lavapipe, 2 cores, 2026-11-29, n = 2^24 f32 sum, median of 15 runs, wall ms: 64 workgroups 15.2,
  // 256 workgroups 12.9, 256 with subgroups 11.2-12.4, 1,024 22.4; vec4 loads 26-28 (scalar loads consecutive
  // across invocations vectorise better here); the seed 35.6-36.0. The arg reduce takes the same choices.
  p.reduce.max_groups = p.arg_reduce.max_groups = 256;
  p.reduce.small_n = p.arg_reduce.small_n = 65536;
  p.reduce.vec_loads = p.arg_reduce.vec_loads = false;
  p.sort.spin = 4;
  p.sort.items = p.sort.items_wide = 24;
  // lavapipe's loops of workgroup atomics are slow: 1,000,003 u32 keys sorted in 12.0 s ranked with atomics against
  // 0.93 s with a barrier per key (2 cores, 2026-12-02).
  p.sort.atomic_counts = false;
  p.merge.block_network = true;  // 10^6 u32 keys, blocks: network 96 ms, merge sort 146 ms (2 cores, 2026-12-03)
  p.sort.reload_keys = false;  // 1,048,576 u32 keys: 207 ms holding the keys, 237 reading them again
  p.sort.unroll = false;       // the Sort tests' kernels compiled in 120 s written out against 22 s as loops (2 cores)
  // More workgroups only add private-bin flushes; lavapipe (2 busy cores, 2^22 f32, 256 bins): the cached edges
  // and four values per step measured 298-326 ms against 163-264 ms without.
  p.histogram.max_workgroups = 64;
  p.histogram.step_values = 1;
  p.histogram.vec_loads = false;
  p.histogram.run_merge = true;
  return p;
}

namespace {

// One knob: its name, range, and where it lives in the table.
struct knob_def {
  const char* name;
  std::uint64_t min, max;
  const char* about;
  std::uint64_t (*get)(const policies&);
  void (*set)(policies&, std::uint64_t);
};

#define WGPRIM_KNOB(NAME, LO, HI, ABOUT, FIELD, TYPE)                           \
  knob_def {                                                                    \
    NAME, LO, HI, ABOUT, [](const policies& p) { return std::uint64_t(p.FIELD); }, \
        [](policies& p, std::uint64_t v) { p.FIELD = static_cast<TYPE>(v); }    \
  }

const std::vector<knob_def>& knob_defs() {
  using u32 = std::uint32_t;
  using sl = select_policy::layout;
  static const std::vector<knob_def> defs = {
      WGPRIM_KNOB("scan.items", 1, 8, "decoupled scan: vec4 per invocation (tiles of 1,024 x items)", scan.items, u32),
      WGPRIM_KNOB("scan.spin", 1, 65536, "decoupled scan: polls of a waiting predecessor before reducing its tile", scan.spin, u32),
      WGPRIM_KNOB("scan.window", 1, 256, "decoupled scan: tile states the look-back reads at once", scan.window, u32),
      WGPRIM_KNOB("scan.layout", 0, 2, "decoupled scan: tile layout, 0 direct, 1 staged, 2 raked (needs subgroups)", scan.layout, tile_layout),
      WGPRIM_KNOB("scan.items_wide", 1, 8, "decoupled scan of 64-bit values: vec4 per invocation", scan.items_wide, u32),
      WGPRIM_KNOB("scan.layout_wide", 0, 2, "decoupled scan of 64-bit values: tile layout (as scan.layout)", scan.layout_wide, tile_layout),
      WGPRIM_KNOB("scan.subgroup_lookback", 0, 1, "decoupled scan: subgroup 0 walks the look-back (1) or the workgroup (0)", scan.subgroup_lookback, bool),
      WGPRIM_KNOB("select.items", 1, 8, "decoupled select: vec4 per invocation", select.items, u32),
      WGPRIM_KNOB("select.spin", 1, 65536, "decoupled select: polls of a waiting predecessor", select.spin, u32),
      WGPRIM_KNOB("select.window", 1, 256, "decoupled select: tile states the look-back reads at once", select.window, u32),
      WGPRIM_KNOB("select.layout", 0, 2, "decoupled select: tile layout, 0 direct, 1 staged, 2 raked (needs subgroups)", select.tile, sl),
      WGPRIM_KNOB("select.unique_layout", 0, 2, "decoupled unique: tile layout, as select.layout", select.unique_tile, sl),
      WGPRIM_KNOB("select.partition_layout", 0, 2, "decoupled partition: tile layout, as select.layout", select.partition_tile, sl),
      WGPRIM_KNOB("select.partition_items", 1, 8, "decoupled partition: vec4 per invocation", select.partition_items, u32),
      WGPRIM_KNOB("select.unroll", 0, 1, "decoupled select: loops over an invocation's elements written out (1) or kept loops (0)", select.unroll, bool),
      WGPRIM_KNOB("select.subgroup_lookback", 0, 1, "decoupled select: subgroup 0 walks the look-back", select.subgroup_lookback, bool),
      WGPRIM_KNOB("reduce.items", 1, 64, "fast reduce: vec4 per invocation per tile", reduce.items, u32),
      WGPRIM_KNOB("reduce.workgroups", 1, 16384, "fast reduce: workgroups of the first pass (at most)", reduce.max_groups, u32),
      WGPRIM_KNOB("reduce.small_n", 0, 1u << 24, "fast reduce: at or below this n, one dispatch of one workgroup", reduce.small_n, std::uint64_t),
      WGPRIM_KNOB("reduce.vec_loads", 0, 1, "fast reduce: vec4 loads (1) or scalar loads consecutive across invocations (0)", reduce.vec_loads, bool),
      WGPRIM_KNOB("arg_reduce.items", 1, 64, "arg reduce: vec4 per invocation per tile", arg_reduce.items, u32),
      WGPRIM_KNOB("arg_reduce.workgroups", 1, 16384, "arg reduce: workgroups of the first pass (at most)", arg_reduce.max_groups, u32),
      WGPRIM_KNOB("arg_reduce.small_n", 0, 1u << 24, "arg reduce: at or below this n, one dispatch of one workgroup", arg_reduce.small_n, std::uint64_t),
      WGPRIM_KNOB("arg_reduce.vec_loads", 0, 1, "arg reduce: vec4 loads (1) or scalar loads (0)", arg_reduce.vec_loads, bool),
      WGPRIM_KNOB("sort.items", 1, 32, "onesweep sort: keys per invocation, 32-bit keys (fewer where workgroup memory is short)", sort.items, u32),
      WGPRIM_KNOB("sort.items_wide", 1, 32, "onesweep sort: keys per invocation, 64-bit keys", sort.items_wide, u32),
      WGPRIM_KNOB("sort.spin", 1, 65536, "onesweep sort: polls of a waiting predecessor", sort.spin, u32),
      WGPRIM_KNOB("sort.window", 1, 32, "onesweep sort: predecessor states each digit reads at once", sort.window, u32),
      WGPRIM_KNOB("sort.atomic_ranks", 0, 1, "onesweep sort: digit counts bumped by workgroup atomics (1) or a barrier per key (0)", sort.atomic_counts, bool),
      WGPRIM_KNOB("sort.reload_keys", 0, 1, "onesweep sort: keys read again for the scatter, digits packed meanwhile (1), or held in registers (0)", sort.reload_keys, bool),
      WGPRIM_KNOB("sort.scatter_rounds", 1, 6, "onesweep sort: the tile scattered in this many rounds through a pool of 1/rounds of it (less workgroup memory)", sort.scatter_rounds, u32),
      WGPRIM_KNOB("sort.unroll", 0, 1, "onesweep sort: loops over a tile's keys written out (1) or kept loops (0)", sort.unroll, bool),
      WGPRIM_KNOB("sort.match_clear", 0, 2, "onesweep sort with match words: how a word is emptied for the next key: 0 the lowest peer (three subgroup barriers a key), 1 each lane its own bit (two), 2 two words a digit used by alternate keys (one)", sort.match_clear, u32),
      WGPRIM_KNOB("sort.rank_match", 0, 1, "onesweep sort: subgroups of <= 32 lanes rank by atomicOr match words and subgroup barriers (1) or by eight ballots per key (0)", sort.rank_match, bool),
      WGPRIM_KNOB("sort.early_counts", 0, 1, "onesweep sort: a tile's digit counts published before it ranks (1, CUB's early counts) or after (0)", sort.early_counts, bool),
      WGPRIM_KNOB("sort.wg_size", 256, 512, "onesweep sort: invocations per tile, 256 or 512 (half the tiles: half the look-backs; 256 where the adapter's workgroups are smaller)", sort.wg_size, u32),
      WGPRIM_KNOB("sort.wg_size_wide", 256, 512, "onesweep sort: invocations per tile with 64-bit keys, 256 or 512", sort.wg_size_wide, u32),
      WGPRIM_KNOB("sort.slots", 1, 16, "onesweep sort: subgroup histograms ranked at once (at most 8 where 16 do not fit)", sort.slots, u32),
      WGPRIM_KNOB("merge.items", 8, 32, "comparator sort: keys each invocation merges in a row, 8, 16 or 32 (workgroups of 2,048 / items)", merge.items, u32),
      WGPRIM_KNOB("merge.block_network", 0, 1, "comparator sort's blocks and segmented sort's 257..2048-key segments: a bitonic network (1) or a merge sort in workgroup memory (0)", merge.block_network, bool),
      WGPRIM_KNOB("histogram.workgroups", 1, 16384, "histogram: workgroups (grid-stride beyond)", histogram.max_workgroups, u32),
      WGPRIM_KNOB("histogram.step_values", 1, 8, "histogram: loads per grid-stride step, 1, 2, 4 or 8", histogram.step_values, u32),
  };
  return defs;
}
#undef WGPRIM_KNOB

const knob_def* find_knob(const std::string& name) {
  for (const knob_def& k : knob_defs())
    if (name == k.name) return &k;
  return nullptr;
}

// "" when the value fits the knob, else why not.
std::string check_value(const knob_def& k, std::uint64_t v) {
  if (v < k.min || v > k.max || (std::string(k.name) == "histogram.step_values" && v != 1 && v != 2 && v != 4 && v != 8) ||
      (std::string(k.name) == "merge.items" && v != 8 && v != 16 && v != 32))
    return std::string(k.name) + " = " + std::to_string(v) + " is out of its range " + std::to_string(k.min) +
           ".." + std::to_string(k.max) + (std::string(k.name) == "histogram.step_values" ? " (1, 2, 4 or 8)"
                                            : std::string(k.name) == "merge.items"         ? " (8, 16 or 32)"
                                                                                           : "");
  return "";
}

// Reads the file's knobs into p; returns "" or why the file is not used (p is then untouched).
std::string load_file(const std::string& path, policies& p) {
  std::ifstream in(path);
  if (!in) return "";  // no file: the built-in row, silently
#ifdef WGPRIM_HAVE_JSON
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) return "not valid JSON";
  if (!j.is_object() || !j.contains("knobs") || !j["knobs"].is_object())
    return "expected an object with an object \"knobs\"";
  if (!j.contains("wgprim_policy") || j["wgprim_policy"] != 1) return "expected \"wgprim_policy\": 1";
  policies q = p;
  for (const auto& [name, value] : j["knobs"].items()) {
    const knob_def* k = find_knob(name);
    if (!k) return "unknown knob \"" + name + "\"";
    std::uint64_t v = 0;
    if (value.is_boolean()) v = value.get<bool>() ? 1 : 0;
    else if (value.is_number_unsigned()) v = value.get<std::uint64_t>();
    else return "knob \"" + name + "\" = " + value.dump() + " is not a non-negative integer";
    if (std::string why = check_value(*k, v); !why.empty()) return why;
    k->set(q, v);
  }
  p = q;
  return "";
#else
  (void)p;
  return "this build of wgprim reads no policy files (built without nlohmann-json)";
#endif
}

struct cache_entry {
  std::weak_ptr<context_link> link;
  std::shared_ptr<policy_set> set;
};
std::mutex cache_mu;
std::unordered_map<std::uint64_t, cache_entry> cache;

bool gone(const cache_entry& e) {
  const auto l = e.link.lock();
  return !l || !l->ctx;
}

std::shared_ptr<policy_set> build(const context& ctx) {
  auto s = std::make_shared<policy_set>();
  s->cls = classify(ctx);
  s->p = builtin_policies(s->cls);
  s->source = std::string("built-in (") + adapter_class_name(s->cls) + ")";
  if (s->cls == adapter_class::native) return s;
  const std::string dir = env::policy_dir();
  if (dir.empty()) return s;
  s->file = dir + "/" + policy_file_name(ctx.adapter());
  if (env::no_tune()) {
    s->source += ", WGPRIM_NO_TUNE set";
    return s;
  }
  std::ifstream probe(s->file);
  if (!probe) return s;
  s->warning = load_file(s->file, s->p);
  if (s->warning.empty()) {
    s->source = s->file;
  } else {
    std::cerr << "wgprim: warning: ignoring the policy file " << s->file << ": " << s->warning << "\n";
  }
  return s;
}

std::shared_ptr<policy_set>& entry_for(const context& ctx) {
  // Caller holds cache_mu.
  auto it = cache.find(ctx.id());
  if (it != cache.end() && !gone(it->second)) return it->second.set;
  // Drop the entries of destroyed contexts, then build this one's.
  for (auto i = cache.begin(); i != cache.end();) i = gone(i->second) ? cache.erase(i) : std::next(i);
  cache_entry& e = cache[ctx.id()];
  e.link = ctx.link();
  e.set = build(ctx);
  return e.set;
}

}  // namespace

const policy_set& policy_set_for(const context& ctx) {
  std::lock_guard<std::mutex> lock(cache_mu);
  return *entry_for(ctx);
}

}  // namespace wgprim::detail

namespace wgprim {

policy_info policy(const context& ctx) {
  using namespace detail;
  const policy_set& s = policy_set_for(ctx);
  const policies builtin = builtin_policies(s.cls);
  policy_info info;
  info.adapter_class = adapter_class_name(s.cls);
  info.source = s.source;
  info.file = s.file;
  info.warning = s.warning;
  for (const knob_def& k : knob_defs())
    info.knobs.push_back({k.name, k.get(s.p), k.get(builtin), k.min, k.max, k.about});
  return info;
}

void set_policy(context& ctx, const std::vector<std::pair<std::string, std::uint64_t>>& values) {
  using namespace detail;
  std::lock_guard<std::mutex> lock(cache_mu);
  std::shared_ptr<policy_set>& s = entry_for(ctx);
  auto next = std::make_shared<policy_set>(*s);
  for (const auto& [name, v] : values) {
    const knob_def* k = find_knob(name);
    if (!k) throw error(errc::invalid_argument, "set_policy: unknown knob \"" + name + "\"");
    if (std::string why = check_value(*k, v); !why.empty()) throw error(errc::invalid_argument, "set_policy: " + why);
    k->set(next->p, v);
  }
  if (!values.empty() && next->source.rfind("set_policy", 0) != 0) next->source = "set_policy over " + next->source;
  s = next;
}

std::string policy_file_name(const adapter_info& adapter) {
  std::string out;
  bool dash = false;
  for (char c : adapter.name + " " + adapter.driver) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      if (dash && !out.empty()) out += '-';
      out += c;
      dash = false;
    } else {
      dash = true;
    }
  }
  if (out.size() > 120) out.resize(120);
  return (out.empty() ? std::string("adapter") : out) + ".json";
}

}  // namespace wgprim
