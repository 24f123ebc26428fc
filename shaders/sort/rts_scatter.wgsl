// Reduce-then-scan radix sort, step 3 of a digit pass (slot params.slot of the plan, sort/buffers.wgsl; an
// inactive slot returns at once): each workgroup sorts the (digit, local index) pairs of its tile of TILE =
// WG_SIZE * ITEMS keys by digit in workgroup memory (eight stable 1-bit splits, each a workgroup scan of
// per-invocation counts: no subgroup operations needed, the lanes import is used when present), then writes the
// tile out in sorted order, each key's words and value gathered from the input through its local index: the key
// at sorted position s with digit d goes to offsets[d * tiles + tile] + s - (the tile's first position of d), so
// consecutive invocations write consecutive addresses within a digit's run.
// Stable: the splits keep the order of equal bits, and a tile's keys land after those of earlier tiles (the scan).
// The missing keys of the last tile are treated as digit 255 keys after every real key, so they sort to the end of
// the tile and are never written.
//! import sort/buffers.wgsl

@group(0) @binding(8) var<storage, read> offsets: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;
var<workgroup> wg_digit: array<u32, TILE>;
var<workgroup> wg_index: array<u32, TILE>;
var<workgroup> wg_count: array<atomic<u32>, RADIX>;
var<workgroup> wg_start: array<u32, RADIX>;
var<workgroup> wg_plan: u32;
var<workgroup> wg_n: u32;

@compute @workgroup_size(WG_SIZE)
fn scatter(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u, li: lane_info) {
  let tile = wid.y * params.grid_x + wid.x;
  if (tile >= params.tiles) {
    return;
  }
  if (l == 0u) {
    let p = plan_of(params.slot);
    wg_plan = select(0xffffffffu, p.dpass | (p.src << 8u) | (p.dst << 16u), p.on);
    wg_n = sort_n();
  }
  let packed = workgroupUniformLoad(&wg_plan);
  let n = workgroupUniformLoad(&wg_n);
  if (packed == 0xffffffffu || tile * TILE >= n) {
    return;  // an inactive slot, or a tile past a counted range's keys (their counts are 0)
  }
  let dpass = packed & 0xffu;
  let src = (packed >> 8u) & 0xffu;
  let dst = packed >> 16u;
  let base = tile * TILE;
  let valid = min(TILE, n - base);
  for (var d = l; d < RADIX; d += WG_SIZE) {
    atomicStore(&wg_count[d], 0u);
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = k * WG_SIZE + l;
    var d = 255u;  // a missing key
    if (i < valid) {
      d = digit_of(load_key(src, base + i), dpass);
      atomicAdd(&wg_count[d], 1u);
    }
    wg_digit[i] = d;
    wg_index[i] = i;
  }
  workgroupBarrier();
  // The tile's first sorted position of each digit (WG_SIZE == RADIX: one digit per invocation).
  let starts = workgroup_scan(l, atomicLoad(&wg_count[l]), li);
  wg_start[l] = starts.exclusive;

  var ds: array<u32, ITEMS>;
  var is: array<u32, ITEMS>;
  for (var bit = 0u; bit < 8u; bit += 1u) {
    var ones = 0u;
    for (var j = 0u; j < ITEMS; j += 1u) {
      ds[j] = wg_digit[l * ITEMS + j];
      is[j] = wg_index[l * ITEMS + j];
      ones += (ds[j] >> bit) & 1u;
    }
    // The scan starts with a barrier: every invocation has read its elements before any is overwritten.
    let parts = workgroup_scan(l, ones, li);
    let zeros = TILE - parts.aggregate;
    var ones_before = parts.exclusive;
    for (var j = 0u; j < ITEMS; j += 1u) {
      let p = l * ITEMS + j;
      var to = p - ones_before;
      if (((ds[j] >> bit) & 1u) != 0u) {
        to = zeros + ones_before;
        ones_before += 1u;
      }
      wg_digit[to] = ds[j];
      wg_index[to] = is[j];
    }
    workgroupBarrier();
  }

  for (var k = 0u; k < ITEMS; k += 1u) {
    let s = k * WG_SIZE + l;
    if (s < valid) {
      let d = wg_digit[s];
      let i = base + wg_index[s];
      let to = offsets[d * params.tiles + tile] + s - wg_start[d];
      for (var w = 0u; w < KEY_WORDS; w += 1u) {
        store_key_word(dst, KEY_WORDS * to + w, key_word(src, KEY_WORDS * i + w));
      }
      if (params.pairs != 0u) {
        store_val(dst, to, load_val(src, i));
      }
    }
  }
}
