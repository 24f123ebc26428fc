// The (value, index) pair monoid of arg-min / arg-max, NumPy's rules: combine keeps the better value; equal values
// (and -0.0 == +0.0) keep the smaller index; for f32 a NaN is better than every number (argmin and argmax alike)
// and NaNs are equal to each other, so the first NaN wins. That is a max over a total preorder with the index as
// tie-break: associative and commutative, as the subgroup butterfly and any grid need.
// T = vec3<u32>(value bits, index low, index high); the caller defines E (f32, i32 or u32) and IS_MAX.
// The identity is (the worst value, index 2^64 - 1): every real element beats it or ties with a smaller index.

alias T = vec3<u32>;
alias EV = vec4<E>;

const NO_INDEX = 0xffffffffu;

fn is_nan_bits(b: u32) -> bool {
  // On the bits: shader compilers may assume x != x is false.
  return (b & 0x7fffffffu) > 0x7f800000u;
}

// Strictly better: x beats y. For f32 the comparison of two non-NaN values is the float one, so -0.0 == +0.0.
fn better(x: E, y: E) -> bool {
  var ordered: bool;
  if (IS_MAX) {
    ordered = x > y;
  } else {
    ordered = x < y;
  }
  if (IS_F32) {
    let xn = is_nan_bits(bitcast<u32>(x));
    let yn = is_nan_bits(bitcast<u32>(y));
    return (xn && !yn) || (!xn && !yn && ordered);
  }
  return ordered;
}

fn worst_bits() -> u32 {
  if (IS_F32) {
    return select(0x7f800000u, 0xff800000u, IS_MAX);  // +inf for argmin, -inf for argmax
  }
  if (IS_I32) {
    return select(0x7fffffffu, 0x80000000u, IS_MAX);
  }
  return select(0xffffffffu, 0u, IS_MAX);
}

fn identity() -> T {
  return T(worst_bits(), NO_INDEX, NO_INDEX);
}

fn combine(a: T, b: T) -> T {
  let va = bitcast<E>(a.x);
  let vb = bitcast<E>(b.x);
  if (better(va, vb)) {
    return a;
  }
  if (better(vb, va)) {
    return b;
  }
  if (b.z < a.z || (b.z == a.z && b.y < a.y)) {
    return b;
  }
  return a;
}
