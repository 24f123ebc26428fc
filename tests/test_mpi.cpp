// wgprim::mpi under mpirun (tests/CMakeLists.txt runs it with 1, 2, 3 and 4 ranks on lavapipe): every rank builds
// the same full array, takes its slice, and the distributed result is compared on rank 0 with the CPU twin of the
// whole array (integers and f32 min/max exactly, f32 sums within their bound, reproducible f32 sums bit for bit
// with the one-process reduce), for even splits, random splits and splits with empty ranks.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "common.hpp"
#include "exact_reference.hpp"
#include "wgprim/mpi.hpp"

namespace wgprim::test {
namespace {

int my_rank() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

enum class split_kind { even, random, empty_first, all_on_last };

// Slice boundaries (p + 1 of them), the same on every rank.
std::vector<std::size_t> split_of(std::size_t n, int p, split_kind k, std::uint32_t seed) {
  std::vector<std::size_t> b(p + 1, 0);
  b[p] = n;
  std::mt19937 rng(seed);
  for (int r = 1; r < p; ++r) {
    switch (k) {
      case split_kind::even: b[r] = n * r / p; break;
      case split_kind::random: b[r] = n ? rng() % (n + 1) : 0; break;
      case split_kind::empty_first: b[r] = r == 1 ? 0 : n * r / p; break;
      case split_kind::all_on_last: b[r] = 0; break;
    }
  }
  std::sort(b.begin(), b.end());
  return b;
}

const std::vector<split_kind> all_splits = {split_kind::even, split_kind::random, split_kind::empty_first,
                                            split_kind::all_on_last};

// Every rank's part gathered on rank 0, in rank order.
std::vector<std::uint32_t> gather(const std::vector<std::uint32_t>& mine) {
  const int p = ranks();
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(p), displs(p, 0);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < p; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<std::uint32_t> all(my_rank() == 0 ? displs[p - 1] + counts[p - 1] : 0);
  MPI_Gatherv(mine.data(), n, MPI_UINT32_T, all.data(), counts.data(), displs.data(), MPI_UINT32_T, 0,
              MPI_COMM_WORLD);
  return all;
}

template <class T>
std::vector<T> slice(const std::vector<std::uint32_t>& bits, const std::vector<std::size_t>& b) {
  const int r = my_rank();
  std::vector<T> out(b[r + 1] - b[r]);
  if (!out.empty()) std::memcpy(out.data(), bits.data() + b[r], out.size() * 4);
  return out;
}

template <class T>
std::vector<std::uint32_t> as_bits(const std::vector<T>& v) {
  std::vector<std::uint32_t> out(v.size());
  if (!v.empty()) std::memcpy(out.data(), v.data(), v.size() * 4);
  return out;
}

// A few operators per type (lavapipe compiles every operator's kernels in every rank: the whole matrix of
// operators is the one-process suites' job; here the combination across ranks is what is tested).
std::vector<op> mpi_ops(dtype t) {
  if (t == dtype::u32) return {op::sum(), op::bit_xor(), op::custom("select(b, a, a < b)", "max")};
  if (t == dtype::i32) return {op::sum(), op::max()};
  return {op::sum(), op::min(), op::custom("max(a, b)", "-inf")};
}

const std::vector<std::size_t> sizes = {0, 1, 4099, 70001};

TEST(Mpi, ReduceMatchesTheCpuTwin) {
  const int p = ranks();
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32})
    for (const op& o : mpi_ops(t))
      for (std::size_t n : sizes) {
        const monoid m(o, t);
        const auto data = make_data(t, n, 11 + static_cast<std::uint32_t>(n));
        const split_kind k = all_splits[n % all_splits.size()];
        const auto b = split_of(n, p, k, 5);
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          const auto part = slice<T>(data, b);
          const T got = mpi::reduce(ctx(), MPI_COMM_WORLD, part, o);
          const std::uint32_t want = reference::reduce(data.data(), n, m);
          const std::string what = std::string(dtype_name(t)) + " " + m.name() + " n=" + std::to_string(n);
          if (t == dtype::f32 && m.is_sum()) {
            double abs_sum = 0;
            for (auto x : data) abs_sum += std::fabs(from_bits<float>(x));
            EXPECT_NEAR(from_bits<float>(to_bits(got)), from_bits<float>(want), f32_sum_bound(2 * n + 64, abs_sum))
                << what;
          } else {
            EXPECT_EQ(to_bits(got), want) << what;
          }
        });
      }
}

