// A tiled merge level (the comparator sort, src/primitives/sort/comparator.cpp; the GPU merge sorts' shape: CUB's
// DeviceMergeSort, moderngpu's merge): the input holds sorted runs of params.la keys (the last may be shorter),
// pairs of neighbouring runs merge into runs of 2 la in the output (with RUNS, runs of any length listed in a table:
// sort/merge_tile_pairs.wgsl). One workgroup per output tile of TILE = WG_SIZE * ITEMS keys (a tile lies in one pair):
//   1. its merge path at the tile's first output comes from sort/merge_tile_split.wgsl (splits[t]); at its end it is
//      splits[t + 1], or the pair's end for the pair's last tile;
//   2. the tile's inputs A[a0, a1) and B[b0, b1) (TILE keys together) are loaded coalesced into workgroup memory;
//   3. each invocation finds the path at its first of ITEMS outputs there (a binary search of log2(TILE) steps in
//      workgroup memory) and merges ITEMS keys sequentially (merge_keys.wgsl's key_le: ties from A, stable),
//      holding them and their tile positions;
//   4. the merged keys go back through workgroup memory and out coalesced; with values, then the tile positions
//      the same way, and each output's value is read from its key's input position.
// A run without a partner is a pair with lb = 0: its tiles are copied the same way. Keys compare as merge_keys.wgsl's
// key_le (the radix order of the transformed keys, or a comparator). Bindings 0-5: sort/merge_level_bindings.wgsl
// (keys_a and keys_b bind the same input); the splits at 6.
//! import sort/merge_level_bindings.wgsl
//! import sort/merge_tile_pairs.wgsl

@group(0) @binding(6) var<storage, read> splits: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;

// The tile's inputs: A[a0, a1) at [0, na), B[b0, b1) at [na, count); then its outputs, then their input positions.
var<workgroup> tile_keys: array<u32, TILE>;

fn tile_le(i: u32, j: u32) -> bool {
  return key_le(word_key(tile_keys[i]), word_key(tile_keys[j]));
}

// The invocation's ITEMS words v into tile_keys at its outputs d .. (those below count), between two barriers: every
// read of tile_keys before is done, and all the invocations' words are there after.
fn stage_outputs(d: u32, count: u32, v: array<u32, ITEMS>) {
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k += 1u) {
    if (d + k < count) {
      tile_keys[d + k] = v[k];
    }
  }
  workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE)
fn merge_tile(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let t = wid.y * params.grid_x + wid.x;
  if (t >= params.diagonals) {
    return;  // the whole workgroup: uniform
  }
  let g = tile_pair_of(t);
  let s = g.s;
  let la = g.la;
  let lb = g.lb;
  let d0 = g.d0;
  let first = s + d0;
  let d1 = min(d0 + TILE, la + lb);
  let a0 = splits[params.split_base + t];
  var a1 = la;
  if (d1 < la + lb) {
    a1 = splits[params.split_base + t + 1u];
  }
  let count = d1 - d0;
  let na = a1 - a0;
  let ga = s + a0;                  // the global index of tile position i < na: ga + i
  let gb = s + la + (d0 - a0) - na;  // of tile position i >= na: gb + i
  for (var i = l; i < count; i += WG_SIZE) {
    if (i < na) {
      tile_keys[i] = keys_a[ga + i];
    } else {
      tile_keys[i] = keys_a[gb + i];
    }
  }
  workgroupBarrier();

  // The path at this invocation's first output d: the largest a in (lo, hi] with A[a - 1] <= B[d - a], or lo.
  let nb = count - na;
  let d = min(l * ITEMS, count);
  var lo = select(0u, d - nb, d > nb);
  var hi = min(d, na);
  while (lo < hi) {
    let mid = hi - (hi - lo) / 2u;
    if (tile_le(mid - 1u, na + d - mid)) {
      lo = mid;
    } else {
      hi = mid - 1u;
    }
  }
  var ai = lo;
  var bi = na + d - lo;
  // The two keys at the front of A and B stay in registers: each step reads one key from workgroup memory, the
  // one after the key it takes (positions past a run's end read a key that is never taken: unused).
  var ka = tile_keys[min(ai, TILE - 1u)];
  var kb = tile_keys[min(bi, TILE - 1u)];
  var out_keys: array<u32, ITEMS>;
  var out_pos: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k += 1u) {
    var take_a = ai < na;
    if (take_a && bi < count) {
      take_a = key_le(word_key(ka), word_key(kb));
    }
    if (take_a) {
      out_pos[k] = ai;
      out_keys[k] = ka;
      ai += 1u;
      ka = tile_keys[min(ai, TILE - 1u)];
    } else {
      out_pos[k] = bi;
      out_keys[k] = kb;
      bi += 1u;
      kb = tile_keys[min(bi, TILE - 1u)];
    }
  }
  stage_outputs(d, count, out_keys);
  for (var i = l; i < count; i += WG_SIZE) {
    keys_out[first + i] = tile_keys[i];
  }
  if (params.pairs != 0u) {
    stage_outputs(d, count, out_pos);
    for (var i = l; i < count; i += WG_SIZE) {
      let p = tile_keys[i];
      vals_out[first + i] = vals_in[select(gb + p, ga + p, p < na)];
    }
  }
}
