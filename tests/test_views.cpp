// Fused input views (include/wgprim/view.hpp): every view-aware primitive (reduce in every accuracy mode, inclusive
// and exclusive scan, arg-min/max, select / partition / unique) x every view kind (counting, constant, gather, zip,
// transform over a buffer / counting / gather / zip)
// x edge sizes (0, 1, tile-1, tile, tile+1, 2^k +- 1) against the CPU twin, on lavapipe (WebGPU) and on the native
// backend. The expected values are computed here from the view's definition (not by the library's host helper),
// then reduced / scanned by the twin. Exact comparisons: integers, f32 min/max, and f32 sums whose every partial
// sum is exact (small integers, halves); other f32 sums compare the reproducible (exact) mode's result with the
// correctly rounded sum, bit for bit.
#include <cmath>
#include <functional>

#include "common.hpp"
#include "wgprim/view.hpp"

namespace wgprim::test {
namespace {

// 0, 1, tile-1/tile/tile+1 for the reduce / scan / select tile (256 x 4 x 4 = 4,096) and two tiles, the
// single-workgroup reduce's limit on CPU adapters (65,536) and 2^k +- 1 (a short list: lavapipe runs every case).
std::vector<std::size_t> view_sizes() {
  return {0, 1, 2, 3, 31, 33, 255, 256, 257, 1023, 1025, 4095, 4096, 4097, 8191, 8192, 8193, 16385, 65535, 65536,
          65537, 131071, 131073};
}

// One view case: how to make the view of n values on a context, and the values it must yield (bits).
struct view_case {
  std::string name;
  dtype type;  // the values' type
  std::function<detail::view_desc(context&, std::size_t, std::vector<device_vector<std::uint32_t>>&)> make;
  std::function<std::vector<std::uint32_t>(std::size_t)> expect;
};

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed, std::uint32_t mask = ~0u) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = rng() & mask;
  return v;
}

// Indices into a base of `base_n` elements, a few of them past its end (which read its last element).
std::vector<std::uint32_t> indices(std::size_t n, std::size_t base_n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> ix(n);
  for (std::size_t i = 0; i < n; ++i)
    ix[i] = i % 97 == 5 ? static_cast<std::uint32_t>(base_n + rng() % 1000) : static_cast<std::uint32_t>(rng() % base_n);
  return ix;
}