TEST(Mpi, ReproducibleSumIsBitIdenticalForEverySplit) {
  const int p = ranks();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
    // Mixed signs and magnitudes: a sum whose rounding depends on the order unless it is exact.
    std::mt19937 rng(static_cast<std::uint32_t>(n) + 3);
    std::vector<float> full(n);
    for (auto& x : full)
      x = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng), static_cast<int>(rng() % 60) - 30);
    superaccumulator exact;
    exact.add(full.data(), n);
    run_options ro;
    ro.accuracy = accuracy::reproducible;
    const float one_process = wgprim::reduce(ctx(), full, op::sum(), ro);
    EXPECT_EQ(to_bits(one_process), to_bits(exact.round_to_float()));
    for (split_kind k : all_splits) {
      const auto part = slice<float>(as_bits(full), split_of(n, p, k, 9));
      const float got = mpi::reduce(ctx(), MPI_COMM_WORLD, part, op::sum(), ro);
      EXPECT_EQ(to_bits(got), to_bits(one_process)) << "n=" << n << " split " << static_cast<int>(k);
    }
  }
}

TEST(Mpi, ScansMatchTheCpuTwin) {
  const int p = ranks();
  // "the last non-zero": associative with identity 0, not commutative (the rank order matters).
  const op last_nonzero = op::custom("select(b, a, b == 0u)", "0");
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32}) {
    std::vector<op> ops = {t == dtype::i32 ? op::max() : op::sum()};
    if (t == dtype::u32) ops.push_back(last_nonzero);
    for (const op& o : ops)
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive})
        for (std::size_t n : sizes) {
          const monoid m(o, t);
          // f32 small integers: every prefix sum exact, so the result must match exactly.
          auto data = make_data(t, n, 21 + static_cast<std::uint32_t>(n), data_kind::small_ints);
          if (o.is_custom())
            for (auto& x : data) x = x % 4 == 0 ? 0 : x;  // some zeros, so that carries come from earlier ranks
          const auto b = split_of(n, p, all_splits[(n + (kind == scan_kind::exclusive)) % all_splits.size()], 17);
          with_type(t, [&](auto tag) {
            using T = decltype(tag);
            const auto part = slice<T>(data, b);
            std::vector<T> out(part.size());
            if (kind == scan_kind::inclusive) mpi::inclusive_scan(ctx(), MPI_COMM_WORLD, part, out, o);
            else mpi::exclusive_scan(ctx(), MPI_COMM_WORLD, part, out, o);
            const auto all = gather(as_bits(out));
            if (my_rank() != 0) return;
            std::vector<std::uint32_t> want(n);
            if (kind == scan_kind::inclusive) reference::inclusive_scan(data.data(), n, want.data(), m);
            else reference::exclusive_scan(data.data(), n, want.data(), m);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i) bad += all[i] != want[i];
            EXPECT_EQ(bad, 0u) << dtype_name(t) << " " << m.name() << " n=" << n;
          });
        }
  }
}

// Issue 29: reproducible (exact) f32 scans across ranks carry the ranks' whole superaccumulators (MPI_Exscan of
// 56-byte records): the output is the one-process exact scan bit for bit and the GMP reference's correctly rounded
// exact prefixes, whatever the rank count (ctest runs 1-4) and the split, on data where a rounded f32 carry differs
// (cancelling giants, a prefix beyond f32 that comes back, infinities and NaN), on lavapipe and natively.
TEST(Mpi, ReproducibleScanIsTheExactScanForEveryRankCount) {
  const int p = ranks();
  run_options ro;
  ro.accuracy = accuracy::reproducible;
  for (context* c : {&ctx(), &native_ctx()})
    for (const std::size_t n : {std::size_t(1), std::size_t(4097), std::size_t(70001)})
      for (int set = 0; set < 4; ++set) {
        if (n < 16 && set > 0) continue;
        const std::vector<float> x = exact_ref::data(set, n, static_cast<std::uint32_t>(n) + 11);
        const auto b = split_of(n, p, all_splits[(n + set) % all_splits.size()], 41 + set);
        for (const bool exclusive : {false, true}) {
          const auto part = slice<float>(as_bits(x), b);
          std::vector<float> out(part.size());
          if (exclusive) mpi::exclusive_scan(*c, MPI_COMM_WORLD, part, out, op::sum(), ro);
          else mpi::inclusive_scan(*c, MPI_COMM_WORLD, part, out, op::sum(), ro);
          // device ranges too (the CLI's path), on the largest size
          std::vector<float> dev_out(part.size());
          if (n == 70001) {
            device_vector<float> d_in(*c, part.size()), d_out(*c, part.size());
            d_in.assign(part);
            if (exclusive) mpi::exclusive_scan(*c, MPI_COMM_WORLD, d_in, d_out, op::sum(), ro);
            else mpi::inclusive_scan(*c, MPI_COMM_WORLD, d_in, d_out, op::sum(), ro);
            dev_out = d_out.to_host();
          }
          const auto all = gather(as_bits(out));
          const auto all_dev = gather(as_bits(dev_out));
          if (my_rank() != 0) continue;
          const auto want = exact_ref::scan(x, exclusive);
          std::vector<float> one(n);
          if (exclusive) wgprim::exclusive_scan(*c, x, one, op::sum(), ro);
          else wgprim::inclusive_scan(*c, x, one, op::sum(), ro);
          const std::string what = std::string(c == &ctx() ? "lavapipe" : "native") + " p=" + std::to_string(p) +
                                   " set " + std::to_string(set) + " n=" + std::to_string(n) +
                                   (exclusive ? " exclusive" : " inclusive");
          EXPECT_EQ(as_bits(one), want) << what << " (one process)";
          std::size_t first = n;
          for (std::size_t i = 0; i < n && first == n; ++i)
            if (all[i] != want[i]) first = i;
          EXPECT_EQ(first, n) << what << ": first difference at " << first;
          if (n == 70001) EXPECT_EQ(all_dev, want) << what << " (device ranges)";
        }
      }
}

