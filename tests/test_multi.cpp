// Several contexts in one process (wgprim/multi.hpp, and wgprim/distributed.hpp through the in-process
// communicator): 1 to 8 participants on one adapter (lavapipe here), any split.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "common.hpp"
#include "exact_reference.hpp"
#include "gpu/gpu.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/multi.hpp"

namespace wgprim::test {
namespace {

// Eight contexts on the default adapter, made once.
std::vector<context>& pool() {
  static std::vector<context> p = [] {
    std::vector<context> v;
    for (int i = 0; i < 8; ++i) v.emplace_back();
    return v;
  }();
  return p;
}

std::vector<std::size_t> random_bounds(std::size_t n, int k, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::size_t> b(k + 1, 0);
  b[k] = n;
  for (int r = 1; r < k; ++r) b[r] = n ? rng() % (n + 1) : 0;
  std::sort(b.begin(), b.end());
  return b;
}

// The ranks' parts in rank order, one after another.
std::vector<std::uint32_t> joined(const std::vector<std::vector<std::uint32_t>>& parts) {
  std::vector<std::uint32_t> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Rank r's part of a sort's input: its keys (elements [b[r], b[r+1]) of data, as T) and their global positions
// (the values of a pairs sort: stability shows in them).
template <class T>
void rank_part(const std::vector<std::uint32_t>& data, const std::vector<std::size_t>& b, int r, std::vector<T>& keys,
               std::vector<std::uint32_t>& index) {
  keys.resize(b[r + 1] - b[r]);
  if (!keys.empty()) std::memcpy(keys.data(), data.data() + b[r], keys.size() * 4);
  index.resize(keys.size());
  std::iota(index.begin(), index.end(), static_cast<std::uint32_t>(b[r]));
}

TEST(Multi, ReproducibleSumIsBitIdenticalForOneToSevenParticipants) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(777), std::size_t(65537)}) {
    std::mt19937 rng(static_cast<std::uint32_t>(n) + 1);
    std::vector<float> full(n);
    for (auto& x : full)
      x = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng), static_cast<int>(rng() % 50) - 25);
    run_options ro;
    ro.accuracy = accuracy::reproducible;
    const float one = wgprim::reduce(pool()[0], full, op::sum(), ro);
    superaccumulator exact;
    exact.add(full.data(), n);
    ASSERT_EQ(to_bits(one), to_bits(exact.round_to_float()));
    for (int k : {1, 2, 3, 4, 7})
      for (std::uint32_t seed : {1u, 2u}) {
        const auto b = random_bounds(n, k, seed * 31 + k);
        std::vector<float> got(k);
        multi::run(k, [&](int r, communicator& c) {
          got[r] = dist::reduce(pool()[r], c, host_span<const float>(full.data() + b[r], b[r + 1] - b[r]), op::sum(),
                                ro);
        });
        for (int r = 0; r < k; ++r) EXPECT_EQ(to_bits(got[r]), to_bits(one)) << "n=" << n << " k=" << k;
      }
  }
}