std::vector<view_case> view_cases() {
  std::vector<view_case> c;
  auto keep = [](context& ctx, std::vector<device_vector<std::uint32_t>>& hold, const std::vector<std::uint32_t>& h) {
    hold.emplace_back(ctx, host_span<const std::uint32_t>(h.data(), h.size()));
    return detail::in_ref(hold.back()).view;
  };
  c.push_back({"counting u32 (7, +3)", dtype::u32,
               [](context&, std::size_t n, auto&) { return view::counting<std::uint32_t>(7, n, 3).desc(); },
               [](std::size_t n) {
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = 7u + 3u * static_cast<std::uint32_t>(i);
                 return v;
               }});
  c.push_back({"counting i32 (-1000, -7)", dtype::i32,
               [](context&, std::size_t n, auto&) { return view::counting<std::int32_t>(-1000, n, -7).desc(); },
               [](std::size_t n) {
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i)
                   v[i] = static_cast<std::uint32_t>(-1000) + static_cast<std::uint32_t>(-7) * static_cast<std::uint32_t>(i);
                 return v;
               }});
  c.push_back({"counting f32 (-3, 0.5)", dtype::f32,
               [](context&, std::size_t n, auto&) { return view::counting<float>(-3.0f, n, 0.5f).desc(); },
               [](std::size_t n) {
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = to_bits(-3.0f + 0.5f * static_cast<float>(i));  // exact
                 return v;
               }});
  c.push_back({"constant u32", dtype::u32,
               [](context&, std::size_t n, auto&) { return view::constant<std::uint32_t>(0x9e3779b9u, n).desc(); },
               [](std::size_t n) { return std::vector<std::uint32_t>(n, 0x9e3779b9u); }});
  c.push_back({"constant f32", dtype::f32,
               [](context&, std::size_t n, auto&) { return view::constant<float>(1.5f, n).desc(); },
               [](std::size_t n) { return std::vector<std::uint32_t>(n, to_bits(1.5f)); }});
  c.push_back({"gather u32", dtype::u32,
               [](context& ctx, std::size_t n, auto& hold) {
                 const std::size_t bn = n / 3 + 1;
                 const auto base = random_words(bn, 11), ix = indices(n, bn, 12);
                 hold.emplace_back(ctx, host_span<const std::uint32_t>(base));
                 hold.emplace_back(ctx, host_span<const std::uint32_t>(ix));
                 return view::gather(hold[0], hold[1]).desc();
               },
               [](std::size_t n) {
                 const std::size_t bn = n / 3 + 1;
                 const auto base = random_words(bn, 11);
                 const auto ix = indices(n, bn, 12);
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = base[std::min<std::size_t>(ix[i], bn - 1)];
                 return v;
               }});
  c.push_back({"transform u32 buffer 'a & 0xffffu'", dtype::u32,
               [](context& ctx, std::size_t n, auto& hold) {
                 const auto x = random_words(n, 13);
                 hold.emplace_back(ctx, host_span<const std::uint32_t>(x));
                 return view::transform(hold.back(), "a & 0xffffu").desc();
               },
               [](std::size_t n) {
                 auto v = random_words(n, 13);
                 for (auto& x : v) x &= 0xffffu;
                 return v;
               }});
  c.push_back({"transform counting u32 -> f32 'f32(a) * 0.5'", dtype::f32,
               [](context&, std::size_t n, auto&) {
                 return view::transform<float>(view::counting<std::uint32_t>(2, n), "f32(a) * 0.5").desc();
               },
               [](std::size_t n) {
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = to_bits(static_cast<float>(2 + i) * 0.5f);
                 return v;
               }});
  c.push_back({"transform gather i32 'abs(a) % 1000'", dtype::i32,
               [keep](context& ctx, std::size_t n, auto& hold) {
                 const std::size_t bn = n / 2 + 1;
                 detail::view_desc d;
                 d.kind = detail::view_desc::source::gather;
                 d.type = dtype::i32;
                 d.base = keep(ctx, hold, random_words(bn, 14));
                 d.index = keep(ctx, hold, indices(n, bn, 15));
                 d.count = n;
                 return view::transform(input_view<std::int32_t>(d), "abs(a) % 1000").desc();
               },
               [](std::size_t n) {
                 const std::size_t bn = n / 2 + 1;
                 const auto base = random_words(bn, 14);
                 const auto ix = indices(n, bn, 15);
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) {
                   const std::int64_t a = static_cast<std::int32_t>(base[std::min<std::size_t>(ix[i], bn - 1)]);
                   // WGSL abs(i32::MIN) wraps to i32::MIN; % truncates toward zero.
                   const std::int32_t ab = static_cast<std::int32_t>(static_cast<std::uint32_t>(a < 0 ? -a : a));
                   v[i] = static_cast<std::uint32_t>(ab % 1000);
                 }
                 return v;
               }});
  c.push_back({"transform counting u32 'a / 7u' (runs of 7)", dtype::u32,
               [](context&, std::size_t n, auto&) {
                 return view::transform(view::counting<std::uint32_t>(3, n), "a / 7u").desc();
               },
               [](std::size_t n) {
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint32_t>(3 + i) / 7u;
                 return v;
               }});
  // zip: two ranges of one type and length combined by an expression in a and b.
  auto zip_of = [keep](context& ctx, auto& hold, dtype t, const std::vector<std::uint32_t>& a,
                       const std::vector<std::uint32_t>& b, const char* expr) {
    detail::view_desc d;
    d.kind = detail::view_desc::source::zip;
    d.type = t;
    d.base = keep(ctx, hold, a);
    d.index = keep(ctx, hold, b);
    d.count = a.size();
    d.zip_expr = expr;
    return d;
  };
  c.push_back({"zip u32 'a * b + 1u'", dtype::u32,
               [](context& ctx, std::size_t n, auto& hold) {
                 const auto a = random_words(n, 16), b = random_words(n, 17);
                 hold.emplace_back(ctx, host_span<const std::uint32_t>(a));
                 hold.emplace_back(ctx, host_span<const std::uint32_t>(b));
                 return view::zip(hold[0], hold[1], "a * b + 1u").desc();  // the typed maker
               },
               [](std::size_t n) {
                 const auto a = random_words(n, 16), b = random_words(n, 17);
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = a[i] * b[i] + 1u;
                 return v;
               }});
  c.push_back({"zip i32 'max(a, b) - min(a, b)'", dtype::i32,
               [zip_of](context& ctx, std::size_t n, auto& hold) {
                 return zip_of(ctx, hold, dtype::i32, random_words(n, 18), random_words(n, 19),
                               "max(a, b) - min(a, b)");
               },
               [](std::size_t n) {
                 const auto a = random_words(n, 18), b = random_words(n, 19);
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) {
                   const std::int32_t x = static_cast<std::int32_t>(a[i]), y = static_cast<std::int32_t>(b[i]);
                   v[i] = static_cast<std::uint32_t>(std::max(x, y)) - static_cast<std::uint32_t>(std::min(x, y));
                 }
                 return v;
               }});
  // Quarters in [-250, 250]: every product is exact in f32, so a shader that fuses it into an add agrees.
  auto quarters = [](std::size_t n, std::uint32_t seed) {
    auto w = random_words(n, seed);
    for (auto& x : w) x = to_bits(static_cast<float>(static_cast<int>(x % 2001u) - 1000) * 0.25f);
    return w;
  };
  c.push_back({"zip f32 'a * b' (dot product)", dtype::f32,
               [zip_of, quarters](context& ctx, std::size_t n, auto& hold) {
                 return zip_of(ctx, hold, dtype::f32, quarters(n, 20), quarters(n, 21), "a * b");
               },
               [quarters](std::size_t n) {
                 const auto a = quarters(n, 20), b = quarters(n, 21);
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = to_bits(from_bits<float>(a[i]) * from_bits<float>(b[i]));
                 return v;
               }});
  c.push_back({"transform zip u32 -> f32 'f32(a & 1023u)' over 'a ^ b'", dtype::f32,
               [](context& ctx, std::size_t n, auto& hold) {
                 const auto a = random_words(n, 22), b = random_words(n, 23);
                 hold.emplace_back(ctx, host_span<const std::uint32_t>(a));
                 hold.emplace_back(ctx, host_span<const std::uint32_t>(b));
                 return view::transform<float>(view::zip(hold[0], hold[1], "a ^ b"), "f32(a & 1023u)").desc();
               },
               [](std::size_t n) {
                 const auto a = random_words(n, 22), b = random_words(n, 23);
                 std::vector<std::uint32_t> v(n);
                 for (std::size_t i = 0; i < n; ++i) v[i] = to_bits(static_cast<float>((a[i] ^ b[i]) & 1023u));
                 return v;
               }});
  return c;
}

// Ops whose result does not depend on the order of combination for these values: integers (all), f32 min/max,
// and f32 sums of values whose partial sums are exact (constant 1.5 up to 2^22 elements; halves of small
// integers below 2^24 in total).
bool exact_f32_sum(const view_case& vc) {
  if (vc.name.rfind("constant", 0) == 0) return true;
  return false;  // counting halves: partial sums of n^2 / 4 pass 2^24: checked through the exact mode
}

