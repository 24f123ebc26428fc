// The integer superaccumulator of exact f32 sums (host twin: include/wgprim/exact.hpp, src/core/exact.cpp).
// A sum of f32 values is an integer multiple of 2^-150; it is held as SA_LIMBS limbs of radix 2^24 (limb j weighs
// 2^(24 j - 150)): 312 bits, the whole f32 range (bits 1..277 of one value) plus room for 2^41 values.
// Only integer additions, so any order of additions gives the same bits.
//
// Each invocation owns one column of sa_cols (limb j at j * WG_SIZE + l: consecutive invocations hit consecutive
// words, no bank conflicts; a dynamically indexed private array would live in slow local memory instead).
// A value touches two limbs: the low 24 bits of its shifted significand go to limb k, the rest (signed, < 2^23)
// to limb k + 1. A limb absorbs 126 such contributions without carrying (|limb| < 2^31): the caller normalizes
// its column at least every SA_BATCH values. Row SA_LIMBS holds the NaN/Inf flags (1 NaN, 2 +inf, 4 -inf).
// The serialized form (partials, result) is SA_WORDS words: limbs 0..11 in [0, 2^24), limb 12 a signed int32,
// then the flags.

const SA_LIMBS: u32 = 13u;
const SA_WORDS: u32 = 14u;
const SA_BATCH: u32 = 120u;

var<workgroup> sa_cols: array<u32, 14u * WG_SIZE>;

fn sa_clear(l: u32) {
  for (var j = 0u; j < SA_WORDS; j += 1u) {
    sa_cols[j * WG_SIZE + l] = 0u;
  }
}

// One finite value split for the limbs: v * 2^sh = hi * 2^24 + lo lands in limbs k (lo) and k + 1 (hi).
struct sa_parts {
  k: u32,
  lo: u32,  // [0, 2^24)
  hi: u32,  // a signed int32 in [-2^23, 2^23]
}

fn sa_split(b: u32) -> sa_parts {
  let e = (b >> 23u) & 0xffu;
  // value = m * 2^(max(e, 1) - 150): the significand's lowest bit sits at position p = max(e, 1).
  let m = (b & 0x7fffffu) | (min(e, 1u) << 23u);
  let p = max(e, 1u);
  let k = (p * 2731u) >> 16u;            // p / 24 for p < 256 (checked for every p), without a division
  let sh = p - k * 24u;
  let s = i32(b) >> 31u;                 // 0 or -1
  let v = (i32(m) ^ s) - s;              // the signed significand, |v| < 2^24
  let lo = (u32(v) << sh) & 0xffffffu;
  let hi = v >> (24u - sh);              // floor(v * 2^sh / 2^24)
  return sa_parts(k, lo, u32(hi));
}

// The NaN/Inf flag of a non-finite value's bits (call only when the exponent is all ones).
fn sa_special(b: u32) -> u32 {
  return select(select(2u, 4u, (b >> 31u) != 0u), 1u, (b & 0x7fffffu) != 0u);
}

fn sa_is_special(b: u32) -> bool {
  return (b & 0x7f800000u) == 0x7f800000u;
}

fn sa_add_parts(l: u32, q: sa_parts) {
  let i = q.k * WG_SIZE + l;
  sa_cols[i] = sa_cols[i] + q.lo;
  sa_cols[i + WG_SIZE] = sa_cols[i + WG_SIZE] + q.hi;
}

// Adds one f32 (its bits) to invocation l's column. Returns the NaN/Inf flag of a non-finite value (else 0),
// which the caller ORs into its flags instead of adding anything.
fn sa_add(l: u32, b: u32) -> u32 {
  if (sa_is_special(b)) {
    return sa_special(b);
  }
  sa_add_parts(l, sa_split(b));
  return 0u;
}

// A register window (for CPU adapters, where a per-invocation index into workgroup memory becomes a scalar
// gather and scatter per SIMD lane): four limbs base .. base + 3 of the column held in private variables, for
// values whose k is base, base + 1 or base + 2; other values go to the column. The window joins the column at
// every normalization (sa_window_flush), which also moves the base to where the last value was.
struct sa_window {
  base: u32,
  last_k: u32,
  w0: u32,
  w1: u32,
  w2: u32,
  w3: u32,
}

fn sa_window_new() -> sa_window {
  return sa_window(4u, 5u, 0u, 0u, 0u, 0u);  // k 4..6: values of about 2^-54 .. 2^41
}