TEST(Mpi, ScanOnDeviceRanges) {
  const int p = ranks();
  const std::size_t n = 50001;
  const auto data = make_data(dtype::u32, n, 4);
  const auto part = slice<std::uint32_t>(data, split_of(n, p, split_kind::random, 2));
  device_vector<std::uint32_t> d_in(ctx(), part.size()), d_out(ctx(), part.size());
  d_in.assign(part);
  mpi::inclusive_scan(ctx(), MPI_COMM_WORLD, d_in, d_out);
  std::vector<std::uint32_t> out(part.size());
  out = d_out.to_host();
  const auto all = gather(out);
  if (my_rank() != 0) return;
  std::vector<std::uint32_t> want(n);
  reference::inclusive_scan(data.data(), n, want.data(), monoid(op::sum(), dtype::u32));
  EXPECT_EQ(all, want);
}

// Keys of several shapes: random, few distinct values, all equal, f32 with NaNs, signed zeros and infinities.
std::vector<std::uint32_t> sort_keys(dtype t, std::size_t n, int shape, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> k(n);
  for (auto& x : k) {
    if (shape == 0) x = rng();
    else if (shape == 1) x = rng() % 3;
    else x = 7;
    if (t == dtype::f32) {
      const std::uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x80000000u, 0u, 0x7f800000u, 0xff800000u};
      x = shape == 0 ? (rng() % 16 == 0 ? specials[rng() % 6] : to_bits(std::ldexp(float(x % 1000) - 500, -3)))
                     : to_bits(static_cast<float>(x));
    }
  }
  return k;
}

TEST(Mpi, SortMatchesTheOneProcessSort) {
  const int p = ranks();
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32})
    for (int shape : {0, 1, 2})
      // 2047 / 2049: around the GPU merge's tile (2,048 keys) for the one-rank runs
      for (std::size_t n : {std::size_t(0), std::size_t(2047), std::size_t(2049), std::size_t(3001),
                            std::size_t(40000)}) {
        const auto data = sort_keys(t, n, shape, static_cast<std::uint32_t>(n) * 3 + shape);
        const auto b = split_of(n, p, all_splits[(n + shape) % all_splits.size()], 23);
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          const auto keys = slice<T>(data, b);
          std::vector<std::uint32_t> index(keys.size());
          std::iota(index.begin(), index.end(), static_cast<std::uint32_t>(b[my_rank()]));
          std::vector<T> ko;
          std::vector<std::uint32_t> vo;
          dist_stats st;
          mpi::sort_pairs(ctx(), MPI_COMM_WORLD, keys, index, ko, vo, {}, &st);
          ASSERT_EQ(ko.size(), vo.size());
          ASSERT_EQ(st.counts.size(), static_cast<std::size_t>(p));
          EXPECT_EQ(std::accumulate(st.counts.begin(), st.counts.end(), std::uint64_t(0)), n);
          // Balanced: regular sampling with ties broken by position keeps every part near n/p, skewed keys too.
          if (n >= 3000)
            for (auto c : st.counts) EXPECT_LE(c, n / p + n / 16 + 64) << "n=" << n << " shape " << shape;
          const auto keys_all = gather(as_bits(ko));
          const auto vals_all = gather(vo);
          // keys only, too (once per type)
          const bool keys_only = shape == 0 && n == 40000;
          const auto k_only = keys_only ? gather(as_bits(mpi::sort(ctx(), MPI_COMM_WORLD, keys))) : keys_all;
          if (my_rank() != 0) return;
          // The reference: the CPU twin's stable sort of (key, position).
          std::vector<std::uint32_t> want_k(data), want_v(n);
          std::iota(want_v.begin(), want_v.end(), 0u);
          reference::stable_sort(want_k.data(), n, t, false, want_v.data());
          EXPECT_EQ(keys_all, want_k) << dtype_name(t) << " shape " << shape << " n=" << n;
          EXPECT_EQ(vals_all, want_v) << dtype_name(t) << " shape " << shape << " n=" << n;
          EXPECT_EQ(k_only, want_k);
        });
      }
}