std::vector<op> view_ops(dtype t) {
  if (t == dtype::f32) return {op::sum(), op::min(), op::max()};
  return {op::sum(), op::min(), op::max(), op::bit_xor()};
}

// Calls f(case, n, the view on c, the values it must yield) for every view case at every size.
template <class F>
void for_each_view(context& c, const std::vector<std::size_t>& sizes, F&& f) {
  for (const view_case& vc : view_cases())
    for (std::size_t n : sizes) {
      std::vector<device_vector<std::uint32_t>> hold;
      hold.reserve(4);  // the views refer to these
      const detail::view_desc d = vc.make(c, n, hold);
      f(vc, n, d, vc.expect(n));
    }
}

void check_reduce(context& c, const char* backend) {
  for_each_view(c, view_sizes(), [&](const view_case& vc, std::size_t n, const detail::view_desc& d,
                           const std::vector<std::uint32_t>& want_values) {
      ASSERT_EQ(want_values.size(), n);
      for (const op& o : view_ops(vc.type)) {
        const monoid m(o, vc.type);
        SCOPED_TRACE(std::string(backend) + " " + vc.name + " " + describe(m, n));
        const std::uint32_t want = reference::reduce(want_values.data(), n, m);
        if (vc.type == dtype::f32 && m.is_sum()) {
          const float cr = reference::correctly_rounded_sum_f32(reinterpret_cast<const float*>(want_values.data()), n);
          run_options ex;
          ex.accuracy = accuracy::reproducible;
          run_options comp;
          comp.accuracy = accuracy::compensated;
          if (d.tr) {  // a transform view takes accuracy::fast only, as transform_reduce
            for (const run_options* o : {&ex, &comp}) {
              try {
                detail::reduce_view_raw(c, d, m, nullptr, *o);
                ADD_FAILURE() << "a transform view ran with accuracy " << accuracy_name(o->accuracy);
              } catch (const error& e) {
                EXPECT_EQ(e.code(), errc::unsupported);
              }
            }
          } else {
            // The exact mode: correctly rounded, whatever the order.
            const std::uint32_t got = static_cast<std::uint32_t>(detail::reduce_view_raw(c, d, m, nullptr, ex));
            EXPECT_EQ(got, to_bits(cr)) << "reproducible";
            // Compensated (double-word) sums take views too.
            const float cs =
                from_bits<float>(static_cast<std::uint32_t>(detail::reduce_view_raw(c, d, m, nullptr, comp)));
            EXPECT_LE(std::fabs(double(cs) - double(cr)), std::fabs(double(cr)) * 0x1p-22 + 1e-30) << "compensated";
          }
          const float fast = from_bits<float>(static_cast<std::uint32_t>(detail::reduce_view_raw(c, d, m, nullptr, {})));
          if (exact_f32_sum(vc)) {
            EXPECT_EQ(to_bits(fast), want);
          } else {
            const double abs_sum = reference::abs_sum_f32(reinterpret_cast<const float*>(want_values.data()), n);
            EXPECT_LE(std::fabs(double(fast) - double(cr)), f32_sum_bound(double(n), abs_sum) + std::fabs(double(cr)) * 0x1p-24);
          }
        } else {
          EXPECT_EQ(static_cast<std::uint32_t>(detail::reduce_view_raw(c, d, m, nullptr, {})), want);
        }
      }
  });
}

void check_scan(context& c, const char* backend) {
  for_each_view(c, view_sizes(), [&](const view_case& vc, std::size_t n, const detail::view_desc& d,
                           const std::vector<std::uint32_t>& want_values) {
      std::vector<op> ops = {op::max()};
      if (vc.type != dtype::f32 || vc.name.rfind("constant", 0) == 0) ops.push_back(op::sum());
      for (const op& o : ops) {
        const monoid m(o, vc.type);
        for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
          SCOPED_TRACE(std::string(backend) + " " + vc.name + " " + describe(m, n) +
                       (kind == scan_kind::inclusive ? " inclusive" : " exclusive"));
          std::vector<std::uint32_t> want(n);
          if (kind == scan_kind::inclusive) reference::inclusive_scan(want_values.data(), n, want.data(), m);
          else reference::exclusive_scan(want_values.data(), n, want.data(), m);
          device_vector<std::uint32_t> out(c, n);
          detail::scan_view_run(c, d, detail::out_ref(out), m, kind, nullptr, {});
          const std::vector<std::uint32_t> got = out.to_host();
          std::size_t bad = 0, first_bad = n;
          for (std::size_t i = 0; i < n; ++i)
            if (got[i] != want[i] && bad++ == 0) first_bad = i;
          EXPECT_EQ(bad, 0u) << "first mismatch at " << first_bad;
        }
      }
  });
}

void check_arg(context& c, const char* backend) {
  // (A transform view goes through a temporary array of its values; the others are computed in the load.)
  for_each_view(c, view_sizes(), [&](const view_case& vc, std::size_t n, const detail::view_desc& d,
                           const std::vector<std::uint32_t>& want_values) {
      if (n == 0) return;  // an error, checked below
      for (arg_op o : {arg_op::min, arg_op::max}) {
        SCOPED_TRACE(std::string(backend) + " " + vc.name + " n=" + std::to_string(n) +
                     (o == arg_op::min ? " argmin" : " argmax"));
        const arg_result<std::uint32_t> want = reference::arg_reduce(want_values.data(), n, vc.type, o);
        const arg_result<std::uint32_t> got = detail::arg_reduce_view_bits(c, d, o, {});
        EXPECT_EQ(got.value, want.value);
        EXPECT_EQ(got.index, want.index);
      }
  });
}

