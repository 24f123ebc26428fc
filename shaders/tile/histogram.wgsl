// Privatised workgroup histogram: counts gather in workgroup memory, then one global add per non-zero bin.
//
// Contract: needs the constants WG_SIZE, PRIVATE_BINS (bins held, > 0 when used) and PRIVATE_SIZE
// (max(PRIVATE_BINS, 1): the array length), and the agent's binding `counts: array<atomic<u32>>` with at least
// `bins` entries. Workgroup memory: PRIVATE_SIZE u32 (wg_bins), cleared by private_bins_clear (wgpu-native does
// not zero it). Barriers: none inside; the caller puts one after private_bins_clear (before any add) and one
// before private_bins_flush (after every add). private_bin_add may be called from non-uniform control flow, the
// other two by every invocation (l = local_invocation_index). No subgroup operations.

var<workgroup> wg_bins: array<atomic<u32>, PRIVATE_SIZE>;

fn private_bins_clear(l: u32) {
  for (var j = l; j < PRIVATE_BINS; j += WG_SIZE) {
    atomicStore(&wg_bins[j], 0u);
  }
}

fn private_bin_add(b: u32, c: u32) {
  atomicAdd(&wg_bins[b], c);
}

// Bins [0, min(bins, PRIVATE_BINS)) into counts: one atomic per non-zero bin and workgroup.
fn private_bins_flush(l: u32, bins: u32) {
  for (var j = l; j < min(bins, PRIVATE_BINS); j += WG_SIZE) {
    let c = atomicLoad(&wg_bins[j]);
    if (c != 0u) {
      atomicAdd(&counts[j], c);
    }
  }
}
