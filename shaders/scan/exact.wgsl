// Exact f32 sum scans (accuracy::reproducible / exact): every output is the exact prefix sum rounded once to the
// nearest f32 (ties to even), with integer arithmetic only (shared/superaccumulator.wgsl), so the bits do not
// depend on the adapter, the tile size, the chunking or the order of anything. Three passes, tiles of
// WG_SIZE * ITEMS elements in index order (tile g of the whole array is tile_offset + workgroup of its chunk):
//   tile_sums:     each tile's exact sum, serialized (SA_WORDS words) into partials[g];
//   tile_prefixes: one workgroup replaces partials[g] by init + the sum of tiles 0 .. g-1, WG_SIZE tiles at a time;
//   tile_scan:     invocation l owns ITEMS consecutive elements; its local exact sum, an exclusive scan of those
//                  over the workgroup, plus the tile prefix, then it walks its elements: add, round, write.
// A NaN, or +inf and -inf together, gives NaN from there on; one kind of infinity gives it; an exact zero is +0.
//! import shared/superaccumulator.wgsl

struct exact_scan_params {
  n: u32,           // elements of this chunk
  tile_offset: u32, // the chunk's first tile, counted over the whole array
  tiles: u32,       // tiles of the whole array (tile_prefixes)
  exclusive: u32,
  has_init: u32,    // 1: init_bits, an f32; 2: an accumulator in partials[tiles] (serialized, normalized)
  init_bits: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: exact_scan_params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> partials: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

var<workgroup> carry_words: array<u32, 14>;

// ---- accumulators in private arrays (the serialized form: limbs 0..11, limb 12 signed, flags) ----

// Limbs 0..11 below 2^32 (non-negative) into [0, 2^24); the carry joins the signed top limb.
fn words_normalize_unsigned(w: ptr<function, array<u32, 14>>) {
  var carry = 0u;
  for (var j = 0u; j < SA_LIMBS - 1u; j += 1u) {
    let v = (*w)[j];
    let s = (v & 0xffffffu) + carry;
    (*w)[j] = s & 0xffffffu;
    carry = (v >> 24u) + (s >> 24u);
  }
  (*w)[SA_LIMBS - 1u] = (*w)[SA_LIMBS - 1u] + carry;
}

// Limbs 0..11 signed int32 sums into [0, 2^24).
fn words_normalize_signed(w: ptr<function, array<u32, 14>>) {
  var carry = 0;
  for (var j = 0u; j < SA_LIMBS - 1u; j += 1u) {
    let v = i32((*w)[j]) + carry;
    (*w)[j] = u32(v) & 0xffffffu;
    carry = v >> 24u;
  }
  (*w)[SA_LIMBS - 1u] = (*w)[SA_LIMBS - 1u] + u32(carry);
}

// Adds one f32 (its bits) to a normalized accumulator; normalize (signed) before the next value.
fn words_add(w: ptr<function, array<u32, 14>>, b: u32) {
  if (sa_is_special(b)) {
    (*w)[SA_LIMBS] = (*w)[SA_LIMBS] | sa_special(b);
    return;
  }
  let q = sa_split(b);
  (*w)[q.k] = (*w)[q.k] + q.lo;
  (*w)[q.k + 1u] = (*w)[q.k + 1u] + q.hi;
}

// Bits lo .. lo + count - 1 (count 1..24) of a magnitude in 13 limbs of 24 bits.
fn mag_bits(m: ptr<function, array<u32, 13>>, lo: u32, count: u32) -> u32 {
  let j = lo / 24u;
  let s = lo - j * 24u;
  var v = (*m)[j] >> s;
  if (s + count > 24u && j + 1u < SA_LIMBS) {
    v = v | ((*m)[j + 1u] << (24u - s));
  }
  return v & ((1u << count) - 1u);
}

fn mag_bit(m: ptr<function, array<u32, 13>>, i: u32) -> bool {
  let j = i / 24u;
  return (((*m)[j] >> (i - j * 24u)) & 1u) != 0u;
}

// Whether any bit below position i is set.
fn mag_any_below(m: ptr<function, array<u32, 13>>, i: u32) -> bool {
  let j = i / 24u;
  let s = i - j * 24u;
  var found = ((*m)[j] & ((1u << s) - 1u)) != 0u;
  for (var k = 0u; k < j; k += 1u) {
    found = found || (*m)[k] != 0u;
  }
  return found;
}

// The f32 bits of a normalized accumulator's value, rounded to nearest, ties to even (the twin of
// superaccumulator::round_to_float): overflow gives +-inf, tiny values subnormals, the flags NaN / +-inf.
fn words_round(w: ptr<function, array<u32, 14>>) -> u32 {
  let f = (*w)[SA_LIMBS];
  if ((f & 1u) != 0u || (f & 6u) == 6u) {
    return 0x7fc00000u;
  }
  if ((f & 2u) != 0u) {
    return 0x7f800000u;
  }
  if ((f & 4u) != 0u) {
    return 0xff800000u;
  }
  let neg = i32((*w)[SA_LIMBS - 1u]) < 0;
  var m: array<u32, 13>;
  if (neg) {  // the magnitude: negate limb by limb with borrows
    var c = 0;
    for (var j = 0u; j < SA_LIMBS - 1u; j += 1u) {
      let v = c - i32((*w)[j]);
      m[j] = u32(v) & 0xffffffu;
      c = v >> 24u;
    }
    m[SA_LIMBS - 1u] = u32(c - i32((*w)[SA_LIMBS - 1u]));
  } else {
    for (var j = 0u; j < SA_LIMBS; j += 1u) {
      m[j] = (*w)[j];
    }
  }
  var t = i32(SA_LIMBS) - 1;
  while (t >= 0 && m[u32(t)] == 0u) {
    t -= 1;
  }
  if (t < 0) {
    return 0u;  // an exact zero is +0
  }
  let sign = select(0u, 0x80000000u, neg);
  // the leading bit's position (value = magnitude * 2^-150); 2^128 is position 278
  let top = u32(t) * 24u + 31u - countLeadingZeros(m[u32(t)]);
  if (top >= 278u) {
    return sign | 0x7f800000u;
  }
  // 24 significant bits, or fewer down to position 1 (2^-149, the smallest subnormal step)
  let lsb = max(top, 24u) - 23u;
  var q = mag_bits(&m, lsb, top - lsb + 1u);
  if (mag_bit(&m, lsb - 1u) && ((q & 1u) != 0u || mag_any_below(&m, lsb - 1u))) {
    q += 1u;
  }
  // exponent field lsb for q in [2^23, 2^24), q itself for subnormals (lsb 1); a carry to 2^24 moves into the
  // exponent, and past the largest finite value gives the bits of inf
  return sign | (((lsb - 1u) << 23u) + q);
}

// ---- workgroup columns ----

// Inclusive scan of the (normalized) columns over the invocations, limb by limb (the flags by OR): Hillis-Steele
// in place through private copies. Limbs 0..11 stay below 256 * 2^24 = 2^32. Every invocation calls it.
fn columns_inclusive_scan(l: u32) {
  for (var d = 1u; d < WG_SIZE; d <<= 1u) {
    var t: array<u32, 14>;
    workgroupBarrier();
    if (l >= d) {
      for (var j = 0u; j < SA_WORDS; j += 1u) {
        t[j] = sa_cols[j * WG_SIZE + l - d];
      }
    }
    workgroupBarrier();
    if (l >= d) {
      for (var j = 0u; j < SA_LIMBS; j += 1u) {
        sa_cols[j * WG_SIZE + l] = sa_cols[j * WG_SIZE + l] + t[j];
      }
      sa_cols[SA_LIMBS * WG_SIZE + l] = sa_cols[SA_LIMBS * WG_SIZE + l] | t[SA_LIMBS];
    }
  }
  workgroupBarrier();
}

fn column_words(c: u32) -> array<u32, 14> {
  var w: array<u32, 14>;
  for (var j = 0u; j < SA_WORDS; j += 1u) {
    w[j] = sa_cols[j * WG_SIZE + c];
  }
  return w;
}

// ---- pass 1: the exact sum of each tile ----
@compute @workgroup_size(WG_SIZE)
fn tile_sums(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  sa_clear(l);
  let base = wid.x * (WG_SIZE * ITEMS);
  var flags = 0u;
  for (var k = 0u; k < ITEMS; k += 1u) {  // ITEMS <= SA_BATCH: one normalization at the end
    let i = base + k * WG_SIZE + l;
    if (i < params.n) {
      flags |= sa_add(l, src[i]);
    }
  }
  sa_normalize_signed(l);
  sa_cols[SA_LIMBS * WG_SIZE + l] = flags;
  sa_workgroup_total(l);
  if (l < SA_WORDS) {
    partials[(params.tile_offset + wid.x) * SA_WORDS + l] = sa_cols[l * WG_SIZE];
  }
}

// ---- pass 2: tile sums -> exclusive tile prefixes (in place), init in front; one workgroup ----
@compute @workgroup_size(WG_SIZE)
fn tile_prefixes(@builtin(local_invocation_index) l: u32) {
  if (l == 0u) {
    var c: array<u32, 14>;
    for (var j = 0u; j < SA_WORDS; j += 1u) {
      c[j] = 0u;
    }
    if (params.has_init == 1u) {
      words_add(&c, params.init_bits);
      words_normalize_signed(&c);
    } else if (params.has_init == 2u) {  // a whole accumulator (a carry between ranks), serialized after the tiles
      for (var j = 0u; j < SA_WORDS; j += 1u) {
        c[j] = partials[params.tiles * SA_WORDS + j];
      }
    }
    for (var j = 0u; j < SA_WORDS; j += 1u) {
      carry_words[j] = c[j];
    }
  }
  for (var start = 0u; start < params.tiles; start += WG_SIZE) {
    let g = start + l;
    for (var j = 0u; j < SA_WORDS; j += 1u) {
      var v = 0u;
      if (g < params.tiles) {
        v = partials[g * SA_WORDS + j];
      }
      sa_cols[j * WG_SIZE + l] = v;
    }
    columns_inclusive_scan(l);  // its barriers also publish carry_words
    var p: array<u32, 14>;
    for (var j = 0u; j < SA_WORDS; j += 1u) {
      p[j] = carry_words[j];
    }
    if (l > 0u) {  // carry (< 2^24) + at most 255 columns: limbs below 2^32
      let before = column_words(l - 1u);
      for (var j = 0u; j < SA_LIMBS; j += 1u) {
        p[j] = p[j] + before[j];
      }
      p[SA_LIMBS] = p[SA_LIMBS] | before[SA_LIMBS];
    }
    words_normalize_unsigned(&p);
    if (g < params.tiles) {
      for (var j = 0u; j < SA_WORDS; j += 1u) {
        partials[g * SA_WORDS + j] = p[j];
      }
    }
    workgroupBarrier();  // everyone has read carry_words and the columns
    if (l == WG_SIZE - 1u) {  // the new carry: the old one plus this block's total
      var t = column_words(l);
      words_normalize_unsigned(&t);
      for (var j = 0u; j < SA_LIMBS; j += 1u) {
        t[j] = t[j] + carry_words[j];
      }
      t[SA_LIMBS] = t[SA_LIMBS] | carry_words[SA_LIMBS];
      words_normalize_unsigned(&t);
      for (var j = 0u; j < SA_WORDS; j += 1u) {
        carry_words[j] = t[j];
      }
    }
    workgroupBarrier();
  }
}

// ---- pass 3: the scan of each tile ----
@compute @workgroup_size(WG_SIZE)
fn tile_scan(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let first = wid.x * (WG_SIZE * ITEMS) + l * ITEMS;
  sa_clear(l);
  var flags = 0u;
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = first + k;
    if (i < params.n) {
      flags |= sa_add(l, src[i]);
    }
  }
  sa_normalize_signed(l);
  sa_cols[SA_LIMBS * WG_SIZE + l] = flags;
  columns_inclusive_scan(l);
  var acc: array<u32, 14>;
  let g = params.tile_offset + wid.x;
  for (var j = 0u; j < SA_WORDS; j += 1u) {
    acc[j] = partials[g * SA_WORDS + j];
  }
  if (l > 0u) {
    var before = column_words(l - 1u);
    words_normalize_unsigned(&before);
    for (var j = 0u; j < SA_LIMBS; j += 1u) {
      acc[j] = acc[j] + before[j];
    }
    acc[SA_LIMBS] = acc[SA_LIMBS] | before[SA_LIMBS];
    words_normalize_unsigned(&acc);
  }
  let exclusive = params.exclusive != 0u;
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = first + k;
    if (i < params.n) {
      let b = src[i];
      if (exclusive) {
        dst[i] = words_round(&acc);
      }
      words_add(&acc, b);
      words_normalize_signed(&acc);
      if (!exclusive) {
        dst[i] = words_round(&acc);
      }
    }
  }
}
