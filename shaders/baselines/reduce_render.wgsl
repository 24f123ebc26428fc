// Render-pass reduction, after the regl document: no compute shaders. The first pass draws a full-target quad
// whose fragment for texel t folds elements [t * per_texel, (t + 1) * per_texel) of the storage buffer (the
// layout step); every later pass draws a half-size target (rounded up) whose fragment folds the 2x2 texels
// below it with textureLoad, ping-ponging between two textures until one texel remains. The target format
// carries T itself (r32float / r32sint / r32uint), so results are exact for integers and follow the fold order
// for f32. Needs a commutative combine (2x2 blocks do not keep the input order).

struct render_params {
  n: u32,
  per_texel: u32,
  width: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: render_params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var prev: texture_2d<T>;

@vertex
fn full_target(@builtin(vertex_index) v: u32) -> @builtin(position) vec4f {
  let corner = vec2f(f32(v & 1u), f32(v >> 1u));
  return vec4f(corner * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn first(@builtin(position) p: vec4f) -> @location(0) vec4<T> {
  let texel = u32(p.y) * params.width + u32(p.x);
  let start = texel * params.per_texel;
  var acc = identity();
  for (var k = 0u; k < params.per_texel; k += 1u) {
    if (start + k < params.n) {
      acc = combine(acc, src[start + k]);
    }
  }
  return vec4<T>(acc, identity(), identity(), identity());
}

@fragment
fn fold(@builtin(position) p: vec4f) -> @location(0) vec4<T> {
  let xy = vec2u(p.xy) * 2u;
  let dims = textureDimensions(prev);
  var acc = textureLoad(prev, xy, 0).x;
  if (xy.x + 1u < dims.x) {
    acc = combine(acc, textureLoad(prev, xy + vec2u(1u, 0u), 0).x);
  }
  if (xy.y + 1u < dims.y) {
    acc = combine(acc, textureLoad(prev, xy + vec2u(0u, 1u), 0).x);
    if (xy.x + 1u < dims.x) {
      acc = combine(acc, textureLoad(prev, xy + vec2u(1u, 1u), 0).x);
    }
  }
  return vec4<T>(acc, identity(), identity(), identity());
}
