// Single-pass scan with decoupled look-back and fallback (Smith, Levien & Owens, SPAA 2025).
// Each workgroup claims the next tile from an atomic counter (so a tile only ever waits on tiles whose
// workgroups have started), scans its TILE elements (ITEMS vec4 per invocation, folded serially, then a
// workgroup scan of the per-invocation totals), publishes its aggregate, and walks back over its predecessors'
// published states. A predecessor that stays NOT_READY for spin_limit polls is not waited for: the workgroup
// reduces that tile's input itself (same folding order, so the same bits) and moves on. No workgroup ever waits
// without bound, so the scan needs no forward-progress guarantee.
//
// Tile state: two u32 atomics per tile, each (flag << 16) | one 16-bit half of the value, written with atomicMax
// so a state only moves forward (NOT_READY < AGGREGATE < INCLUSIVE); a reader trusts a value only when both
// halves carry the same flag. state[0] is the tile counter, state[1] counts fallbacks (for tests).
// carry[carry_index] is the total of earlier chunks (an array larger than one binding is scanned in chunks);
// the last tile writes the running total to carry[carry_index + 1].
//! import shared/workgroup.wgsl

const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;
const ITEMS4: u32 = ITEMS * 4u;
const TILE: u32 = WG_SIZE * ITEMS * 4u;

struct scan_params {
  n: u32,
  tiles: u32,
  grid_x: u32,
  exclusive: u32,
  use_carry: u32,
  carry_index: u32,
  spin_limit: u32,
  stress: u32,
}

@group(0) @binding(0) var<uniform> params: scan_params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read> src_vec: array<vec4<T>>;
@group(0) @binding(3) var<storage, read_write> dst: array<T>;
@group(0) @binding(4) var<storage, read_write> dst_vec: array<vec4<T>>;
@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> carry: array<T>;

var<workgroup> wg_tile: u32;
var<workgroup> wg_flag: u32;
var<workgroup> wg_value: T;
var<private> vals: array<T, ITEMS4>;

fn publish(tile: u32, flag: u32, v: T) {
  let b = bitcast<u32>(v);
  atomicMax(&state[2u + 2u * tile], (flag << 16u) | (b & 0xffffu));
  atomicMax(&state[3u + 2u * tile], (flag << 16u) | (b >> 16u));
}

// Serial fold of this invocation's elements, in the order the fallback repeats.
fn fold_vals() -> T {
  var acc = vals[0];
  for (var k = 1u; k < ITEMS4; k += 1u) {
    acc = combine(acc, vals[k]);
  }
  return acc;
}

// The same fold straight from memory, for a full tile of a predecessor (fallback).
fn fold_tile_from_memory(tile: u32, l: u32) -> T {
  let v0 = (tile * TILE + l * ITEMS4) / 4u;
  let first = src_vec[v0];
  var acc = combine(combine(combine(first.x, first.y), first.z), first.w);
  for (var j = 1u; j < ITEMS; j += 1u) {
    let v = src_vec[v0 + j];
    acc = combine(combine(combine(combine(acc, v.x), v.y), v.z), v.w);
  }
  return acc;
}

// Workgroup scan of the per-invocation folds; returns the tile's aggregate. wg_data keeps the inclusive scan.
fn scan_folds(l: u32, fold: T) -> T {
  workgroupBarrier();  // earlier readers of wg_data are done
  workgroup_scan_inclusive(l, fold);
  return wg_data[WG_SIZE - 1u];
}

