// Reduce-then-scan radix sort, step 3 of a digit pass: each workgroup sorts its tile of TILE = WG_SIZE * ITEMS
// keys by the pass's digit in workgroup memory (eight stable 1-bit splits, each a workgroup scan of per-invocation
// counts: no subgroup operations needed, the lanes import is used when present), then writes the tile out in
// sorted order: the key at sorted position s with digit d goes to offsets[d * tiles + tile] + s - (the tile's
// first position of d), so consecutive invocations write consecutive addresses within a digit's run.
// Stable: the splits keep the order of equal bits, and a tile's keys land after those of earlier tiles (the scan).
// The missing keys of the last tile are treated as digit 255 keys after every real key, so they sort to the end of
// the tile and are never written. Values (params.pairs) are gathered through each key's local index.
//! import sort/keys.wgsl

struct rts_params {
  n: u32,
  tiles: u32,
  shift: u32,
  grid_x: u32,
  key_kind: u32,
  descending: u32,
  pairs: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: rts_params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> vals_in: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;
var<workgroup> wg_keys: array<u32, TILE>;
var<workgroup> wg_index: array<u32, TILE>;
var<workgroup> wg_count: array<atomic<u32>, RADIX>;
var<workgroup> wg_start: array<u32, RADIX>;

fn split_bit(key: u32, index: u32, valid: u32, bit: u32) -> u32 {
  if (index >= valid) {
    return 1u;  // a missing key: digit 255
  }
  return (digit_of(key, params.shift) >> bit) & 1u;
}

@compute @workgroup_size(WG_SIZE)
fn scatter(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u, li: lane_info) {
  let tile = wid.y * params.grid_x + wid.x;
  if (tile >= params.tiles) {
    return;
  }
  let base = tile * TILE;
  let valid = min(TILE, params.n - base);
  for (var d = l; d < RADIX; d += WG_SIZE) {
    atomicStore(&wg_count[d], 0u);
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = k * WG_SIZE + l;
    var key = 0u;
    if (i < valid) {
      key = keys_in[base + i];
      atomicAdd(&wg_count[digit_of(key, params.shift)], 1u);
    }
    wg_keys[i] = key;
    wg_index[i] = i;
  }
  workgroupBarrier();
  // The tile's first sorted position of each digit (WG_SIZE == RADIX: one digit per invocation).
  let starts = workgroup_scan(l, atomicLoad(&wg_count[l]), li);
  wg_start[l] = starts.exclusive;

  var ks: array<u32, ITEMS>;
  var is: array<u32, ITEMS>;
  for (var bit = 0u; bit < 8u; bit += 1u) {
    var ones = 0u;
    for (var j = 0u; j < ITEMS; j += 1u) {
      ks[j] = wg_keys[l * ITEMS + j];
      is[j] = wg_index[l * ITEMS + j];
      ones += split_bit(ks[j], is[j], valid, bit);
    }
    // The scan starts with a barrier: every invocation has read its elements before any is overwritten.
    let parts = workgroup_scan(l, ones, li);
    let zeros = TILE - parts.aggregate;
    var ones_before = parts.exclusive;
    for (var j = 0u; j < ITEMS; j += 1u) {
      let p = l * ITEMS + j;
      var dst = p - ones_before;
      if (split_bit(ks[j], is[j], valid, bit) != 0u) {
        dst = zeros + ones_before;
        ones_before += 1u;
      }
      wg_keys[dst] = ks[j];
      wg_index[dst] = is[j];
    }
    workgroupBarrier();
  }

  for (var k = 0u; k < ITEMS; k += 1u) {
    let s = k * WG_SIZE + l;
    if (s < valid) {
      let key = wg_keys[s];
      let d = digit_of(key, params.shift);
      let dst = offsets[d * params.tiles + tile] + s - wg_start[d];
      keys_out[dst] = key;
      if (params.pairs != 0u) {
        vals_out[dst] = vals_in[base + wg_index[s]];
      }
    }
  }
}
