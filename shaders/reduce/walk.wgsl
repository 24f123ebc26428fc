// The accumulate hook of the monoid reductions (reduce/fast.wgsl, reduce/single.wgsl) on the tile walk
// (tile/walk.wgsl): four accumulators of T per invocation, one per chain, each element lifted and folded with the
// prelude's accumulate (which applies a transform view's expression). reduce_walk returns invocation l's value.
// Contract: as tile/walk.wgsl; no workgroup memory, no barriers.
//! import tile/walk.wgsl

struct walk_state {
  acc: array<T, 4>,
}

fn walk_take(s: ptr<function, walk_state>, chain: u32, x: E, i: u32) {
  (*s).acc[chain] = accumulate((*s).acc[chain], x);
}

fn walk_tile_end(s: ptr<function, walk_state>) {
}

fn reduce_walk(g: u32, groups: u32, l: u32, n: u32, n_vec: u32) -> T {
  var s = walk_state(array<T, 4>(identity(), identity(), identity(), identity()));
  tile_walk(&s, g, groups, l, n, n_vec);
  return combine(combine(s.acc[0], s.acc[1]), combine(s.acc[2], s.acc[3]));
}
