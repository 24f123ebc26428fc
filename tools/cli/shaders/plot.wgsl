// The pictures, drawn from GPU buffers with no read-back before drawing (the seeds' live canvases).
// bars_vs: instance i is partial i of the two-pass reduction, a bar whose height is its place between the
//   smallest and largest partial (so that the workgroups' balance shows); the vertex shader reads all partials.
// scan_vs: instances 0..CURVE-1 sample the scanned array as a filled curve (normalised by its last value);
//   the next BLOCKS instances are the input's per-block averages (every STRIDE-th value of the block), as bars.
// Values of any element type are drawn as f32. Plot area in clip space: x in [-0.9, 0.9], y in [y0, y1].

struct plot_params {
  count: u32,        // partials (bars_vs) or n (scan_vs)
  curve: u32,        // scan: samples of the running total
  blocks: u32,       // scan: input blocks
  stride: u32,       // scan: sample every stride-th input value inside a block
  y0: f32,
  y1: f32,
  avg_scale: f32,    // scan: 1 / (largest input value)
  pad: f32,
}

@group(0) @binding(0) var<uniform> params: plot_params;
@group(0) @binding(1) var<storage, read> values: array<T>;
@group(0) @binding(2) var<storage, read> original: array<T>;

struct vs_out {
  @builtin(position) pos: vec4f,
  @location(0) color: vec3f,
}

fn bar(i: u32, count: u32, v: u32, height: f32, y0: f32, y1: f32, color: vec3f) -> vs_out {
  let q = vec2f(f32(v & 1u), f32(v >> 1u));
  let w = 1.8 / f32(count);
  let x = -0.9 + (f32(i) + 0.12 + q.x * 0.76) * w;
  let y = y0 + q.y * clamp(height, 0.0, 1.0) * (y1 - y0);
  return vs_out(vec4f(x, y, 0.0, 1.0), color);
}

@vertex
fn bars_vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> vs_out {
  var lo = f32(values[0]);
  var hi = lo;
  for (var k = 1u; k < params.count; k += 1u) {
    lo = min(lo, f32(values[k]));
    hi = max(hi, f32(values[k]));
  }
  var h = 1.0;
  if (hi > lo) {
    h = 0.08 + 0.92 * (f32(values[i]) - lo) / (hi - lo);
  }
  return bar(i, params.count, v, h, params.y0, params.y1, vec3f(0.08, 0.40, 0.75));
}

@vertex
fn scan_vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> vs_out {
  let n = params.count;
  if (i < params.curve) {
    let at = min(n - 1u, (i + 1u) * n / params.curve - 1u);
    let last = f32(values[n - 1u]);
    var h = 0.0;
    if (last != 0.0) {
      h = f32(values[at]) / last;
    }
    return bar(i, params.curve, v, h, params.y0, params.y1, vec3f(0.08, 0.40, 0.75));
  }
  let b = i - params.curve;
  let per_block = max(1u, n / params.blocks);
  var sum = 0.0;
  var count = 0.0;
  for (var k = 0u; k < per_block; k += params.stride) {
    let idx = b * per_block + k;
    if (idx < n) {
      sum += f32(original[idx]);
      count += 1.0;
    }
  }
  var h = 0.0;
  if (count > 0.0) {
    h = sum / count * params.avg_scale;
  }
  return bar(b, params.blocks, v, h, -0.88, -0.52, vec3f(0.85, 0.55, 0.15));
}

@fragment
fn fill(in: vs_out) -> @location(0) vec4f {
  return vec4f(in.color, 1.0);
}