// sort of a view into a device range longer than the view (the tail keeps what it held): ascending at every size,
// then descending and a bit range at a few, against the twin (std::stable_sort of the view's values).
void check_sort(context& c, const char* backend) {
  struct order_case { bool descending; unsigned lo, hi; };
  for_each_view(c, {0, 1, 2, 31, 257, 4097, 65537}, [&](const view_case& vc, std::size_t n, const detail::view_desc& d,
                                                        const std::vector<std::uint32_t>& x) {
      for (const order_case& oc : {order_case{false, 0, 0}, order_case{true, 0, 0}, order_case{false, 4, 20}}) {
        if ((oc.descending || oc.lo) && n != 4097) continue;
        SCOPED_TRACE(std::string(backend) + " " + vc.name + " n=" + std::to_string(n) + (oc.descending ? " descending" : "") +
                     (oc.lo ? " bits 4:20" : ""));
        std::vector<std::uint32_t> want = x;
        reference::stable_sort_bits(want.data(), n, vc.type, oc.descending, oc.lo, oc.hi);
        const std::vector<std::uint32_t> filled(n + 5, 0xabcdef01u);
        device_vector<std::uint32_t> out(c, host_span<const std::uint32_t>(filled));
        sort_order o{oc.descending ? order::descending : order::ascending, oc.lo, oc.hi};
        detail::sort_view_run(c, d, detail::out_ref(out), o, {});
        std::vector<std::uint32_t> got = out.to_host();
        for (std::size_t i = n; i < n + 5; ++i) EXPECT_EQ(got[i], 0xabcdef01u) << "tail " << i;
        got.resize(n);
        std::size_t bad = 0, first_bad = n;
        for (std::size_t i = 0; i < n; ++i)
          if (got[i] != want[i] && bad++ == 0) first_bad = i;
        EXPECT_EQ(bad, 0u) << "first mismatch at " << first_bad;
      }
  });
}

TEST(Views, SortMatchesTheTwin) {
  check_sort(ctx(), "webgpu");
  check_sort(native_ctx(), "native");
  // Into an output at an element offset no binding can start at (its temporary must not reach the tail); a
  // transform view of the output's own buffer (sorted through a temporary into it).
  for (context* c : {&ctx(), &native_ctx()}) {
    SCOPED_TRACE(c == &ctx() ? "webgpu" : "native");
    const std::size_t n = 5000;
    const auto x = random_words(n, 41);
    device_vector<std::uint32_t> src(*c, host_span<const std::uint32_t>(x));
    const std::vector<std::uint32_t> filled(n + 9, 0x5eedu);
    device_vector<std::uint32_t> big(*c, host_span<const std::uint32_t>(filled));
    run_stats st;
    run_options ro;
    ro.stats = &st;
    sort(*c, view::transform(src, "a >> 7u"), big.span().subspan(3, n + 2), sort_order{}, ro);
    std::vector<std::uint32_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = x[i] >> 7;
    reference::stable_sort(want.data(), n, dtype::u32, false);
    std::vector<std::uint32_t> got = big.to_host();
    EXPECT_EQ(std::vector<std::uint32_t>(got.begin() + 3, got.begin() + 3 + n), want);
    for (std::size_t i : {0u, 1u, 2u, 5003u, 5004u, 5005u, 5006u, 5007u}) EXPECT_EQ(got[i], 0x5eedu) << "element " << i;
    EXPECT_GT(st.gpu_ms, 0.0);
    sort(*c, view::transform(src, "a & 0xffffu"), src, order::descending);
    for (std::size_t i = 0; i < n; ++i) want[i] = x[i] & 0xffffu;
    reference::stable_sort(want.data(), n, dtype::u32, true);
    EXPECT_EQ(src.to_host(), want);
  }
  // The typed spelling, and an output shorter than the view.
  device_vector<std::uint32_t> out(ctx(), 10);
  sort(ctx(), view::counting<std::uint32_t>(100, 10, static_cast<std::uint32_t>(-7)), out);
  std::vector<std::uint32_t> want(10);
  for (std::uint32_t i = 0; i < 10; ++i) want[i] = 100u - 7u * (9u - i);
  EXPECT_EQ(out.to_host(), want);
  device_vector<std::uint32_t> small(ctx(), 9);
  try {
    sort(ctx(), view::counting<std::uint32_t>(0, 10), small);
    ADD_FAILURE() << "an output of 9 took a view of 10";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("sort: the output holds 9"), std::string::npos) << e.what();
  }
}

// histogram_even of a view (computed in the histogram's load) against the twin (np.histogram's rules), over the
// values' own range with 64 bins and over a narrower one (values outside are not counted); histogram_range over a
// view at one size.
double value_of(std::uint32_t bits, dtype t) {
  return t == dtype::f32 ? from_bits<float>(bits) : t == dtype::i32 ? double(std::int32_t(bits)) : double(bits);
}

void check_histogram(context& c, const char* backend) {
  for_each_view(c, {0, 1, 33, 4097, 65537, 131073}, [&](const view_case& vc, std::size_t n, const detail::view_desc& d,
                                                        const std::vector<std::uint32_t>& x) {
      double lo = 0, hi = 1;
      if (n) {
        lo = hi = value_of(x[0], vc.type);
        for (std::uint32_t b : x) lo = std::min(lo, value_of(b, vc.type)), hi = std::max(hi, value_of(b, vc.type));
      }
      for (int narrow = 0; narrow < 2; ++narrow) {
        const double a = narrow ? lo + (hi - lo) / 4 : lo, z = narrow ? hi - (hi - lo) / 3 : hi;
        SCOPED_TRACE(std::string(backend) + " " + vc.name + " n=" + std::to_string(n) + (narrow ? " narrow" : ""));
        std::vector<std::uint32_t> want(64);
        reference::histogram(x.data(), n, vc.type, reference::histogram_edges(64, a, z), want.data());
        device_vector<std::uint32_t> counts(c, 64);
        detail::histogram_bins b{64, a, z, nullptr, nullptr};
        detail::histogram_view_run(c, d, detail::out_ref(counts), b, {});
        EXPECT_EQ(counts.to_host(), want);
      }
  });
  // histogram_range over a transform view: levels 0, 10, 1000, 40000, 65535 of the low halves.
  const std::size_t n = 20011;
  const auto words = random_words(n, 77);
  device_vector<std::uint32_t> src(c, host_span<const std::uint32_t>(words));
  const std::vector<std::uint32_t> lv = {0, 10, 1000, 40000, 65535};
  device_vector<std::uint32_t> levels(c, host_span<const std::uint32_t>(lv)), counts(c, 4);
  histogram_range(c, view::transform(src, "a & 0xffffu"), counts, levels);
  std::vector<std::uint32_t> low(n), want(4);
  for (std::size_t i = 0; i < n; ++i) low[i] = words[i] & 0xffffu;
  reference::histogram(low.data(), n, dtype::u32, {0, 10, 1000, 40000, 65535}, want.data());
  EXPECT_EQ(counts.to_host(), want) << backend;
}

