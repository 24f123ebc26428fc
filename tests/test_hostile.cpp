// Regressions from the hostile-user and fuzzing passes of 2026-11-29 (bench/results/2026-11-29-hostile.md) that
// belong to the library rather than the CLI (those are in cli_test.sh).

#include "common.hpp"
#include "core/host_checks.hpp"

namespace wgprim::test {
namespace {

template <class F>
void expect_errc(errc want, F f, const char* what) {
  try {
    f();
    ADD_FAILURE() << what << ": no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), want) << what << ": " << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

// Segmented reduce/scan and reduce-by-key ran custom operators unchecked (only reduce and scan checked them), so
// `reduce --segments --op 'a - b'` answered with the GPU's bracketing of a non-associative operator.
TEST(Hostile, SegmentedAndByKeyCheckTheOperator) {
  const std::vector<std::uint32_t> x = {5, 3, 2, 7, 1}, off = {0, 2, 5}, keys = {1, 1, 2, 2, 2};
  std::vector<std::uint32_t> out(2), scanned(5), uk(5), sums(5);
  const op minus = op::custom("a - b", "0");
  const op shifted = op::custom("a + b", "100");  // an init value given as the identity
  for (const op& bad : {minus, shifted}) {
    expect_errc(errc::invalid_argument, [&] { segmented_reduce(ctx(), x, off, out, bad); }, "segmented reduce");
    expect_errc(errc::invalid_argument, [&] { segmented_inclusive_scan(ctx(), x, off, scanned, bad); }, "segmented scan");
    expect_errc(errc::invalid_argument, [&] { segmented_exclusive_scan(ctx(), x, off, scanned, bad); }, "segmented scan");
    expect_errc(errc::invalid_argument, [&] { reduce_by_key(ctx(), keys, x, uk, sums, bad); }, "reduce_by_key");
  }
  // The caller who knows better skips the check (run_options::check_operator, the CLI's --no-check).
  run_options unchecked;
  unchecked.check_operator = false;
  EXPECT_NO_THROW(segmented_reduce(ctx(), x, off, out, minus, unchecked));
  EXPECT_NO_THROW(reduce_by_key(ctx(), keys, x, uk, sums, minus, unchecked));
  // An associative, non-commutative operator is fine for all three (the tiles keep the order).
  const op first = op::custom("select(a, b, a == 0u)", "0");
  segmented_reduce(ctx(), x, off, out, first);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{5, 2}));
  EXPECT_EQ(reduce_by_key(ctx(), keys, x, uk, sums, first), 2u);
  EXPECT_EQ(sums[0], 5u);
  EXPECT_EQ(sums[1], 2u);
}

// The host-side checks fuzz_arrays runs (moved out of the dispatch code so the harness can reach them).
TEST(Hostile, HostChecksOfOffsetsLevelsAndEvenBins) {
  const std::uint32_t dec[] = {0, 3, 2}, past[] = {0, 2, 6}, ok[] = {1, 1, 5};
  expect_errc(errc::invalid_argument, [&] { detail::check_offsets_host(dec, 3, 5, "t"); }, "decreasing offsets");
  expect_errc(errc::invalid_argument, [&] { detail::check_offsets_host(past, 3, 5, "t"); }, "offset past n");
  EXPECT_NO_THROW(detail::check_offsets_host(ok, 3, 5, "t"));
  const std::uint32_t lv_nan[] = {to_bits(0.0f), 0x7fc00000u}, lv_dec[] = {to_bits(1.0f), to_bits(0.5f)};
  expect_errc(errc::invalid_argument, [&] { detail::check_levels(dtype::f32, lv_nan, 2); }, "NaN level");
  expect_errc(errc::invalid_argument, [&] { detail::check_levels(dtype::f32, lv_dec, 2); }, "decreasing levels");
  expect_errc(errc::invalid_argument, [&] { detail::even_edges(dtype::f32, 10, 1.0, 0.0); }, "reversed range");
  expect_errc(errc::invalid_argument, [&] { detail::even_edges(dtype::f32, 1000, 0.0, 1e-45); }, "collapsing bins");
  expect_errc(errc::invalid_argument, [&] { detail::even_edges(dtype::i32, 10, -INFINITY, 0.0); }, "infinite range");
  // integer bins past the type's range: no bin reachable, not a cast out of range
  const detail::kernel_edges k = detail::even_edges(dtype::u32, 3, 5e9, 6e9);
  EXPECT_EQ(k.reach, 0u);
  const detail::kernel_edges k2 = detail::even_edges(dtype::i32, 4, -3e9, 3e9);
  EXPECT_EQ(k2.bits.size(), k2.reach + 1u);
}

}  // namespace
}  // namespace wgprim::test
