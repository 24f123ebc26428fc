// libFuzzer harness: the arrays beside the input that histogram, reduce --segments, reduce --keys, rle and
// select --flags read (.npy through io::parse_npy, as fuzz_npy), the checks those commands and the library make
// on them (offsets non-decreasing and within n, levels ordered and not NaN, lengths and types matching, even bins
// NumPy accepts), and the CPU twins run on whatever passes: the checks must leave the twins nothing they can
// overrun (ASan), and the twins' results must be consistent (counts within n, runs covering n).
// Layout: byte 0 picks the case, byte 1 the operator, bytes 2-3 the length L of the first .npy (little-endian),
// then L bytes of it and the second .npy (for even bins: 2 bytes of bins and two raw doubles lo, hi).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/host_checks.hpp"
#include "wgprim/reference.hpp"
#include "wgprim/error.hpp"
#include "wgprim/io.hpp"
#include "wgprim/op.hpp"

namespace {

using namespace wgprim;

// The CLI's rule for offsets files (tools/cli/cmd_segmented.cpp): integers, none negative, used as u32.
bool offsets_type_ok(const io::array& a) {
  if (a.type == dtype::f32) return false;
  if (a.type == dtype::i32)
    for (auto b : a.bits)
      if (static_cast<std::int32_t>(b) < 0) return false;
  return true;
}

monoid pick_monoid(std::uint8_t k, dtype t) {
  static const char* const names[] = {"sum", "min", "max", "xor"};
  const char* name = names[k % 4];
  if (t == dtype::f32 && k % 4 == 3) name = "sum";
  return monoid(op::parse(name), t);
}

std::size_t total(const std::vector<std::uint32_t>& c) {
  std::size_t s = 0;
  for (auto v : c) s += v;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const int kind = data[0] % 5;
  const std::size_t len_a = std::min<std::size_t>(data[2] | (data[3] << 8), size - 4);
  const std::string blob_a(reinterpret_cast<const char*>(data) + 4, len_a);
  const std::string blob_b(reinterpret_cast<const char*>(data) + 4 + len_a, size - 4 - len_a);
  try {
    const io::array a = io::parse_npy(blob_a);
    const std::size_t n = a.bits.size();
    const monoid m = pick_monoid(data[1], a.type);
    if (kind == 2) {  // histogram with even bins: bins, lo, hi as the CLI passes them
      if (blob_b.size() < 18) return 0;
      const std::size_t bins = 1 + ((static_cast<std::uint8_t>(blob_b[0]) | (static_cast<std::uint8_t>(blob_b[1]) << 8)) & 4095);
      double lo, hi;
      std::memcpy(&lo, blob_b.data() + 2, 8);
      std::memcpy(&hi, blob_b.data() + 10, 8);
      detail::kernel_edges k = detail::even_edges(a.type, bins, lo, hi);
      if (k.reach > bins || k.bits.size() != static_cast<std::size_t>(k.reach) + 1) __builtin_trap();
      std::vector<std::uint32_t> counts(bins);
      reference::histogram(a.bits.data(), n, a.type, reference::histogram_edges(bins, lo, hi), counts.data());
      if (total(counts) > n) __builtin_trap();
      return 0;
    }
    const io::array b = io::parse_npy(blob_b);
    switch (kind) {
      case 0: {  // reduce/scan --segments: offsets
        if (!offsets_type_ok(b) || b.bits.empty()) return 0;
        detail::check_offsets_host(b.bits.data(), b.bits.size(), n, "fuzz");
        const std::size_t segs = b.bits.size() - 1;
        std::vector<std::uint32_t> out(segs), scan(n);
        reference::segmented_reduce(a.bits.data(), b.bits.data(), segs, out.data(), m);
        reference::segmented_scan(a.bits.data(), n, b.bits.data(), segs, scan.data(), m, data[1] & 4);
        break;
      }
      case 1: {  // histogram --levels
        if (b.type != a.type || b.bits.size() < 2) return 0;
        detail::check_levels(b.type, b.bits.data(), b.bits.size());
        std::vector<double> edges;
        for (auto v : b.bits) edges.push_back(detail::value_of(b.type, v));
        std::vector<std::uint32_t> counts(edges.size() - 1);
        reference::histogram(a.bits.data(), n, a.type, edges, counts.data());
        if (total(counts) > n) __builtin_trap();
        break;
      }
      case 3: {  // select --flags
        if (b.type == dtype::f32 || b.bits.size() != n) return 0;
        std::vector<std::uint32_t> out(n);
        if (reference::select_flagged(a.bits.data(), b.bits.data(), n, out.data()) > n) __builtin_trap();
        break;
      }
      case 4: {  // reduce --keys (b: the keys), rle over the keys
        if (b.bits.size() != n) return 0;
        std::vector<std::uint32_t> uk(n), sums(n), vals(n), counts(n);
        const std::size_t runs = reference::reduce_by_key(b.bits.data(), b.type, a.bits.data(), n, uk.data(), sums.data(), m);
        const std::size_t runs2 = reference::run_length_encode(b.bits.data(), b.type, n, vals.data(), counts.data());
        counts.resize(runs2);
        if (runs != runs2 || runs > n || total(counts) != n) __builtin_trap();
        break;
      }
    }
  } catch (const wgprim::error&) {
  }
  return 0;
}