TEST(Views, HistogramMatchesTheTwin) {
  check_histogram(ctx(), "webgpu");
  check_histogram(native_ctx(), "native");
  // The typed spelling, past one storage binding (1 MiB bindings: five chunks of a counting view).
  context& small = small_binding_ctx();
  const std::size_t n = (1u << 20) + 77;
  device_vector<std::uint32_t> counts(small, 16);
  histogram_even(small, view::counting<std::uint32_t>(0, n, 3), counts, 16, 0.0, 3.0 * double(n - 1));
  std::vector<std::uint32_t> x(n), want(16);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::uint32_t>(3 * i);
  reference::histogram(x.data(), n, dtype::u32, reference::histogram_edges(16, 0.0, 3.0 * double(n - 1)), want.data());
  EXPECT_EQ(counts.to_host(), want);
  // A gather (its indices bound chunk by chunk) and a transform of a buffer (its base chunk by chunk) past one
  // binding; and a plain buffer in a view's form (kind buffer, no transform), which every view entry takes.
  const auto words = random_words(n, 78), base = random_words(1000, 79);
  std::vector<std::uint32_t> ix(n);
  for (std::size_t i = 0; i < n; ++i) ix[i] = words[i] % 1003;  // a few past the base: its last element
  device_vector<std::uint32_t> dw(small, host_span<const std::uint32_t>(words)), db(small, host_span<const std::uint32_t>(base)),
      di(small, host_span<const std::uint32_t>(ix));
  std::vector<std::uint32_t> g(n), t(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = base[std::min<std::size_t>(ix[i], 999)], t[i] = words[i] >> 20;
  histogram_even(small, view::gather(db, di), counts, 16, 0.0, 4294967295.0);
  reference::histogram(g.data(), n, dtype::u32, reference::histogram_edges(16, 0.0, 4294967295.0), want.data());
  EXPECT_EQ(counts.to_host(), want) << "gather";
  histogram_even(small, view::transform(dw, "a >> 20u"), counts, 16, 0.0, 4095.0);
  reference::histogram(t.data(), n, dtype::u32, reference::histogram_edges(16, 0.0, 4095.0), want.data());
  EXPECT_EQ(counts.to_host(), want) << "transform";
  for (context* c : {&ctx(), &native_ctx()}) {
    SCOPED_TRACE(c == &ctx() ? "webgpu" : "native");
    const std::size_t m = 3001;
    device_vector<std::uint32_t> xs(*c, host_span<const std::uint32_t>(words.data(), m)), out(*c, m), hc(*c, 8);
    detail::view_desc plain;
    plain.kind = detail::view_desc::source::buffer;
    plain.type = dtype::u32;
    plain.count = m;
    plain.base = detail::in_ref(xs).view;
    const input_view<std::uint32_t> pv(plain);
    std::vector<std::uint32_t> host(words.begin(), words.begin() + m), hw(8);
    histogram_even(*c, pv, hc, 8, 0.0, 4294967295.0);
    reference::histogram(host.data(), m, dtype::u32, reference::histogram_edges(8, 0.0, 4294967295.0), hw.data());
    EXPECT_EQ(hc.to_host(), hw);
    EXPECT_EQ(select_if(*c, pv, out, predicate::expr("(a & 1u) == 0u")),
              static_cast<std::size_t>(std::count_if(host.begin(), host.end(), [](std::uint32_t v) { return (v & 1u) == 0; })));
    sort(*c, pv, out);
    std::sort(host.begin(), host.end());
    EXPECT_EQ(out.to_host(), host);
    EXPECT_EQ(argmax(*c, pv).value, host.back());
  }
}

std::vector<std::uint32_t> prefix(const device_vector<std::uint32_t>& v, std::size_t m) {
  std::vector<std::uint32_t> h = v.to_host();
  h.resize(m);
  return h;
}

// The primitives that read a view through a temporary of its values: segmented reduce and scans, run-length
// encoding, reduce-by-key (keys from the view), sort_pairs (keys from the view), select_flagged; u32 views with
// runs (a transform of a buffer: a >> 28), a gather and a counting view, against the twins, on both backends.
TEST(Views, TemporaryBackedPrimitivesMatchTheTwin) {
  for (context* c : {&ctx(), &native_ctx()}) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(70001)}) {
      const auto words = random_words(n, 90), base = random_words(50, 91);
      std::vector<std::uint32_t> ix(n);
      for (std::size_t i = 0; i < n; ++i) ix[i] = (words[i] >> 5) % 50;
      device_vector<std::uint32_t> dw(*c, host_span<const std::uint32_t>(words)), db(*c, host_span<const std::uint32_t>(base)),
          di(*c, host_span<const std::uint32_t>(ix));
      struct kind { const char* name; input_view<std::uint32_t> v; std::vector<std::uint32_t> x; };
      std::vector<std::uint32_t> shifted(n), gathered(n), counted(n);
      for (std::size_t i = 0; i < n; ++i)
        shifted[i] = words[i] >> 28, gathered[i] = base[ix[i]], counted[i] = static_cast<std::uint32_t>(i / 7);
      const std::vector<kind> kinds = {{"transform", view::transform(dw, "a >> 28u"), shifted},
                                       {"gather", view::gather(db, di), gathered},
                                       {"counting / 7", view::transform(view::counting<std::uint32_t>(0, n), "a / 7u"), counted}};
      std::vector<std::uint32_t> offsets = {0};
      for (std::size_t at = 0; at < n;) offsets.push_back(static_cast<std::uint32_t>(at = std::min(n, at + 1 + words[at] % 300)));
      const std::size_t segs = offsets.size() - 1;
      device_vector<std::uint32_t> doff(*c, host_span<const std::uint32_t>(offsets));
      const monoid sum(op::sum(), dtype::u32);
      for (const kind& k : kinds) {
        SCOPED_TRACE(std::string(c == &ctx() ? "webgpu " : "native ") + k.name + " n=" + std::to_string(n));
        device_vector<std::uint32_t> out(*c, std::max<std::size_t>(n, segs)), out2(*c, n);
        std::vector<std::uint32_t> want(std::max<std::size_t>(n, segs)), want2(n);
        segmented_reduce(*c, k.v, doff, out.span().first(segs));
        reference::segmented_reduce(k.x.data(), offsets.data(), segs, want.data(), sum);
        EXPECT_EQ(prefix(out, segs), std::vector<std::uint32_t>(want.begin(), want.begin() + segs));
        segmented_exclusive_scan(*c, k.v, doff, out.span().first(n));
        reference::segmented_scan(k.x.data(), n, offsets.data(), segs, want.data(), sum, true);
        EXPECT_EQ(prefix(out, n), std::vector<std::uint32_t>(want.begin(), want.begin() + n));
        const std::size_t runs = run_length_encode(*c, k.v, out.span().first(n), out2.span());
        const std::size_t want_runs = reference::run_length_encode(k.x.data(), dtype::u32, n, want.data(), want2.data());
        ASSERT_EQ(runs, want_runs);
        EXPECT_EQ(prefix(out, runs), std::vector<std::uint32_t>(want.begin(), want.begin() + runs));
        EXPECT_EQ(prefix(out2, runs), std::vector<std::uint32_t>(want2.begin(), want2.begin() + runs));
        const std::size_t groups = reduce_by_key(*c, k.v, dw.span(), out.span().first(n), out2.span());
        ASSERT_EQ(groups, reference::reduce_by_key(k.x.data(), dtype::u32, words.data(), n, want.data(), want2.data(), sum));
        EXPECT_EQ(prefix(out2, groups), std::vector<std::uint32_t>(want2.begin(), want2.begin() + groups));
        sort_pairs(*c, k.v, dw.span(), out.span().first(n), out2.span());
        std::vector<std::uint32_t> keys = k.x, vals = words;
        reference::stable_sort(keys.data(), n, dtype::u32, false, vals.data());
        EXPECT_EQ(prefix(out, n), keys);
        EXPECT_EQ(prefix(out2, n), vals);
        const std::size_t kept = select_flagged(*c, k.v, di.span(), out.span().first(n));
        std::size_t want_kept = 0;
        for (std::size_t i = 0; i < n; ++i)
          if (ix[i]) want[want_kept++] = k.x[i];
        ASSERT_EQ(kept, want_kept);
        EXPECT_EQ(prefix(out, kept), std::vector<std::uint32_t>(want.begin(), want.begin() + kept));
      }
    }
  }
}