// Issue 29: reproducible (exact) scans across participants carry the whole superaccumulator (56 bytes) from rank to
// rank, not a rounded f32 total: the output is the one-process exact scan bit for bit and the GMP reference's
// correctly rounded exact prefixes, for every participant count and split, on lavapipe (WGSL) and natively, on data
// where a rounded carry differs (cancelling giants, a prefix beyond f32 that comes back, infinities and NaN).
TEST(Multi, ReproducibleScanIsTheExactScanForEveryParticipantCount) {
  static std::vector<context> webgpu = [] {
    std::vector<context> v;
    for (int i = 0; i < 4; ++i) v.emplace_back(webgpu_options());
    return v;
  }();
  static std::vector<context> native = [] {
    std::vector<context> v;
    context_options o;
    o.backend = backend_choice::native;
    for (int i = 0; i < 7; ++i) v.emplace_back(o);
    return v;
  }();
  run_options ro;
  ro.accuracy = accuracy::exact;
  std::size_t checked = 0;
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(70001)})
    for (int set = 0; set < 4; ++set) {
      if (n < 16 && set > 0) continue;
      const std::vector<float> x = exact_ref::data(set, n, static_cast<std::uint32_t>(n) + 7);
      for (const bool exclusive : {false, true}) {
        const auto want = exact_ref::scan(x, exclusive);
        std::vector<float> one(n);
        if (exclusive) wgprim::exclusive_scan(ctx(), x, one, op::sum(), ro);
        else wgprim::inclusive_scan(ctx(), x, one, op::sum(), ro);
        std::vector<std::uint32_t> one_bits(n);
        if (n) std::memcpy(one_bits.data(), one.data(), n * 4);
        ASSERT_EQ(one_bits, want) << "one process, set " << set << " n=" << n;
        for (const bool on_gpu : {true, false})
          for (const int k : {1, 2, 3, 4, 7}) {
            if (on_gpu && k > 4) continue;
            std::vector<context>& pool = on_gpu ? webgpu : native;
            const auto b = random_bounds(n, k, static_cast<std::uint32_t>(n * 3 + set * 17 + k + exclusive));
            std::vector<std::uint32_t> got(n, 0xdeadbeefu);
            multi::run(k, [&](int r, communicator& c) {
              const host_span<const float> part(x.data() + b[r], b[r + 1] - b[r]);
              host_span<float> out(reinterpret_cast<float*>(got.data()) + b[r], b[r + 1] - b[r]);
              if (exclusive) dist::exclusive_scan(pool[r], c, part, out, op::sum(), ro);
              else dist::inclusive_scan(pool[r], c, part, out, op::sum(), ro);
            });
            std::size_t first = n;
            for (std::size_t i = 0; i < n && first == n; ++i)
              if (got[i] != want[i]) first = i;
            EXPECT_EQ(first, n) << (on_gpu ? "lavapipe" : "native") << " k=" << k << " set " << set << " n=" << n
                                << (exclusive ? " exclusive" : " inclusive") << ": first difference at " << first
                                << (first < n ? ": got " + std::to_string(from_bits<float>(got[first])) + " want " +
                                                    std::to_string(from_bits<float>(want[first]))
                                              : std::string());
            ++checked;
          }
      }
    }
  EXPECT_GT(checked, 100u);
}

TEST(Multi, ScanAndSortAcrossSevenParticipants) {
  const std::size_t n = 30011;
  const int k = 7;
  const auto data = make_data(dtype::i32, n, 8);
  const auto b = random_bounds(n, k, 77);
  std::vector<std::uint32_t> out(n);
  std::vector<std::vector<std::uint32_t>> sorted(k);
  multi::run(k, [&](int r, communicator& c) {
    const host_span<const std::int32_t> part(reinterpret_cast<const std::int32_t*>(data.data()) + b[r],
                                             b[r + 1] - b[r]);
    dist::exclusive_scan(pool()[r], c, part, host_span<std::int32_t>(reinterpret_cast<std::int32_t*>(out.data()) + b[r],
                                                                      b[r + 1] - b[r]),
                         op::max());
    const std::vector<std::int32_t> keys(part.data(), part.data() + part.size());
    const auto mine = dist::sort(pool()[r], c, keys);
    sorted[r].resize(mine.size());
    if (!mine.empty()) std::memcpy(sorted[r].data(), mine.data(), mine.size() * 4);
  });
  std::vector<std::uint32_t> want(n);
  reference::exclusive_scan(data.data(), n, want.data(), monoid(op::max(), dtype::i32));
  EXPECT_EQ(out, want);
  std::vector<std::int32_t> keys(n);
  std::memcpy(keys.data(), data.data(), n * 4);
  std::stable_sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> got;
  for (auto& s : sorted) got.insert(got.end(), s.begin(), s.end());
  std::vector<std::uint32_t> want_sorted(n);
  std::memcpy(want_sorted.data(), keys.data(), n * 4);
  EXPECT_EQ(got, want_sorted);
}

// Keys for the descending sort: random bits with f32 specials (two NaN payloads, both zeros, both infinities), few
// distinct values, or all equal, so that order and stability (equal keys, NaNs) are both checked.
std::vector<std::uint32_t> descending_keys(dtype t, std::size_t n, int shape, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const std::uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x80000000u, 0u, 0x7f800000u, 0xff800000u};
  std::vector<std::uint32_t> k(n);
  for (auto& x : k) {
    if (shape == 0) x = t == dtype::f32 && rng() % 4 == 0 ? specials[rng() % 6] : rng();
    else if (shape == 1) x = t == dtype::f32 ? specials[rng() % 6] : rng() % 3;
    else x = t == dtype::f32 ? 0x7fc00000u : 0x80000000u;
  }
  return k;
}

