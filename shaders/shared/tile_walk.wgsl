// The fast reduce's walk over the input, as a function: workgroup g of `groups` visits tiles g, g + groups, ...
// of WG_SIZE * ITEMS * 4 elements (VEC_LOADS: ITEMS coalesced vec4 loads per invocation per tile, then 0-3
// scalars past the last whole vec4 folded by group 0; else 4 * ITEMS scalar loads consecutive across
// invocations) and returns invocation l's accumulator (four chains combined). The including module declares
// src_vec: array<EV> and src: array<E>. Deterministic: the same (g, groups, l, n) always folds the same elements
// in the same order, which the single-dispatch reduce relies on when it recomputes a partial.

fn tile_walk(g: u32, groups: u32, l: u32, n: u32, n_vec: u32) -> T {
  var acc0 = identity();
  var acc1 = identity();
  var acc2 = identity();
  var acc3 = identity();
  if (VEC_LOADS) {
    let tile = WG_SIZE * ITEMS;  // in vec4
    var base = g * tile;
    let stride = groups * tile;
    while (base + tile <= n_vec) {
      for (var k = 0u; k < ITEMS; k += 1u) {
        let v = src_vec[base + k * WG_SIZE + l];
        acc0 = accumulate(acc0, v[0]);
        acc1 = accumulate(acc1, v[1]);
        acc2 = accumulate(acc2, v[2]);
        acc3 = accumulate(acc3, v[3]);
      }
      base += stride;
    }
    if (base < n_vec) {
      for (var k = 0u; k < ITEMS; k += 1u) {
        let i = base + k * WG_SIZE + l;
        if (i < n_vec) {
          let v = src_vec[i];
          acc0 = accumulate(acc0, v[0]);
          acc1 = accumulate(acc1, v[1]);
          acc2 = accumulate(acc2, v[2]);
          acc3 = accumulate(acc3, v[3]);
        }
      }
    }
    let tail = n_vec * 4u;
    if (g == 0u && tail + l < n) {
      acc0 = accumulate(acc0, src[tail + l]);
    }
  } else {
    let tile = WG_SIZE * ITEMS * 4u;  // in elements
    var base = g * tile;
    let stride = groups * tile;
    while (base + tile <= n) {
      for (var k = 0u; k < ITEMS * 4u; k += 4u) {
        acc0 = accumulate(acc0, src[base + k * WG_SIZE + l]);
        acc1 = accumulate(acc1, src[base + (k + 1u) * WG_SIZE + l]);
        acc2 = accumulate(acc2, src[base + (k + 2u) * WG_SIZE + l]);
        acc3 = accumulate(acc3, src[base + (k + 3u) * WG_SIZE + l]);
      }
      base += stride;
    }
    if (base < n) {
      for (var k = 0u; k < ITEMS * 4u; k += 1u) {
        let i = base + k * WG_SIZE + l;
        if (i < n) {
          acc0 = accumulate(acc0, src[i]);
        }
      }
    }
  }
  return combine(combine(acc0, acc1), combine(acc2, acc3));
}