TEST(Views, ArgReduceMatchesTheTwin) {
  check_arg(ctx(), "webgpu");
  check_arg(native_ctx(), "native");
}

predicate keep_for(dtype t) {
  if (t == dtype::u32) return predicate::expr("(a & 1u) == 0u");
  if (t == dtype::i32) return predicate::expr("(a & 3) == 0");
  return predicate::expr("a < 7.25");
}

// select_if, partition and unique over views against the twin (kept count and the output's first elements; a
// partition's whole output).
void check_select(context& c, const char* backend) {
  std::vector<std::size_t> sizes;  // to 70,000: the chunked select is checked by ChunkedArrays; keep the sweep short
  for (std::size_t n : view_sizes())
    if (n <= 70000) sizes.push_back(n);
  for_each_view(c, sizes, [&](const view_case& vc, std::size_t n, const detail::view_desc& d,
                           const std::vector<std::uint32_t>& x) {
      const predicate p = keep_for(vc.type);
      const bound_predicate bp(p, vc.type);
      // which: 0 select_if, 1 partition, 2 unique, 3 partition with the rejected part reversed.
      for (int which = 0; which < 4; ++which) {
        const char* what = which == 0 ? "select_if" : which == 1 ? "partition" : which == 2 ? "unique" : "partition reversed";
        SCOPED_TRACE(std::string(backend) + " " + vc.name + " n=" + std::to_string(n) + " " + what);
        std::vector<std::uint32_t> want(n);
        const std::size_t want_kept = which == 0   ? reference::select_if(x.data(), n, bp, want.data())
                                      : which == 1 ? reference::partition(x.data(), n, bp, want.data())
                                      : which == 3 ? reference::partition_reversed(x.data(), n, bp, want.data())
                                                   : reference::unique(x.data(), n, vc.type, want.data());
        device_vector<std::uint32_t> out(c, n);
        run_options ro;
        if (which == 3) ro.rejected = rejected_order::reversed;
        const std::uint64_t kept = detail::select_view_run(
            c, d, detail::out_ref(out), which == 2 ? select_mode::unique : select_mode::predicate,
            which == 1 || which == 3, which == 2 ? nullptr : &p, ro);
        ASSERT_EQ(kept, want_kept);
        const std::vector<std::uint32_t> got = out.to_host();
        const std::size_t check = which == 1 || which == 3 ? n : want_kept;
        std::size_t bad = 0, first_bad = check;
        for (std::size_t i = 0; i < check; ++i)
          if (got[i] != want[i] && bad++ == 0) first_bad = i;
        EXPECT_EQ(bad, 0u) << "first mismatch at " << first_bad;
      }
  });
}