TEST(Multi, DescendingSortMatchesTheCpuTwin) {
  const int ks[] = {3, 7, 2, 4, 1};
  int round = 0;
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32})
    for (int shape : {0, 1, 2})
      for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(3001)}) {
        const int k = ks[round % 5];
        const auto data = descending_keys(t, n, shape, static_cast<std::uint32_t>(n * 5 + shape));
        const auto b = random_bounds(n, k, 40 + round++);
        std::vector<std::vector<std::uint32_t>> ko(k), vo(k), keys_only(k);
        const bool with_keys_only = shape == 0 && n == 3001;
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          multi::run(k, [&](int r, communicator& c) {
            std::vector<T> keys, kout;
            std::vector<std::uint32_t> index;
            rank_part(data, b, r, keys, index);
            dist_stats st;
            dist::sort_pairs(pool()[r], c, keys, index, kout, vo[r], order::descending, {}, &st);
            // balanced as the ascending sort (a partition that sent everything to one part would still sort right)
            if (n >= 3000) EXPECT_LE(st.count, n / k + n / 16 + 64) << "k=" << k << " shape " << shape;
            ko[r].resize(kout.size());
            if (!kout.empty()) std::memcpy(ko[r].data(), kout.data(), kout.size() * 4);
            if (with_keys_only) {
              const std::vector<T> only = dist::sort(pool()[r], c, keys, order::descending);
              keys_only[r].resize(only.size());
              if (!only.empty()) std::memcpy(keys_only[r].data(), only.data(), only.size() * 4);
            }
          });
        });
        std::vector<std::uint32_t> got_k, got_v, got_only;
        for (int r = 0; r < k; ++r) {
          ASSERT_EQ(ko[r].size(), vo[r].size());
          got_k.insert(got_k.end(), ko[r].begin(), ko[r].end());
          got_v.insert(got_v.end(), vo[r].begin(), vo[r].end());
          got_only.insert(got_only.end(), keys_only[r].begin(), keys_only[r].end());
        }
        std::vector<std::uint32_t> want_k(data), want_v(n);
        std::iota(want_v.begin(), want_v.end(), 0u);
        reference::stable_sort(want_k.data(), n, t, /*descending=*/true, want_v.data());
        const std::string what = std::string(dtype_name(t)) + " shape " + std::to_string(shape) +
                                 " n=" + std::to_string(n) + " k=" + std::to_string(k);
        EXPECT_EQ(got_k, want_k) << what;
        EXPECT_EQ(got_v, want_v) << what;
        if (with_keys_only) EXPECT_EQ(got_only, want_k) << what;
      }
}

// One participant takes the short cut (one local sort, no exchange) and several do not; both write straight into the
// caller's vectors, which may be the inputs' own (in place), each other's inputs (swapped) or one vector passed as
// both keys and values.
TEST(Multi, SortPairsIntoTheInputVectors) {
  for (int k : {1, 2})
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2049)})
      for (int alias = 0; alias < 3; ++alias) {
        const auto data = descending_keys(dtype::u32, n, 1, static_cast<std::uint32_t>(n + 9));
        const auto b = random_bounds(n, k, static_cast<std::uint32_t>(n) + 5);
        std::vector<std::vector<std::uint32_t>> ko(k), vo(k);
        multi::run(k, [&](int r, communicator& c) {
          std::vector<std::uint32_t> keys(data.begin() + b[r], data.begin() + b[r + 1]), index(keys.size());
          std::iota(index.begin(), index.end(), static_cast<std::uint32_t>(b[r]));
          if (alias == 0) {  // in place
            dist::sort_pairs(pool()[r], c, keys, index, keys, index);
            ko[r] = keys, vo[r] = index;
          } else if (alias == 1) {  // swapped: the keys into the index's vector and back
            dist::sort_pairs(pool()[r], c, keys, index, index, keys);
            ko[r] = index, vo[r] = keys;
          } else {  // the keys as their own values
            dist::sort_pairs(pool()[r], c, keys, keys, ko[r], vo[r]);
          }
        });
        std::vector<std::uint32_t> got_k = joined(ko), got_v = joined(vo);
        std::vector<std::uint32_t> want_k(data), want_v(n);
        std::iota(want_v.begin(), want_v.end(), 0u);
        if (alias == 2) want_v = data;
        reference::stable_sort(want_k.data(), n, dtype::u32, /*descending=*/false, want_v.data());
        const std::string what =
            "k=" + std::to_string(k) + " n=" + std::to_string(n) + " alias " + std::to_string(alias);
        EXPECT_EQ(got_k, want_k) << what;
        EXPECT_EQ(got_v, want_v) << what;
      }
}