// Descending: the same shapes (f32 NaNs, signed zeros, infinities; few distinct; all equal), sizes 0, 1 and one
// that splits unevenly, keys with their input positions, against the CPU twin's descending stable sort.
TEST(Mpi, DescendingSortMatchesTheCpuTwin) {
  const int p = ranks();
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32})
    for (int shape : {0, 1, 2})
      for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(3001)}) {
        const auto data = sort_keys(t, n, shape, static_cast<std::uint32_t>(n) * 7 + shape);
        const auto b = split_of(n, p, all_splits[(n + shape + 1) % all_splits.size()], 29);
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          const auto keys = slice<T>(data, b);
          std::vector<std::uint32_t> index(keys.size());
          std::iota(index.begin(), index.end(), static_cast<std::uint32_t>(b[my_rank()]));
          std::vector<T> ko;
          std::vector<std::uint32_t> vo;
          dist_stats st;
          mpi::sort_pairs(ctx(), MPI_COMM_WORLD, keys, index, ko, vo, order::descending, {}, &st);
          ASSERT_EQ(ko.size(), vo.size());
          EXPECT_EQ(std::accumulate(st.counts.begin(), st.counts.end(), std::uint64_t(0)), n);
          // balanced as the ascending sort (a partition that sent everything to one rank would still sort right)
          if (n >= 3000)
            for (auto c : st.counts) EXPECT_LE(c, n / p + n / 16 + 64) << "n=" << n << " shape " << shape;
          const auto keys_all = gather(as_bits(ko));
          const auto vals_all = gather(vo);
          const bool keys_only = shape == 0 && n == 3001;
          const auto k_only =
              keys_only ? gather(as_bits(mpi::sort(ctx(), MPI_COMM_WORLD, keys, order::descending))) : keys_all;
          if (my_rank() != 0) return;
          std::vector<std::uint32_t> want_k(data), want_v(n);
          std::iota(want_v.begin(), want_v.end(), 0u);
          reference::stable_sort(want_k.data(), n, t, /*descending=*/true, want_v.data());
          EXPECT_EQ(keys_all, want_k) << dtype_name(t) << " shape " << shape << " n=" << n;
          EXPECT_EQ(vals_all, want_v) << dtype_name(t) << " shape " << shape << " n=" << n;
          EXPECT_EQ(k_only, want_k);
        });
      }
}

TEST(Mpi, OneRankFailingFailsEveryRankWithItsMessage) {
  const int p = ranks();
  const std::vector<std::uint32_t> part(100, 1);
  run_options bad;
  bad.algorithm = "no-such-algorithm";
  const int culprit = p - 1;
  try {
    (void)mpi::reduce(ctx(), MPI_COMM_WORLD, part, op::sum(), my_rank() == culprit ? bad : run_options{});
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    const std::string w = e.what();
    if (p > 1) EXPECT_EQ(w.rfind("rank " + std::to_string(culprit) + ": ", 0), 0u) << w;
    EXPECT_NE(w.find("no-such-algorithm"), std::string::npos) << w;
  }
  // The communicator still works after an agreed failure.
  EXPECT_EQ(mpi::reduce(ctx(), MPI_COMM_WORLD, part), 100u * p);
}

TEST(Mpi, DifferentOperatorsOnRanksAreRefused) {
  const int p = ranks();
  if (p == 1) GTEST_SKIP() << "needs two ranks";
  const std::vector<std::uint32_t> part(10, 1);
  const op o = my_rank() == 1 ? op::custom("a + b + 0u", "0") : op::sum();
  try {
    (void)mpi::reduce(ctx(), MPI_COMM_WORLD, part, o);
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("different operators"), std::string::npos) << e.what();
  }
}

TEST(Mpi, DifferentSortOrdersOnRanksAreRefused) {
  if (ranks() == 1) GTEST_SKIP() << "needs two ranks";
  const std::vector<std::uint32_t> part(10, 1);
  try {
    (void)mpi::sort(ctx(), MPI_COMM_WORLD, part, my_rank() == 1 ? order::descending : order::ascending);
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("sort orders"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wgprim::test

int main(int argc, char** argv) {
  wgprim::mpi::environment env(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (wgprim::test::my_rank() != 0 && !std::getenv("WGPRIM_TEST_EVERY_RANK")) {  // one report: rank 0's (other ranks' failures still set the exit code)
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}