TEST(Views, SelectMatchesTheTwinWebGpu) { check_select(ctx(), "webgpu"); }
TEST(Views, SelectMatchesTheTwinNative) { check_select(native_ctx(), "native"); }

TEST(Views, ReduceMatchesTheTwinWebGpu) { check_reduce(ctx(), "webgpu"); }
TEST(Views, ReduceMatchesTheTwinNative) { check_reduce(native_ctx(), "native"); }
TEST(Views, ScanMatchesTheTwinWebGpu) { check_scan(ctx(), "webgpu"); }
TEST(Views, ScanMatchesTheTwinNative) { check_scan(native_ctx(), "native"); }

// Arrays past one storage binding (1 MiB here): counting views carry each chunk's first index, gathers bind
// the index chunk by chunk.
TEST(Views, ChunkedArrays) {
  context& c = small_binding_ctx();
  const std::size_t n = (std::size_t(1) << 18) * 3 + 17;
  {
    const auto v = view::counting<std::uint32_t>(5, n, 2);
    std::uint32_t want = 0;
    for (std::size_t i = 0; i < n; ++i) want += 5u + 2u * static_cast<std::uint32_t>(i);
    EXPECT_EQ(reduce(c, v), want);
    EXPECT_EQ(reduce(c, v, op::max()), 5u + 2u * static_cast<std::uint32_t>(n - 1));
    device_vector<std::uint32_t> out(c, n);
    inclusive_scan(c, v, out);
    const auto got = out.to_host();
    std::uint32_t run = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      run += 5u + 2u * static_cast<std::uint32_t>(i);
      bad += got[i] != run;
    }
    EXPECT_EQ(bad, 0u);
  }
  {
    const auto base = random_words(1000, 21);
    const auto ix = indices(n, base.size(), 22);
    device_vector<std::uint32_t> b(c, host_span<const std::uint32_t>(base)), x(c, host_span<const std::uint32_t>(ix));
    std::uint32_t want = 0;
    for (std::size_t i = 0; i < n; ++i) want ^= base[std::min<std::size_t>(ix[i], base.size() - 1)];
    EXPECT_EQ(reduce(c, view::gather(b, x), op::bit_xor()), want);
    // select over chunks: the gathered values that are even, in order.
    device_vector<std::uint32_t> out(c, n);
    std::vector<std::uint32_t> kept;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t y = base[std::min<std::size_t>(ix[i], base.size() - 1)];
      if ((y & 1u) == 0) kept.push_back(y);
    }
    ASSERT_EQ(select_if(c, view::gather(b, x), out, predicate::expr("(a & 1u) == 0u")), kept.size());
    auto got = out.to_host();
    got.resize(kept.size());
    EXPECT_EQ(got, kept);
  }
}

