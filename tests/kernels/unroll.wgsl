// Test kernel of the unroll directive (src/core/wgsl_compose.cpp): each invocation fills a private array in an unrolled
// loop, then folds it in a second one; out[i] = sum over k < COUNT of (in[i] * (k + 1) ^ k), as the host computes.

struct unroll_params {
  n: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: unroll_params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn unrolled(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= params.n) {
    return;
  }
  var vals: array<u32, COUNT>;
  let x = src[gid.x];
  //! unroll
  for (var k = 0u; k < COUNT; k += 1u) {  // a comment after the loop's brace
    vals[k] = (x * (k + 1u)) ^ k;  // a comment with a brace }
  }
  var sum = 0u;
	//! unroll
  for (var k = 0u; k < COUNT; k += 1u) {
    let no_break = vals[k];  // a name holding "break" is not a break
    if (no_break != 0u) {
      sum += no_break;
    }
  }
  out[gid.x] = sum;
}
