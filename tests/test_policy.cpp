// The policy table (src/primitives/policy.cpp): the built-in rows hold the values the dispatch code had before the
// table, a tuned per-adapter file replaces them (and what runs follows, still equal to the CPU twin), a malformed
// file is ignored with a warning, and WGPRIM_NO_TUNE=1 turns the file off.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common.hpp"
#include "gpu/gpu.hpp"
#include "primitives/policy.hpp"
#include "primitives/sort/policy.hpp"

namespace wgprim::test {
namespace {

namespace fs = std::filesystem;
using detail::adapter_class;

// A private cache folder for the test's contexts (XDG_CACHE_HOME), removed with WGPRIM_NO_TUNE at the end.
struct cache_dir {
  fs::path dir;
  cache_dir() {
    dir = fs::temp_directory_path() / ("wgprim-policy-test-" + std::to_string(::getpid()));
    fs::create_directories(dir / "wgprim");
    ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
    ::unsetenv("WGPRIM_NO_TUNE");
  }
  ~cache_dir() {
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("WGPRIM_NO_TUNE");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // Writes the adapter's policy file.
  void write(const context& c, const std::string& text) const {
    std::ofstream(dir / "wgprim" / policy_file_name(c.adapter())) << text;
  }
};

std::uint64_t knob(const policy_info& p, const std::string& name) {
  for (const auto& k : p.knobs)
    if (k.name == name) return k.value;
  ADD_FAILURE() << "no knob " << name;
  return 0;
}

// The constants of the dispatch code before the table (git 6b1cd3c): GPUs every vendor alike, CPU adapters apart.
TEST(Policy, BuiltinRowsAreTheFormerConstants) {
  for (adapter_class c : {adapter_class::nvidia, adapter_class::amd, adapter_class::intel, adapter_class::apple,
                          adapter_class::gpu}) {
    const detail::policies p = detail::builtin_policies(c);
    EXPECT_EQ(p.scan.items, 4u);
    EXPECT_EQ(p.scan.spin, 256u);
    EXPECT_EQ(p.scan.window, 32u);
    EXPECT_TRUE(p.scan.subgroup_lookback);
    EXPECT_EQ(p.select.spin, 256u);
    EXPECT_EQ(p.scan.layout, detail::tile_layout::raked);
    EXPECT_EQ(p.scan.items_wide, 2u);
    EXPECT_EQ(p.scan.layout_wide, detail::tile_layout::direct);
    EXPECT_EQ(p.select.tile, detail::select_policy::layout::raked);
    EXPECT_EQ(p.select.unique_tile, detail::select_policy::layout::direct);
    EXPECT_EQ(p.select.partition_tile, detail::select_policy::layout::staged);
    EXPECT_EQ(p.select.partition_items, 2u);
    EXPECT_EQ(p.reduce.max_groups, 1024u);
    EXPECT_EQ(p.reduce.small_n, 16384u);
    EXPECT_TRUE(p.reduce.vec_loads);
    EXPECT_EQ(p.arg_reduce.max_groups, 1024u);
    EXPECT_EQ(p.sort.items, 18u);
    EXPECT_EQ(p.sort.items_wide, 18u);
    EXPECT_TRUE(p.sort.unroll);
    EXPECT_EQ(p.merge.items, 8u);
    EXPECT_FALSE(p.merge.block_network);
    EXPECT_EQ(p.sort.spin, 256u);
    EXPECT_EQ(p.sort.window, 1u);
    EXPECT_TRUE(p.sort.atomic_counts);
    EXPECT_EQ(p.histogram.max_workgroups, 1024u);
    EXPECT_EQ(p.histogram.step_values, 4u);
    EXPECT_TRUE(p.histogram.vec_loads);
    EXPECT_FALSE(p.histogram.run_merge);
  }
  for (adapter_class c : {adapter_class::cpu_adapter, adapter_class::native}) {
    const detail::policies p = detail::builtin_policies(c);
    EXPECT_EQ(p.scan.items, 4u);
    EXPECT_EQ(p.scan.spin, 16u);
    EXPECT_EQ(p.select.spin, 16u);
    EXPECT_EQ(p.scan.layout, detail::tile_layout::direct);
    EXPECT_EQ(p.scan.items_wide, 4u);
    EXPECT_EQ(p.scan.layout_wide, detail::tile_layout::direct);
    EXPECT_EQ(p.select.tile, detail::select_policy::layout::direct);
    EXPECT_EQ(p.select.unique_tile, detail::select_policy::layout::direct);
    EXPECT_EQ(p.select.partition_tile, detail::select_policy::layout::direct);
    EXPECT_EQ(p.select.partition_items, 4u);
    EXPECT_EQ(p.reduce.max_groups, 256u);
    EXPECT_EQ(p.reduce.small_n, 65536u);
    EXPECT_FALSE(p.reduce.vec_loads);
    EXPECT_EQ(p.arg_reduce.max_groups, 256u);
    EXPECT_EQ(p.arg_reduce.small_n, 65536u);
    EXPECT_FALSE(p.arg_reduce.vec_loads);
    EXPECT_EQ(p.sort.items, 24u);
    EXPECT_EQ(p.sort.items_wide, 24u);
    EXPECT_FALSE(p.sort.unroll);
    EXPECT_TRUE(p.merge.block_network);
    EXPECT_EQ(p.sort.spin, 4u);
    EXPECT_FALSE(p.sort.atomic_counts);
    EXPECT_EQ(p.histogram.max_workgroups, 64u);
    EXPECT_EQ(p.histogram.step_values, 1u);
    EXPECT_FALSE(p.histogram.vec_loads);
    EXPECT_TRUE(p.histogram.run_merge);
  }
}

// The class a context's adapter falls in, written out apart from the library's classify(): CPU adapters apart,
// GPUs by PCI vendor id.
std::string expected_class(const adapter_info& a) {
  if (a.kind == adapter_kind::cpu) return "cpu-adapter";
  switch (a.vendor_id) {
    case 0x10de: return "nvidia";
    case 0x1002: return "amd";
    case 0x8086: return "intel";
    case 0x106b: return "apple";
    default: return "gpu";
  }
}

// On the suite's WebGPU adapter (lavapipe in CI, the GPU on a GPU machine) and the native backend, without a file,
// the policies the dispatch code computes are the former ones of that adapter kind.
TEST(Policy, TheAdapterAndNativeRunTheBuiltinRow) {
  cache_dir cache;
  context gpu(webgpu_options());
  const bool cpu_adapter = gpu.adapter().kind == adapter_kind::cpu;
  const policy_info info = policy(gpu);
  EXPECT_EQ(info.adapter_class, expected_class(gpu.adapter()));
  EXPECT_EQ(info.source, "built-in (" + info.adapter_class + ")");
  EXPECT_TRUE(info.warning.empty());
  for (const auto& k : info.knobs) EXPECT_EQ(k.value, k.builtin) << k.name;
  const detail::scan_policy s = detail::scan_policy_for(gpu, tuning{}, false);
  EXPECT_EQ(s.spin, cpu_adapter ? 16u : 256u);
  EXPECT_EQ(s.items, 4u);
  // 64-bit values take their own row (GPUs: 2 vec4 per invocation, direct); tuning still wins.
  const detail::scan_policy w = detail::scan_policy_for(gpu, tuning{}, false, true);
  EXPECT_EQ(w.items, cpu_adapter ? 4u : 2u);
  EXPECT_EQ(w.layout, detail::tile_layout::direct);
  tuning t8;
  t8.items = 8;
  t8.staged = 2;
  const detail::scan_policy w8 = detail::scan_policy_for(gpu, t8, false, true);
  EXPECT_EQ(w8.items, 8u);
  EXPECT_EQ(w8.layout, detail::tile_layout::raked);
  const detail::reduce_policy r = detail::reduce_policy_for(gpu, tuning{});
  EXPECT_EQ(r.max_groups, cpu_adapter ? 256u : 1024u);
  const detail::select_policy sel = detail::select_policy_for(gpu, tuning{}, false);
  EXPECT_EQ(sel.spin, cpu_adapter ? 16u : 256u);
  // Partition and unique take their own rows' layout and items; a tuning override still wins.
  const detail::select_policy part = detail::select_policy_for(gpu, tuning{}, false, false, true);
  EXPECT_EQ(part.items, cpu_adapter ? 4u : 2u);
  EXPECT_EQ(detail::select_policy_for(gpu, tuning{}, false, true, false).tile, detail::select_policy::layout::direct);
  tuning four;
  four.items = 4;
  four.staged = 0;
  const detail::select_policy part4 = detail::select_policy_for(gpu, four, false, false, true);
  EXPECT_EQ(part4.items, 4u);
  EXPECT_EQ(part4.tile, detail::select_policy::layout::direct);
  const detail::histogram_policy h = detail::histogram_policy_for(gpu, 256);
  EXPECT_EQ(h.max_workgroups, cpu_adapter ? 64u : 1024u);
  if (cpu_adapter) {
    EXPECT_EQ(r.small_n, 65536u);
    EXPECT_FALSE(r.vec_loads);
    EXPECT_EQ(sel.tile, detail::select_policy::layout::direct);
    EXPECT_EQ(h.step_values, 1u);
    EXPECT_EQ(h.edge_cache, 0u);
  }

  context_options o;
  o.backend = backend_choice::native;
  context native(o);
  const policy_info ni = policy(native);
  EXPECT_EQ(ni.adapter_class, "native");
  EXPECT_TRUE(ni.file.empty());
}

// Runs an inclusive u32 sum scan at n on c and compares it with the CPU twin.
void expect_scan_matches(context& c, std::size_t n) {
  std::mt19937 rng(7);
  std::vector<std::uint32_t> x(n);
  for (auto& v : x) v = rng();
  device_vector<std::uint32_t> in(c, host_span<const std::uint32_t>(x)), out(c, n);
  run_options opt;
  opt.algorithm = "decoupled";
  inclusive_scan(c, in, out, op::sum(), opt);
  std::vector<std::uint32_t> want(n);
  reference::inclusive_scan(x.data(), n, want.data(), monoid(op::sum(), dtype::u32));
  EXPECT_EQ(out.to_host(), want) << "n = " << n;
}

TEST(Policy, FileChangesWhatRuns) {
  cache_dir cache;
  context probe(webgpu_options());
  cache.write(probe, R"({"wgprim_policy": 1, "knobs": {"scan.items": 2, "scan.window": 8, "reduce.workgroups": 64}})");
  context c(webgpu_options());
  const policy_info info = policy(c);
  EXPECT_EQ(info.source, info.file);
  EXPECT_TRUE(info.warning.empty()) << info.warning;
  EXPECT_EQ(knob(info, "scan.items"), 2u);
  EXPECT_EQ(knob(info, "scan.window"), 8u);
  EXPECT_EQ(knob(info, "reduce.workgroups"), 64u);
  for (const auto& k : info.knobs)  // not in the file: the built-in row's
    if (k.name == "scan.spin") EXPECT_EQ(k.value, k.builtin);
  const detail::scan_policy s = detail::scan_policy_for(c, tuning{}, false);
  EXPECT_EQ(s.items, 2u);
  EXPECT_EQ(s.window, 8u);
  EXPECT_EQ(detail::reduce_policy_for(c, tuning{}).max_groups, 64u);
  // Per-call tuning still wins over the file.
  tuning t;
  t.items = 8;
  EXPECT_EQ(detail::scan_policy_for(c, t, false).items, 8u);
  // Tiles of 2,048: sizes around one and two tiles, still the CPU twin's results.
  for (std::size_t n : {std::size_t(1), std::size_t(2047), std::size_t(2048), std::size_t(2049), std::size_t(3 * 4096 + 1)})
    expect_scan_matches(c, n);
  // What runs follows the policy: a new items value composes and compiles a kernel the old one did not.
  const std::uint64_t before = detail::kernels_created(c);
  expect_scan_matches(c, 4097);
  EXPECT_EQ(detail::kernels_created(c), before);  // the same policy: no new kernel
  set_policy(c, {{"scan.items", 1}});
  expect_scan_matches(c, 4097);
  EXPECT_GT(detail::kernels_created(c), before);
  EXPECT_EQ(detail::scan_policy_for(c, tuning{}, false).items, 1u);
  EXPECT_EQ(policy(c).source.rfind("set_policy over ", 0), 0u);
}

TEST(Policy, MalformedFileIsIgnoredWithAWarning) {
  cache_dir cache;
  context probe(webgpu_options());
  const std::vector<std::string> bad = {
      "{not json",
      R"({"wgprim_policy": 1, "knobs": {"scan.items": 9}})",
      R"({"wgprim_policy": 1, "knobs": {"scan.itemz": 2}})",
      R"({"wgprim_policy": 1, "knobs": {"scan.items": -2}})",
      R"({"wgprim_policy": 1, "knobs": {"scan.items": "2"}})",
      R"({"wgprim_policy": 2, "knobs": {"scan.items": 2}})",
      R"({"wgprim_policy": 1, "knobs": {"scan.items": 2, "histogram.step_values": 3}})",
      R"([1, 2])",
  };
  for (const std::string& text : bad) {
    cache.write(probe, text);
    ::testing::internal::CaptureStderr();
    context c(webgpu_options());
    const policy_info info = policy(c);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_FALSE(info.warning.empty()) << text;
    EXPECT_EQ(info.source, "built-in (" + expected_class(c.adapter()) + ")") << text;
    EXPECT_EQ(knob(info, "scan.items"), 4u) << text;
    // One line (other lines may come from the driver, e.g. lavapipe's conformance notice).
    const std::string w = "wgprim: warning: ignoring the policy file";
    const std::size_t at = err.find(w);
    EXPECT_NE(at, std::string::npos) << text;
    EXPECT_EQ(err.find(w, at + 1), std::string::npos) << err;
    EXPECT_NE(err.find(info.warning), std::string::npos) << err;
    expect_scan_matches(c, 5000);
  }
  // set_policy refuses what the file loader refuses, and changes nothing then.
  fs::remove(cache.dir / "wgprim" / policy_file_name(probe.adapter()));
  context c(webgpu_options());
  EXPECT_THROW(set_policy(c, {{"scan.items", 2}, {"scan.items", 9}}), error);
  EXPECT_THROW(set_policy(c, {{"nope", 1}}), error);
  EXPECT_EQ(knob(policy(c), "scan.items"), 4u);
  // merge.items takes 8, 16 or 32 only (a workgroup of 2,048 / items), and says so.
  try {
    set_policy(c, {{"merge.items", 12}});
    ADD_FAILURE() << "merge.items = 12 was taken";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("(8, 16 or 32)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(knob(policy(c), "merge.items"), 8u);
}

TEST(Policy, NoTuneTurnsTheFileOff) {
  cache_dir cache;
  context probe(webgpu_options());
  cache.write(probe, R"({"wgprim_policy": 1, "knobs": {"scan.items": 2}})");
  ::setenv("WGPRIM_NO_TUNE", "1", 1);
  context off(webgpu_options());
  EXPECT_EQ(knob(policy(off), "scan.items"), 4u);
  EXPECT_NE(policy(off).source.find("WGPRIM_NO_TUNE"), std::string::npos);
  ::setenv("WGPRIM_NO_TUNE", "0", 1);
  context on(webgpu_options());
  EXPECT_EQ(knob(policy(on), "scan.items"), 2u);
}

// Whether the adapter runs workgroups of 512 invocations (else the onesweep's policy falls back to 256).
bool runs_512(const context& c) {
  return c.limits().max_compute_invocations_per_workgroup >= 512 && c.limits().max_compute_workgroup_size_x >= 512;
}

// The onesweep sorts random keys of n in `sizes` as std::stable_sort does.
template <class K, class Rng>
void expect_onesweep_sorts(context& c, std::initializer_list<std::size_t> sizes, Rng rng) {
  run_options o;
  o.algorithm = "onesweep";
  for (std::size_t n : sizes) {
    std::vector<K> keys(n);
    for (auto& k : keys) k = static_cast<K>(rng());
    std::vector<K> want = keys;
    std::stable_sort(want.begin(), want.end());
    sort(c, keys, sort_order{}, o);
    EXPECT_EQ(keys, want) << "n=" << n;
  }
}

// A sort of K keys refuses the policy's workgroup size with one line naming `knob`.
template <class K>
void expect_size_refused(context& c, const std::string& knob) {
  run_options o;
  o.algorithm = "onesweep";
  std::vector<K> keys(1000, K(1));
  try {
    sort(c, keys, sort_order{}, o);
    ADD_FAILURE() << knob << " 300 was taken";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(knob), std::string::npos) << e.what();
  }
}

// The onesweep's tile of 512 invocations as a policy knob (what `wgprim tune` writes): taken by the sort's policy,
// sorted keys equal std::stable_sort's across the new tile's edges, and a size the kernel cannot take refused with
// one line when a sort runs.
TEST(Policy, SortWorkgroupSizeKnob) {
  const env_override wg("WGPRIM_ONESWEEP_WG", "0");  // the environment's size would override the knob
  context c(webgpu_options());
  if (!c.features().subgroups) GTEST_SKIP() << "the onesweep needs subgroups";
  set_policy(c, {{"sort.wg_size", 512}});
  EXPECT_EQ(knob(policy(c), "sort.wg_size"), 512u);
  const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(c, tuning{}, false, 1);
  ASSERT_EQ(pol.wg_size, runs_512(c) ? 512u : 256u) << "512 where the adapter runs it, else the radix";
  const std::size_t tile = std::size_t(pol.wg_size) * pol.items;
  expect_onesweep_sorts<std::uint32_t>(c, {tile - 1, tile + 1, 2 * tile + 7}, std::mt19937(5));
  set_policy(c, {{"sort.wg_size", 300}});
  expect_size_refused<std::uint32_t>(c, "sort.wg_size");
}

// 64-bit keys take their own size (sort.wg_size_wide: 512 lost for them on the H100 while it won for 32-bit keys):
// each width gets its knob, and 64-bit keys sort across the edges of a 512-invocation tile.
TEST(Policy, SortWorkgroupSizeWideKnob) {
  const env_override wg("WGPRIM_ONESWEEP_WG", "0");
  context c(webgpu_options());
  if (!c.features().subgroups) GTEST_SKIP() << "the onesweep needs subgroups";
  const bool fits = runs_512(c);
  set_policy(c, {{"sort.wg_size", 512}, {"sort.wg_size_wide", 256}});
  EXPECT_EQ(detail::sort_onesweep_policy_for(c, tuning{}, false, 1).wg_size, fits ? 512u : 256u);
  EXPECT_EQ(detail::sort_onesweep_policy_for(c, tuning{}, false, 2).wg_size, 256u);
  set_policy(c, {{"sort.wg_size", 256}, {"sort.wg_size_wide", 512}});
  EXPECT_EQ(detail::sort_onesweep_policy_for(c, tuning{}, false, 1).wg_size, 256u);
  const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(c, tuning{}, false, 2);
  ASSERT_EQ(pol.wg_size, fits ? 512u : 256u);
  const std::size_t tile = std::size_t(pol.wg_size) * pol.items;
  expect_onesweep_sorts<std::int64_t>(c, {tile - 1, tile + 1}, std::mt19937_64(9));
  set_policy(c, {{"sort.wg_size_wide", 300}});
  expect_size_refused<std::int64_t>(c, "sort.wg_size_wide");
}

// The match words' clear as a policy knob (sort.match_clear: what an adapter's row or `wgprim tune` sets; the
// environment's WGPRIM_ONESWEEP_MATCH_CLEAR unset): each of the three sorts keys equal to std::stable_sort's across the
// tile's edges (the match words on, with the atomic counts they need), and a value past 2 is refused.
TEST(Policy, SortMatchClearKnob) {
  const env_override clear("WGPRIM_ONESWEEP_MATCH_CLEAR", ""), match("WGPRIM_ONESWEEP_MATCH", ""),
      rank("WGPRIM_ONESWEEP_RANK", ""), wg("WGPRIM_ONESWEEP_WG", "0");
  context c(webgpu_options());
  if (!c.features().subgroups || !c.features().subgroup_barrier) GTEST_SKIP() << "the match words need subgroup barriers";
  for (std::uint64_t mc : {0u, 1u, 2u}) {
    SCOPED_TRACE("sort.match_clear " + std::to_string(mc));
    set_policy(c, {{"sort.rank_match", 1}, {"sort.atomic_ranks", 1}, {"sort.match_clear", mc}});
    EXPECT_EQ(knob(policy(c), "sort.match_clear"), mc);
    const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(c, tuning{}, false, 1);
    ASSERT_TRUE(pol.rank_match);
    const std::size_t tile = std::size_t(pol.wg_size) * pol.items;
    expect_onesweep_sorts<std::uint32_t>(c, {tile - 1, 2 * tile + 7}, std::mt19937(11 + static_cast<unsigned>(mc)));
  }
  EXPECT_THROW(set_policy(c, {{"sort.match_clear", 3}}), error);
}

TEST(Policy, FileNames) {
  adapter_info a;
  a.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  a.driver = "Mesa 22.3.6 (LLVM 15.0.6)";
  EXPECT_EQ(policy_file_name(a), "llvmpipe-llvm-15-0-6-256-bits-mesa-22-3-6-llvm-15-0-6.json");
  EXPECT_EQ(policy_file_name(adapter_info{}), "adapter.json");
  a.name = "../../etc/passwd";
  a.driver = "";
  EXPECT_EQ(policy_file_name(a), "etc-passwd.json");
}

}  // namespace
}  // namespace wgprim::test
