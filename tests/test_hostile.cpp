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

// Issue 29 row 6: submitting one encoder twice segfaulted (its handle was released by the first submit). Now the
// context keeps the latest submitted encoders referenced and refuses a second submit, or a recording into one.
TEST(Hostile, Row6DoubleSubmitThrows) {
  std::vector<float> x(1000, 1.0f);
  device_vector<float> in(ctx(), x), out(ctx(), 1);
  auto enc = ctx().begin_commands();
  reduce(ctx(), enc, in, out.span());
  ctx().submit(enc);
  ctx().finish();
  expect_errc(errc::invalid_argument, [&] { ctx().submit(enc); }, "second submit");
  expect_errc(errc::invalid_argument, [&] { reduce(ctx(), enc, in, out.span()); }, "recording after submit");
  EXPECT_EQ(out.to_host()[0], 1000.0f);
  // The native backend has no encoders: the first submit already says so.
  expect_errc(errc::unsupported, [&] { native_ctx().begin_commands(); }, "native begin_commands");
}

// Issue 29 row 6: a device_vector used after its context was destroyed crashed (lavapipe) or read freed memory
// (native). The context and its containers share a link (detail::context_link) that the context empties when it is
// destroyed and updates when it moves.
TEST(Hostile, Row6DeviceVectorAfterContextDestroyedThrows) {
  for (backend_choice b : {backend_choice::webgpu, backend_choice::native}) {
    context_options o;
    o.backend = b;
    std::vector<std::uint32_t> x = {1, 2, 3, 4};
    device_vector<std::uint32_t> v;
    {
      context c(o);
      v = device_vector<std::uint32_t>(c, x);
      context moved(std::move(c));  // the link follows the move
      EXPECT_EQ(v.to_host(), x);
      context assigned(o);
      assigned = std::move(moved);
      EXPECT_EQ(v.to_host(), x);
    }
    expect_errc(errc::invalid_argument, [&] { v.to_host(); }, "to_host after the context");
    expect_errc(errc::invalid_argument, [&] { v.assign(x); }, "assign after the context");
    device_vector<std::uint32_t> empty;
    EXPECT_TRUE(empty.to_host().empty());
  }
}

}  // namespace
}  // namespace wgprim::test