@compute @workgroup_size(WG_SIZE)
fn scan(@builtin(local_invocation_index) l: u32) {
  if (l == 0u) {
    wg_tile = atomicAdd(&state[0], 1u);
  }
  let tile = workgroupUniformLoad(&wg_tile);
  if (tile >= params.tiles) {
    return;
  }
  let full = (tile + 1u) * TILE <= params.n;
  let first = tile * TILE + l * ITEMS4;
  if (full) {
    for (var j = 0u; j < ITEMS; j += 1u) {
      let v = src_vec[first / 4u + j];
      vals[4u * j] = v.x;
      vals[4u * j + 1u] = v.y;
      vals[4u * j + 2u] = v.z;
      vals[4u * j + 3u] = v.w;
    }
  } else {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      vals[k] = identity();
      if (first + k < params.n) {
        vals[k] = src[first + k];
      }
    }
  }
  let aggregate = scan_folds(l, fold_vals());
  let thread_prefix = workgroup_exclusive_of(l);

  var carry_in = identity();
  if (params.use_carry != 0u) {
    carry_in = carry[params.carry_index];
  }
  if (tile > 0u && l == 0u) {
    if (params.stress != 0u && tile % 3u == 1u) {
      // Test-only: hold this tile's aggregate back so that its successor gives up waiting and falls back.
      var sink = 0u;
      for (var i = 0u; i < 20000u; i += 1u) {
        sink += atomicLoad(&state[1]);
      }
      if (sink == 0xffffffffu) {
        atomicAdd(&state[1], 0u);
      }
    }
    publish(tile, AGGREGATE, aggregate);
  }

  // Look-back: prefix = combine of the tiles before this one, walked right to left.
  var prefix = identity();
  var reached_inclusive = false;
  if (tile > 0u) {
    var j = tile - 1u;
    var spins = 0u;
    loop {
      if (l == 0u) {
        let lo = atomicLoad(&state[2u + 2u * j]);
        let hi = atomicLoad(&state[3u + 2u * j]);
        var f = lo >> 16u;
        if (f != (hi >> 16u)) {
          f = NOT_READY;  // halves from two different writes: not yet consistent
        }
        wg_flag = f;
        wg_value = bitcast<T>((hi << 16u) | (lo & 0xffffu));
      }
      let f = workgroupUniformLoad(&wg_flag);
      let v = wg_value;
      workgroupBarrier();
      if (f == INCLUSIVE) {
        prefix = combine(v, prefix);
        reached_inclusive = true;
        break;
      }
      if (f == AGGREGATE) {
        prefix = combine(v, prefix);
        if (j == 0u) {
          break;
        }
        j -= 1u;
        spins = 0u;
        continue;
      }
      spins += 1u;
      if (spins < params.spin_limit) {
        continue;
      }
      // Fallback: reduce the predecessor's tile here instead of waiting for its workgroup.
      let agg = scan_folds(l, fold_tile_from_memory(j, l));
      if (l == 0u) {
        publish(j, AGGREGATE, agg);
        atomicAdd(&state[1], 1u);
      }
      prefix = combine(agg, prefix);
      if (j == 0u) {
        break;
      }
      j -= 1u;
      spins = 0u;
    }
  }
  if (!reached_inclusive && params.use_carry != 0u) {
    prefix = combine(carry_in, prefix);  // the walk reached past tile 0 (or this is tile 0): add earlier chunks
  }
  let inclusive = combine(prefix, aggregate);
  if (l == 0u) {
    publish(tile, INCLUSIVE, inclusive);
    if (tile == params.tiles - 1u) {
      carry[params.carry_index + 1u] = inclusive;
    }
  }

  var running = prefix;
  if (l > 0u) {
    running = combine(prefix, thread_prefix);
  }
  if (params.exclusive != 0u) {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      let x = vals[k];
      vals[k] = running;
      running = combine(running, x);
    }
  } else {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      if (tile == 0u && l == 0u && k == 0u && params.use_carry == 0u) {
        running = vals[0];  // keep the first element's bits (no combine with the identity)
      } else {
        running = combine(running, vals[k]);
      }
      vals[k] = running;
    }
  }
  if (full) {
    for (var j = 0u; j < ITEMS; j += 1u) {
      dst_vec[first / 4u + j] = vec4<T>(vals[4u * j], vals[4u * j + 1u], vals[4u * j + 2u], vals[4u * j + 3u]);
    }
  } else {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      if (first + k < params.n) {
        dst[first + k] = vals[k];
      }
    }
  }
}
