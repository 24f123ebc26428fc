// Which pair of runs an output tile of a tiled merge level lies in (sort/merge_tile_split.wgsl and merge_tile.wgsl),
// and where. The importer declares `params: merge_params` (sort/merge_keys.wgsl) and `splits: array<u32>`.
// RUNS false (the comparator sort): runs of params.la keys (the last may be shorter) side by side, pairs at
// multiples of 2 la, a multiple of the tile, so tile t's first output is t * params.step.
// RUNS true (the distributed sort's k-way merge, src/primitives/sort/comparator.cpp: record_merge_runs): runs of any
// length; splits[0 .. params.split_base) is the level's pair table, 4 words per pair in order: its first key s, la,
// lb and the index of its first tile (tiles of a pair are consecutive, each pair's first starts at its first
// output). The tile splits follow at splits[params.split_base + t].

struct tile_pair {
  s: u32,   // the pair's first key: A = [s, s + la), B = [s + la, s + la + lb)
  la: u32,
  lb: u32,
  d0: u32,  // the tile's first output, relative to s
}

fn tile_pair_of(t: u32) -> tile_pair {
//! if RUNS
  // The last pair whose first tile is at most t (binary search of the table; pairs with no tile never match
  // a tile of their own, so ties resolve to the pair that has the tile).
  var lo = 0u;
  var hi = params.split_base / 4u - 1u;
  while (lo < hi) {
    let mid = hi - (hi - lo) / 2u;
    if (splits[4u * mid + 3u] <= t) {
      lo = mid;
    } else {
      hi = mid - 1u;
    }
  }
  return tile_pair(splits[4u * lo], splits[4u * lo + 1u], splits[4u * lo + 2u],
                   (t - splits[4u * lo + 3u]) * params.step);
//! else
  let n = params.out_count;
  let first = t * params.step;
  let s = first / (2u * params.la) * (2u * params.la);
  let la = min(params.la, n - s);
  return tile_pair(s, la, min(params.la, n - s - la), first - s);
//! endif
}