TEST(Multi, TwoContextsOnOneAdapterThroughTheDeviceSet) {
  multi::device_set set = multi::open("#0,#0");
  ASSERT_EQ(set.contexts.size(), 2u);
  multi::measure(set, 1 << 16);
  for (double s : set.speed) EXPECT_GT(s, 0);
  const std::size_t n = 100003;
  const auto bits = make_data(dtype::u32, n, 3);
  const std::vector<std::uint32_t> v(bits.begin(), bits.end());
  const monoid m(op::sum(), dtype::u32);
  std::vector<dist_stats> st;
  EXPECT_EQ(multi::reduce(set, v, op::sum(), {}, &st), reference::reduce(v.data(), n, m));
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].count + st[1].count, n);
  std::vector<std::uint32_t> want(n);
  reference::inclusive_scan(v.data(), n, want.data(), m);
  EXPECT_EQ(multi::inclusive_scan(set, v), want);
  std::vector<std::uint32_t> s = v;
  std::sort(s.begin(), s.end());
  EXPECT_EQ(multi::sort(set, v), s);
  std::reverse(s.begin(), s.end());  // u32 keys: equal keys are equal bits, so the reverse is the stable descending
  EXPECT_EQ(multi::sort(set, v, order::descending), s);
}

TEST(Multi, SplitAndOpenRefuseNonsense) {
  EXPECT_EQ(multi::split(10, {1, 1, 0}), (std::vector<std::size_t>{5, 5, 0}));
  EXPECT_EQ(multi::split(10, {3, 1}), (std::vector<std::size_t>{8, 2}));  // 7.5 rounds to 8
  EXPECT_EQ(multi::split(0, {1, 2}), (std::vector<std::size_t>{0, 0}));
  EXPECT_THROW(multi::split(10, {}), error);
  EXPECT_THROW(multi::split(10, {1, -1}), error);
  EXPECT_THROW(multi::open("#0,,#0"), error);
  try {
    multi::open("#99");
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::no_adapter);
  }
}

TEST(Multi, AFailingParticipantFailsEveryOne) {
  const std::vector<std::uint32_t> part(64, 1);
  std::vector<std::string> messages(3);
  multi::run(3, [&](int r, communicator& c) {
    run_options ro;
    if (r == 2) ro.algorithm = "no-such-algorithm";
    try {
      (void)dist::reduce(pool()[r], c, part, op::sum(), ro);
    } catch (const error& e) {
      messages[r] = e.what();
    }
  });
  for (const auto& m : messages) EXPECT_EQ(m.rfind("rank 2: ", 0), 0u) << m;
}

// The test's own twin of the sort's key order (wgprim/sort.hpp): u32 as is, i32 with the sign flipped, f32
// -inf < ... < -0 < +0 < ... < +inf < NaN with every NaN equal; descending the complement (equal keys stay equal).
std::uint32_t key_rank(dtype t, std::uint32_t b, bool descending) {
  std::uint32_t u = b;
  if (t == dtype::i32) u = b ^ 0x80000000u;
  if (t == dtype::f32) u = (b & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu : (b & 0x80000000u) ? ~b : b | 0x80000000u;
  return descending ? ~u : u;
}

// std::stable_sort of (key, value) pairs by the key order.
void twin_sort(dtype t, bool descending, std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& vals) {
  std::vector<std::size_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), std::size_t(0));
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return key_rank(t, keys[a], descending) < key_rank(t, keys[b], descending);
  });
  std::vector<std::uint32_t> k(keys.size()), v(vals.size());
  for (std::size_t i = 0; i < idx.size(); ++i) {
    k[i] = keys[idx[i]];
    if (!vals.empty()) v[i] = vals[idx[i]];
  }
  keys = std::move(k);
  vals = std::move(v);
}

// Keys of five shapes: 0 random bits, 1 few distinct (3), 2 all equal, 3 f32 specials (NaNs of two payloads, both
// zeros, both infinities) among random floats, 4 f32 specials only.
std::vector<std::uint32_t> shaped_keys(std::size_t n, int shape, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const std::uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x80000000u, 0u, 0x7f800000u, 0xff800000u};
  std::vector<std::uint32_t> k(n);
  for (auto& x : k) {
    switch (shape) {
      case 0: x = rng(); break;
      case 1: x = rng() % 3; break;
      case 2: x = 0x80000000u; break;
      case 3: x = rng() % 3 == 0 ? specials[rng() % 6] : to_bits(std::uniform_real_distribution<float>(-4, 4)(rng)); break;
      default: x = specials[rng() % 6];
    }
  }
  return k;
}