fn sa_window_add(l: u32, w: ptr<function, sa_window>, b: u32) -> u32 {
  if (sa_is_special(b)) {
    return sa_special(b);
  }
  let q = sa_split(b);
  let d = q.k - (*w).base;  // wraps to a large value below the window
  if (d > 2u) {
    sa_add_parts(l, q);
    return 0u;
  }
  (*w).last_k = q.k;
  (*w).w0 += select(0u, q.lo, d == 0u);
  (*w).w1 += select(select(0u, q.lo, d == 1u), q.hi, d == 0u);
  (*w).w2 += select(select(0u, q.lo, d == 2u), q.hi, d == 1u);
  (*w).w3 += select(0u, q.hi, d == 2u);
  return 0u;
}

fn sa_window_flush(l: u32, w: ptr<function, sa_window>) {
  let i = (*w).base * WG_SIZE + l;
  sa_cols[i] = sa_cols[i] + (*w).w0;
  sa_cols[i + WG_SIZE] = sa_cols[i + WG_SIZE] + (*w).w1;
  sa_cols[i + 2u * WG_SIZE] = sa_cols[i + 2u * WG_SIZE] + (*w).w2;
  sa_cols[i + 3u * WG_SIZE] = sa_cols[i + 3u * WG_SIZE] + (*w).w3;
  // base + 3 <= SA_LIMBS - 1, and the last value's k in the middle where possible
  (*w).base = clamp((*w).last_k, 1u, SA_LIMBS - 3u) - 1u;
  (*w).w0 = 0u;
  (*w).w1 = 0u;
  (*w).w2 = 0u;
  (*w).w3 = 0u;
}

// Carries of a column whose limbs are signed sums (after sa_add): limbs 0..11 into [0, 2^24).
fn sa_normalize_signed(l: u32) {
  var carry = 0;
  for (var j = 0u; j < SA_LIMBS - 1u; j += 1u) {
    let v = i32(sa_cols[j * WG_SIZE + l]) + carry;
    sa_cols[j * WG_SIZE + l] = u32(v) & 0xffffffu;
    carry = v >> 24u;
  }
  let top = (SA_LIMBS - 1u) * WG_SIZE + l;
  sa_cols[top] = sa_cols[top] + u32(carry);
}

// Carries of a column whose limbs 0..11 are sums of fewer than 256 normalized limbs (non-negative, < 2^32).
fn sa_normalize_unsigned(l: u32) {
  var carry = 0u;
  for (var j = 0u; j < SA_LIMBS - 1u; j += 1u) {
    let v = sa_cols[j * WG_SIZE + l];
    let w = (v & 0xffffffu) + carry;   // < 2^25: no wrap
    sa_cols[j * WG_SIZE + l] = w & 0xffffffu;
    carry = (v >> 24u) + (w >> 24u);
  }
  let top = (SA_LIMBS - 1u) * WG_SIZE + l;
  sa_cols[top] = sa_cols[top] + carry;
}

// Adds a serialized accumulator (words[0..SA_WORDS)) to invocation l's column.
fn sa_add_words(l: u32, limbs: array<u32, 14>) {
  for (var j = 0u; j < SA_LIMBS; j += 1u) {
    sa_cols[j * WG_SIZE + l] = sa_cols[j * WG_SIZE + l] + limbs[j];
  }
  let f = SA_LIMBS * WG_SIZE + l;
  sa_cols[f] = sa_cols[f] | limbs[SA_LIMBS];
}

// Folds every column into column 0 and normalizes it. Each column must be normalized (limbs 0..11 < 2^24); every
// invocation of the workgroup calls it (barriers inside). Afterwards sa_cols[j * WG_SIZE] is word j of the total.
fn sa_workgroup_total(l: u32) {
  workgroupBarrier();
  for (var stride = WG_SIZE / 2u; stride > 0u; stride >>= 1u) {
    if (l < stride) {
      for (var j = 0u; j < SA_LIMBS; j += 1u) {
        sa_cols[j * WG_SIZE + l] = sa_cols[j * WG_SIZE + l] + sa_cols[j * WG_SIZE + l + stride];
      }
      let f = SA_LIMBS * WG_SIZE + l;
      sa_cols[f] = sa_cols[f] | sa_cols[f + stride];
    }
    workgroupBarrier();
  }
  // WG_SIZE <= 256 columns of limbs < 2^24 sum to less than 2^32.
  if (l == 0u) {
    sa_normalize_unsigned(0u);
  }
  workgroupBarrier();
}
