// The standard's spelling (issue 30 item 6): std::plus<> / std::bit_and<> / std::bit_or<> / std::bit_xor<> where an
// op is taken, std::less<> / std::greater<> where a sort order is, and iterator pairs over contiguous host memory
// (pointers, std::vector and std::array iterators) for reduce, the scans and sort. Every call is compared with the
// same call spelled with wgprim::op / wgprim::order, on the native backend and on the WebGPU device (lavapipe
// here). The compile-time refusals (std::multiplies, lambdas, std::list iterators, std::vector<int16_t>) are
// checked by the StdSpellingNegative_* tests (tests/neg/std_spelling_neg.cpp).
#include <array>
#include <functional>
#include <list>
#include <type_traits>

#include "common.hpp"

namespace wgprim::test {
namespace {

std::vector<context*> contexts() { return {&native_ctx(), &ctx()}; }

std::vector<std::int32_t> ints(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = static_cast<std::int32_t>(rng() % 2001) - 1000;
  return v;
}

// What converts, and what does not (so that overload sets stay as they were).
static_assert(std::is_convertible_v<std::plus<>, op> && std::is_convertible_v<std::plus<float>, op>);
static_assert(std::is_convertible_v<std::bit_xor<>, op> && std::is_convertible_v<std::bit_and<std::uint32_t>, op>);
static_assert(!std::is_convertible_v<int, op> && !std::is_convertible_v<run_options, op>);
static_assert(std::is_convertible_v<std::greater<>, sort_order> && std::is_convertible_v<std::less<int>, sort_order>);
static_assert(!std::is_convertible_v<int*, sort_order>);
static_assert(detail::is_contiguous_iterator_v<std::vector<float>::iterator> &&
              detail::is_contiguous_iterator_v<std::vector<float>::const_iterator> &&
              detail::is_contiguous_iterator_v<std::array<std::uint32_t, 4>::iterator> &&
              detail::is_contiguous_iterator_v<const half*>);
static_assert(!detail::is_contiguous_iterator_v<std::list<float>::iterator> &&
              !detail::is_contiguous_iterator_v<std::vector<bool>::iterator>);

TEST(StdSpelling, OpFromStandardFunctionObjects) {
  EXPECT_EQ(op(std::plus<>{}).name(), op::sum().name());
  EXPECT_EQ(op(std::plus<std::int32_t>{}).name(), "sum");
  EXPECT_EQ(op(std::bit_and<>{}).name(), op::bit_and().name());
  EXPECT_EQ(op(std::bit_or<>{}).name(), op::bit_or().name());
  EXPECT_EQ(op(std::bit_xor<std::uint32_t>{}).name(), op::bit_xor().name());
  EXPECT_EQ(sort_order(std::less<>{}).direction, order::ascending);
  EXPECT_EQ(sort_order(std::greater<float>{}).direction, order::descending);
}

TEST(StdSpelling, ReduceWithStandardOps) {
  const auto v = ints(100003, 1);
  std::vector<std::uint32_t> u(v.begin(), v.end());
  const std::vector<float> f = {1.5f, -2.0f, 4.25f, 8.0f};
  for (context* c : contexts()) {
    SCOPED_TRACE(c->adapter().name);
    EXPECT_EQ(reduce(*c, v, std::plus<>{}), reduce(*c, v, op::sum()));
    EXPECT_EQ(reduce(*c, v, std::plus<std::int32_t>{}), reduce(*c, v, op::sum()));
    EXPECT_EQ(reduce(*c, v, 100, std::plus<>{}), reduce(*c, v, 100, op::sum()));
    EXPECT_EQ(reduce(*c, u, std::bit_and<>{}), reduce(*c, u, op::bit_and()));
    EXPECT_EQ(reduce(*c, u, std::bit_or<>{}), reduce(*c, u, op::bit_or()));
    EXPECT_EQ(reduce(*c, u, std::bit_xor<>{}), reduce(*c, u, op::bit_xor()));
    EXPECT_EQ(reduce(*c, f, std::plus<float>{}), 11.75f);
    device_vector<std::uint32_t> d(*c, u);
    EXPECT_EQ(reduce(*c, d, std::bit_xor<>{}), reduce(*c, d, op::bit_xor()));
  }
}

TEST(StdSpelling, ReduceIteratorPairs) {
  const auto v = ints(70001, 2);
  std::vector<std::uint32_t> u(v.begin(), v.end());
  const std::array<float, 5> a = {1.0f, 2.0f, 3.0f, 4.0f, 5.5f};
  for (context* c : contexts()) {
    SCOPED_TRACE(c->adapter().name);
    const std::int32_t want = reduce(*c, v, op::sum());
    EXPECT_EQ(reduce(*c, v.begin(), v.end(), std::plus<>{}), want);
    EXPECT_EQ(reduce(*c, v.cbegin(), v.cend()), want);
    EXPECT_EQ(reduce(*c, v.data(), v.data() + v.size(), op::sum()), want);
    EXPECT_EQ(reduce(*c, v.begin(), v.end(), 7, std::plus<>{}), reduce(*c, v, 7, op::sum()));
    EXPECT_EQ(reduce(*c, v.begin() + 10, v.begin() + 1010, op::max()), reduce(*c, v.data() + 10, 1000, op::max()));
    EXPECT_EQ(reduce(*c, u.begin(), u.end(), std::bit_or<>{}), reduce(*c, u, op::bit_or()));
    EXPECT_EQ(reduce(*c, a.begin(), a.end()), 15.5f);
    EXPECT_EQ(reduce(*c, v.begin(), v.begin(), std::plus<>{}), 0);  // empty: the identity
    EXPECT_EQ(reduce(*c, v.begin(), v.begin(), 5), 5);
    if (c != &native_ctx()) {  // u8 accumulates in u32, as for ranges (the native backend runs 32-bit types)
      const std::vector<std::uint8_t> bytes(1000, 200);
      EXPECT_EQ(reduce(*c, bytes.begin(), bytes.end(), std::plus<>{}), 200000u);
    }
  }
}

TEST(StdSpelling, ScanIteratorPairsAndStandardOps) {
  const auto v = ints(65537, 3);
  std::vector<std::uint32_t> u(v.begin(), v.end());
  for (context* c : contexts()) {
    SCOPED_TRACE(c->adapter().name);
    std::vector<std::int32_t> want(v.size()), got(v.size());
    inclusive_scan(*c, v, want, op::sum());
    EXPECT_EQ(inclusive_scan(*c, v.begin(), v.end(), got.begin(), std::plus<>{}), got.end());
    EXPECT_EQ(got, want);
    std::fill(got.begin(), got.end(), 0);
    inclusive_scan(*c, v.cbegin(), v.cend(), got.data());
    EXPECT_EQ(got, want);
    inclusive_scan(*c, v, want, op::sum(), 5);
    inclusive_scan(*c, v.begin(), v.end(), got.begin(), std::plus<>{}, 5);
    EXPECT_EQ(got, want);

    exclusive_scan(*c, v, want, op::sum());
    EXPECT_EQ(exclusive_scan(*c, v.begin(), v.end(), got.begin()), got.end());
    EXPECT_EQ(got, want);
    exclusive_scan(*c, v, want, 10, op::sum());
    exclusive_scan(*c, v.begin(), v.end(), got.begin(), 10, std::plus<>{});
    EXPECT_EQ(got, want);

    std::vector<std::uint32_t> uw(u.size()), ug(u.size());
    inclusive_scan(*c, u, uw, op::bit_xor());
    inclusive_scan(*c, u, ug, std::bit_xor<>{});
    EXPECT_EQ(ug, uw);
    exclusive_scan(*c, u, uw, op::bit_or());
    exclusive_scan(*c, u.begin(), u.end(), ug.begin(), std::bit_or<>{});
    EXPECT_EQ(ug, uw);
    EXPECT_EQ(inclusive_scan(*c, u, std::bit_and<>{}), inclusive_scan(*c, u, op::bit_and()));
    // In place, as std::inclusive_scan allows.
    std::vector<std::int32_t> in_place = v;
    inclusive_scan(*c, in_place.begin(), in_place.end(), in_place.begin(), std::plus<>{});
    inclusive_scan(*c, v, want, op::sum());
    EXPECT_EQ(in_place, want);
  }
}

TEST(StdSpelling, SegmentedReduceByKeyTransformReduceTakeStandardOps) {
  const auto v = ints(5000, 4);
  const std::vector<std::uint32_t> offsets = {0, 10, 10, 2000, 4999};
  std::vector<std::uint32_t> keys(v.size());
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::uint32_t>(i / 7);
  for (context* c : contexts()) {
    SCOPED_TRACE(c->adapter().name);
    std::vector<std::int32_t> a(offsets.size() - 1), b(offsets.size() - 1);
    segmented_reduce(*c, v, offsets, a, op::sum());
    segmented_reduce(*c, v, offsets, b, std::plus<>{});
    EXPECT_EQ(a, b);
    std::vector<std::int32_t> sa(v.size()), sb(v.size());
    segmented_inclusive_scan(*c, v, offsets, sa, op::sum());
    segmented_inclusive_scan(*c, v, offsets, sb, std::plus<>{});
    EXPECT_EQ(sa, sb);
    std::vector<std::uint32_t> ka(v.size()), kb(v.size());
    std::vector<std::int32_t> ra(v.size()), rb(v.size());
    const std::size_t na = reduce_by_key(*c, keys, v, ka, ra, op::sum());
    const std::size_t nb = reduce_by_key(*c, keys, v, kb, rb, std::plus<>{});
    EXPECT_EQ(na, nb);
    EXPECT_EQ(ra, rb);
    EXPECT_EQ(transform_reduce(*c, v, transform::expr("a * a"), std::plus<>{}),
              transform_reduce(*c, v, transform::expr("a * a"), op::sum()));
  }
}

TEST(StdSpelling, SortWithLessGreaterAndIteratorPairs) {
  std::mt19937 rng(5);
  std::vector<float> keys(40000);
  for (auto& k : keys) k = static_cast<float>(static_cast<int>(rng() % 1000) - 500) * 0.25f;
  for (context* c : contexts()) {
    SCOPED_TRACE(c->adapter().name);
    std::vector<float> want = keys, got = keys;
    sort(*c, want, order::descending);
    sort(*c, got, std::greater<>{});
    EXPECT_EQ(got, want);
    got = keys;
    sort(*c, got.begin(), got.end(), std::greater<float>{});
    EXPECT_EQ(got, want);
    sort(*c, want, order::ascending);
    got = keys;
    sort(*c, got.begin(), got.end());
    EXPECT_EQ(got, want);
    got = keys;
    sort(*c, got.data(), got.data() + got.size(), std::less<>{});
    EXPECT_EQ(got, want);
    std::vector<float> out(keys.size());
    sort(*c, keys, out, std::less<>{});
    EXPECT_EQ(out, want);
    std::vector<float> std_sorted = keys;
    std::stable_sort(std_sorted.begin(), std_sorted.end(), std::greater<>{});
    got = keys;
    sort(*c, got.begin(), got.end(), std::greater<>{});
    EXPECT_EQ(got, std_sorted);
    // Pairs take the comparator too.
    std::vector<float> k2 = keys, k3 = keys;
    std::vector<std::uint32_t> i2(keys.size()), i3(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) i2[i] = i3[i] = static_cast<std::uint32_t>(i);
    sort_pairs(*c, k2, i2, order::descending);
    sort_pairs(*c, k3, i3, std::greater<>{});
    EXPECT_EQ(i2, i3);
    std::array<std::int32_t, 6> small = {5, -1, 3, 3, -7, 0};
    sort(*c, small.begin(), small.end());
    EXPECT_EQ(small, (std::array<std::int32_t, 6>{-7, -1, 0, 3, 3, 5}));
    sort(*c, small.begin(), small.begin());  // empty
  }
}

}  // namespace
}  // namespace wgprim::test