// The distributed sort (GPU path: local sort on the device, GPU sample, GPU splitter search, GPU k-way merge; native
// backend: the host path) against the CPU twin for 1, 2, 3, 4, 5 and 8 participants, sizes around the merge tile
// (2,048 keys), splits with an empty part, everything on one part, or random; every key shape, both orders, pairs
// with their global index as values (stability checked exactly) and keys alone.
TEST(Multi, DistributedSortSweepMatchesTheCpuTwin) {
  int round = 0;
  for (int k : {1, 2, 3, 4, 5, 8})
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2047), std::size_t(2048), std::size_t(2049),
                          std::size_t(4097), std::size_t(20011)})
      for (int split = 0; split < 3; ++split) {
        const int shape = round % 5;
        const dtype t = shape >= 3 ? dtype::f32 : round % 2 ? dtype::i32 : dtype::u32;
        const bool descending = (round / 5) % 2 == 1;
        const bool keys_only = round % 3 == 0;
        ++round;
        const auto data = shaped_keys(n, shape, static_cast<std::uint32_t>(round * 31 + n));
        std::vector<std::size_t> b = random_bounds(n, k, static_cast<std::uint32_t>(round));
        if (split == 1 && k > 1) b[1] = 0;  // rank 0 empty (the rest random)
        if (split == 2) for (int r = 0; r <= k; ++r) b[r] = r <= k / 2 ? 0 : n;  // rank k/2 (or 0) holds everything
        for (int r = 1; r <= k; ++r) b[r] = std::max(b[r], b[r - 1]);
        std::vector<std::vector<std::uint32_t>> ko(k), vo(k);
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          multi::run(k, [&](int r, communicator& c) {
            std::vector<T> keys, kout;
            std::vector<std::uint32_t> index;
            rank_part(data, b, r, keys, index);
            const order o = descending ? order::descending : order::ascending;
            dist_stats st;
            if (keys_only) kout = dist::sort(pool()[r], c, keys, o, {}, &st);
            else dist::sort_pairs(pool()[r], c, keys, index, kout, vo[r], o, {}, &st);
            // balanced (regular samples; ties split by position): a partition that sent everything to one part
            // would still sort right
            if (n > 20000) EXPECT_LE(st.count, n / k + n / 16 + 64) << "k=" << k << " shape " << shape;
            EXPECT_EQ(st.count, kout.size());
            EXPECT_GE(st.total_ms, st.local_ms);
            ko[r].resize(kout.size());
            if (!kout.empty()) std::memcpy(ko[r].data(), kout.data(), kout.size() * 4);
          });
        });
        std::vector<std::uint32_t> got_k = joined(ko), got_v = joined(vo);
        std::vector<std::uint32_t> want_k(data), want_v(n);
        std::iota(want_v.begin(), want_v.end(), 0u);
        twin_sort(t, descending, want_k, want_v);
        const std::string what = std::string(dtype_name(t)) + " shape " + std::to_string(shape) + " n=" +
                                 std::to_string(n) + " k=" + std::to_string(k) + " split " + std::to_string(split) +
                                 (descending ? " descending" : "") + (keys_only ? " keys only" : " pairs");
        EXPECT_EQ(got_k, want_k) << what;
        if (!keys_only) EXPECT_EQ(got_v, want_v) << what;
      }
}

// WGPRIM_DIST_SORT=host: the earlier host steps (host samples and searches, the received runs sorted again) stay
// selectable on a WebGPU context as the A/B baseline, and give the same result.
TEST(Multi, DistributedSortHostStepsStillMatchTheCpuTwin) {
  ::setenv("WGPRIM_DIST_SORT", "host", 1);
  for (int k : {2, 5})
    for (bool descending : {false, true}) {
      const std::size_t n = 4097;
      const auto data = shaped_keys(n, 3, static_cast<std::uint32_t>(k * 2 + descending));
      const auto b = random_bounds(n, k, static_cast<std::uint32_t>(k));
      std::vector<std::vector<std::uint32_t>> ko(k), vo(k);
      multi::run(k, [&](int r, communicator& c) {
        std::vector<float> keys(b[r + 1] - b[r]), kout;
        if (!keys.empty()) std::memcpy(keys.data(), data.data() + b[r], keys.size() * 4);
        std::vector<std::uint32_t> index(keys.size());
        std::iota(index.begin(), index.end(), static_cast<std::uint32_t>(b[r]));
        dist::sort_pairs(pool()[r], c, keys, index, kout, vo[r], descending ? order::descending : order::ascending);
        ko[r].resize(kout.size());
        if (!kout.empty()) std::memcpy(ko[r].data(), kout.data(), kout.size() * 4);
      });
      std::vector<std::uint32_t> got_k = joined(ko), got_v = joined(vo), want_k(data), want_v(n);
      std::iota(want_v.begin(), want_v.end(), 0u);
      twin_sort(dtype::f32, descending, want_k, want_v);
      EXPECT_EQ(got_k, want_k) << "k=" << k << (descending ? " descending" : "");
      EXPECT_EQ(got_v, want_v) << "k=" << k << (descending ? " descending" : "");
    }
  ::unsetenv("WGPRIM_DIST_SORT");
}