// The typed API: result types, init values, the Python-like spelling of a transform.
TEST(Views, TypedApi) {
  for (context* c : {&ctx(), &native_ctx()}) {
    EXPECT_EQ(reduce(*c, view::counting<std::uint32_t>(0, 1000)), 499500u);
    EXPECT_EQ(reduce(*c, view::counting<std::uint32_t>(0, 1000), 10u), 499510u);
    EXPECT_EQ(reduce(*c, view::constant<std::int32_t>(-2, 300), op::min()), -2);
    EXPECT_EQ(reduce(*c, view::counting<std::int32_t>(0, 0)), 0);  // empty: the identity
    EXPECT_EQ(reduce(*c, view::constant<float>(2.0f, 0), op::max()), -INFINITY);
    const std::vector<std::uint32_t> h = {0x10001u, 0x20002u, 0x30003u};
    device_vector<std::uint32_t> x(*c, host_span<const std::uint32_t>(h));
    EXPECT_EQ(reduce(*c, view::transform(x, "a & 0xffffu")), 6u);
    EXPECT_EQ(reduce(*c, view::transform<float>(x, "f32(a >> 16u)"), op::max()), 3.0f);
    device_vector<float> out(*c, 4);
    inclusive_scan(*c, view::counting<float>(1.0f, 4), out);
    EXPECT_EQ(out.to_host(), (std::vector<float>{1, 3, 6, 10}));
    exclusive_scan(*c, view::constant<float>(0.25f, 4), out);
    EXPECT_EQ(out.to_host(), (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
    const arg_result<std::int32_t> lo = argmin(*c, view::counting<std::int32_t>(10, 100, -3));
    EXPECT_EQ(lo.value, 10 - 3 * 99);
    EXPECT_EQ(lo.index, 99u);
    EXPECT_EQ(argmax(*c, view::constant<float>(1.0f, 50)).index, 0u);  // ties: the first
    device_vector<std::uint32_t> u(*c, 100);
    ASSERT_EQ(unique(*c, view::transform(view::counting<std::uint32_t>(0, 100), "a / 10u"), u), 10u);
    EXPECT_EQ(u.to_host()[9], 9u);
    ASSERT_EQ(partition(*c, view::counting<std::uint32_t>(0, 100), u, predicate::expr("a >= 90u")), 10u);
    EXPECT_EQ(u.to_host()[0], 90u);
    EXPECT_EQ(u.to_host()[10], 0u);
  }
}

// view::zip through the typed API: the dot product of two ranges and a zip past one storage binding (chunks bind
// both ranges piece by piece), on both backends; the expected values are computed here.
TEST(Views, ZipDotProduct) {
  for (context* c : {&ctx(), &native_ctx(), &small_binding_ctx()}) {
    const bool big = c == &small_binding_ctx();
    const std::size_t n = big ? (std::size_t(1) << 18) * 3 + 17 : 5000;
    SCOPED_TRACE(std::string(c->adapter().backend) + " n=" + std::to_string(n));
    const auto a = random_words(n, 31), b = random_words(n, 32);
    device_vector<std::uint32_t> x(*c, host_span<const std::uint32_t>(a)), y(*c, host_span<const std::uint32_t>(b));
    std::uint32_t dot = 0;
    for (std::size_t i = 0; i < n; ++i) dot += a[i] * b[i];
    EXPECT_EQ(reduce(*c, view::zip(x, y, "a * b")), dot);
    std::vector<std::int32_t> ia(n), ib(n);
    std::vector<float> fa(n), fb(n);
    std::int32_t idot = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ia[i] = static_cast<std::int32_t>(a[i] % 201u) - 100;
      ib[i] = static_cast<std::int32_t>(b[i] % 201u) - 100;
      idot += ia[i] * ib[i];
      fa[i] = static_cast<float>(ia[i]) * 0.5f;  // products and their sums exact in f32 (|sum| < 2^24 / 4)
      fb[i] = static_cast<float>(ib[i]) * 0.5f;
    }
    device_vector<std::int32_t> xi(*c, host_span<const std::int32_t>(ia)), yi(*c, host_span<const std::int32_t>(ib));
    EXPECT_EQ(reduce(*c, view::zip(xi, yi, "a * b")), idot);
    device_vector<float> xf(*c, host_span<const float>(fa)), yf(*c, host_span<const float>(fb));
    EXPECT_EQ(reduce(*c, view::zip(xf, yf, "a * b")), static_cast<float>(idot) * 0.25f);
    // The elementwise products that are positive, in order (select over chunks).
    device_vector<std::int32_t> out(*c, n);
    std::vector<std::int32_t> kept;
    for (std::size_t i = 0; i < n; ++i)
      if (ia[i] * ib[i] > 0) kept.push_back(ia[i] * ib[i]);
    ASSERT_EQ(select_if(*c, view::zip(xi, yi, "a * b"), out, predicate::expr("a > 0")), kept.size());
    auto got = out.to_host();
    got.resize(kept.size());
    EXPECT_EQ(got, kept);
    const arg_result<std::int32_t> hi = argmax(*c, view::zip(xi, yi, "a * b"));
    std::size_t at = 0;
    for (std::size_t i = 1; i < n; ++i)
      if (ia[i] * ib[i] > ia[at] * ib[at]) at = i;
    EXPECT_EQ(hi.index, at);
    EXPECT_EQ(hi.value, ia[at] * ib[at]);
  }
}

TEST(Views, BadInputGivesAClearError) {
  context& c = ctx();
  device_vector<std::uint32_t> x(c, 4);
  auto code_of = [](auto f) {
    try {
      f();
    } catch (const error& e) {
      return e.code();
    }
    return errc::timeout;  // nothing thrown: no code this test expects
  };
  // The transform's result type must be the one asked for.
  EXPECT_EQ(code_of([&] { view::transform<float>(x, "a + 1u"); }), errc::invalid_argument);
  // One transform per view.
  EXPECT_EQ(code_of([&] { view::transform(view::transform(x, "a + 1u"), "a * 2u"); }), errc::invalid_argument);
  // A gather over an empty base.
  device_vector<std::uint32_t> empty(c, 0);
  EXPECT_EQ(code_of([&] { reduce(c, view::gather(empty, x)); }), errc::invalid_argument);
  // Views of other contexts.
  device_vector<std::uint32_t> other(native_ctx(), 4);
  EXPECT_EQ(code_of([&] { reduce(c, view::gather(other, x)); }), errc::invalid_argument);
  // An empty view has no extreme value, a transform view's included (its temporary is never made).
  EXPECT_EQ(code_of([&] { argmin(c, view::counting<std::uint32_t>(0, 0)); }), errc::invalid_argument);
  device_vector<std::uint32_t> none(c, 0);
  EXPECT_EQ(code_of([&] { argmax(c, view::transform(none, "a + 1u")); }), errc::invalid_argument);
  // The seed and render algorithms do not take views.
  run_options seed;
  seed.algorithm = "seed";
  EXPECT_EQ(code_of([&] { reduce(c, view::counting<std::uint32_t>(0, 10), op::sum(), seed); }), errc::unsupported);
  // view::zip: ranges of other lengths (one line naming both), an expression that does not check or yields
  // another type, a zip that reads the select's output.
  device_vector<std::uint32_t> five(c, 5);
  try {
    view::zip(x, five, "a * b");
    ADD_FAILURE() << "view::zip took ranges of 4 and 5 elements";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("view::zip: the ranges differ in length (4 and 5"), std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_EQ(code_of([&] { view::zip(x, x, "a * c"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { view::zip(x, x, "a +"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { view::zip(x, x, "f32(a) * 2.0"); }), errc::invalid_argument);
  device_vector<std::uint32_t> sel(c, 4);
  EXPECT_EQ(code_of([&] { select_if(c, view::zip(x, sel, "a + b"), sel, predicate::expr("a > 0u")); }),
            errc::invalid_argument);
  // A scan's output must hold as many elements.
  device_vector<std::uint32_t> out(c, 3);
  EXPECT_EQ(code_of([&] { inclusive_scan(c, view::counting<std::uint32_t>(0, 4), out); }), errc::invalid_argument);
}

}  // namespace
}  // namespace wgprim::test
