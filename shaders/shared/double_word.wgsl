// The compensated f32 sum as a monoid over double-word values: T = vec2<f32>(hi, lo) with hi = fl(hi + lo),
// representing hi + lo exactly. combine is Joldes, Muller & Popescu's AccurateDWPlusDW (relative error below
// 3u^2, u = 2^-24), built from TwoSum and FastTwoSum, which need IEEE round-to-nearest additions that are not
// reassociated (WGSL requires correctly rounded f32 addition; SPIR-V without fast-math flags keeps the order).
// Shader compilers treat float operations as inexact and simplify TwoSum's error term to zero (Mesa's NIR turns
// a - (s - (s - a)) into 0; Vulkan allows it without NoContraction, which naga does not emit). So the partial
// results pass through opaque(): an xor with a zero the compiler cannot know (dw_zero, set by accum_init from a
// builtin at every entry point), which keeps each rounding where the algorithm puts it.
// Inf and NaN: when the sum of the leading parts is not finite, the result is that sum, so IEEE rules apply
// (inf + finite = inf, inf - inf = NaN, NaN propagates), the same as a plain f32 sum.
// Composition provides the element type E: f32 for data, or T itself for passes over partial results.

alias T = vec2<f32>;

const F32_MAX: f32 = 3.40282347e38;

fn identity() -> T {
  return vec2<f32>(0.0, 0.0);
}

var<private> dw_zero: u32;

fn accum_init(never_negative: u32) {
  dw_zero = never_negative >> 31u;  // 0, but not to the compiler
}

fn opaque(x: f32) -> f32 {
  return bitcast<f32>(bitcast<u32>(x) ^ dw_zero);
}

fn two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = opaque(a + b);
  let bb = opaque(s - a);
  return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}

fn fast_two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = opaque(a + b);
  return vec2<f32>(s, b - (s - a));
}

// Adds one f32 to a pair (DWPlusFP, relative error below 2u^2): the per-element step, cheaper than combine.
fn add_one(acc: T, x: f32) -> T {
  let s = two_sum(acc.x, x);
  if (!(abs(s.x) <= F32_MAX)) {
    return vec2<f32>(s.x, 0.0);
  }
  return fast_two_sum(s.x, s.y + acc.y);
}

fn combine(x: T, y: T) -> T {
  let s = two_sum(x.x, y.x);
  if (!(abs(s.x) <= F32_MAX)) {
    return vec2<f32>(s.x, 0.0);
  }
  let t = two_sum(x.y, y.y);
  let v = fast_two_sum(s.x, s.y + t.x);
  return fast_two_sum(v.x, t.y + v.y);
}