// The GPU k-way merge of the received runs alone (detail::record_merge_runs), at run lengths around its tile (2,048
// keys: 2^k - 1, 2^k, 2^k + 1), with empty runs, one run, odd and even run counts: the result must be the stable
// sort of the concatenation (equal keys: the earlier run's first), checked with the values = input positions.
TEST(Multi, MergeOfSortedRunsAtTileEdges) {
  context& ctx = pool()[0];
  if (ctx.backend() == backend_choice::native) GTEST_SKIP() << "a WebGPU kernel (the native backend sorts on the host)";
  const std::vector<std::vector<std::uint64_t>> cases = {
      {2047, 1},  {2048, 2048}, {2049, 0, 2047}, {1, 1, 1, 1, 1},         {0, 4097},   {5000},
      {4095, 4097, 2048, 1, 6143}, {0, 0, 3, 0},  {1023, 1025, 2047, 2049, 4095, 4096, 4097, 8191}, {16385, 2, 16383}};
  int round = 0;
  for (const auto& runs : cases)
    for (int shape = 0; shape < 5; ++shape) {
      const dtype t = shape >= 3 ? dtype::f32 : shape == 1 ? dtype::i32 : dtype::u32;
      const bool descending = round++ % 2 == 1;
      const std::uint64_t n = std::accumulate(runs.begin(), runs.end(), std::uint64_t(0));
      std::vector<std::uint32_t> keys = shaped_keys(n, shape, static_cast<std::uint32_t>(round)), vals(n);
      std::iota(vals.begin(), vals.end(), 0u);
      // each run sorted on its own (the twin), as the exchange delivers them
      std::uint64_t at = 0;
      for (std::uint64_t len : runs) {
        std::vector<std::uint32_t> rk(keys.begin() + at, keys.begin() + at + len), rv(vals.begin() + at, vals.begin() + at + len);
        twin_sort(t, descending, rk, rv);
        std::copy(rk.begin(), rk.end(), keys.begin() + at);
        std::copy(rv.begin(), rv.end(), vals.begin() + at);
        at += len;
      }
      for (bool pairs : {true, false}) {
        buffer kb = ctx.create_buffer(std::max<std::uint64_t>(n, 1) * 4), vb = ctx.create_buffer(std::max<std::uint64_t>(n, 1) * 4);
        ctx.write(kb, 0, keys.data(), n * 4);
        ctx.write(vb, 0, vals.data(), n * 4);
        detail::key_compare c;
        c.kind = static_cast<detail::sort_key_kind>(t == dtype::i32 ? 1 : t == dtype::f32 ? 2 : 0);
        c.ord = descending ? order::descending : order::ascending;
        const detail::device_view kv = detail::view_of(kb, n), vv = detail::view_of(vb, n);
        {
          detail::recorder rec(ctx);
          const buffer tables = detail::record_merge_runs(rec, c, kv, pairs ? &vv : nullptr, runs);
          rec.submit();
        }
        std::vector<std::uint32_t> got_k(n), got_v(n);
        ctx.read(kb, 0, got_k.data(), n * 4);
        ctx.read(vb, 0, got_v.data(), n * 4);
        std::vector<std::uint32_t> want_k(keys), want_v(vals);
        twin_sort(t, descending, want_k, want_v);
        std::string what = std::string(dtype_name(t)) + (descending ? " descending" : "") + " runs";
        for (std::uint64_t len : runs) what += " " + std::to_string(len);
        EXPECT_EQ(got_k, want_k) << what;
        if (pairs) EXPECT_EQ(got_v, want_v) << what;
        else EXPECT_EQ(got_v, vals) << what << " (keys only: the values buffer untouched)";
      }
    }
}

}  // namespace
}  // namespace wgprim::test
