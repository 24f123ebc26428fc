// Merges one output window of a pair of sorted runs (sort/merge_keys.wgsl) from the split points computed before
// (sort/merge_split.wgsl). The window's keys come from A[a0, a1) and B[b0, b1) (a0 = a(out_first), b0 =
// out_first - a0, ...), each at most `window` keys. The host cannot know a0 without reading it back, so it
// dispatches the window once for every A window (starting at a multiple of `window`, up to 2 * window keys) with
// the B windows consistent with it; only the dispatch whose windows start at floor(a0 / window) * window and
// floor(b0 / window) * window works (those hold [a0, a1) and [b0, b1)), the others return at once. Each invocation
// finds the path at its first output by a binary search within [a0, a1] and then merges ITEMS keys sequentially.
// Values (pairs) follow their keys.
//! import sort/merge_keys.wgsl

@group(0) @binding(0) var<uniform> params: merge_params;
@group(0) @binding(1) var<storage, read> keys_a: array<u32>;
@group(0) @binding(2) var<storage, read> keys_b: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(4) var<storage, read> vals_a: array<u32>;
@group(0) @binding(5) var<storage, read> vals_b: array<u32>;
@group(0) @binding(6) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(7) var<storage, read> splits: array<u32>;

// Output o (relative to the window) takes key i of the bound A window (from_a) or B window, and its value (pairs).
fn take(o: u32, i: u32, from_a: bool) {
  for (var w = 0u; w < KEY_WORDS; w += 1u) {
    let j = KEY_WORDS * i + w;
    if (from_a) {
      keys_out[KEY_WORDS * o + w] = keys_a[j];
    } else {
      keys_out[KEY_WORDS * o + w] = keys_b[j];
    }
  }
  if (params.pairs != 0u) {
    if (from_a) {
      vals_out[o] = vals_a[i];
    } else {
      vals_out[o] = vals_b[i];
    }
  }
}

@compute @workgroup_size(WG_SIZE)
fn merge(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let d0 = params.out_first;
  let d1 = d0 + params.out_count;
  let a0 = splits[params.split_base + params.split_index];
  let a1 = splits[params.split_base + params.split_index + 1u];
  let b0 = d0 - a0;
  let b1 = d1 - a1;
  // Only the dispatch whose windows hold [a0, a1) and [b0, b1) merges (see above); la, lb >= 1.
  let wa = min(a0 / params.window, (params.la - 1u) / params.window) * params.window;
  let wb = min(b0 / params.window, (params.lb - 1u) / params.window) * params.window;
  if (wa != params.a_first || wb != params.b_first) {
    return;
  }
  let g = (wid.y * params.grid_x + wid.x) * WG_SIZE + l;
  let q = g * ITEMS;  // first output of this invocation, relative to the window
  if (q >= params.out_count) {
    return;
  }
  let d = d0 + q;
  let lo = max(a0, select(0u, d - b1, d > b1));
  let hi = min(a1, d - b0);
  var ai = search_path(lo, hi, d);
  var bi = d - ai;
  let stop = min(q + ITEMS, params.out_count);
  for (var o = q; o < stop; o += 1u) {
    var take_a = ai < a1;
    if (take_a && bi < b1) {
      take_a = key_le(key_a(ai - params.a_first), key_b(bi - params.b_first));
    }
    if (take_a) {
      take(o, ai - params.a_first, true);
      ai += 1u;
    } else {
      take(o, bi - params.b_first, false);
      bi += 1u;
    }
  }
}
