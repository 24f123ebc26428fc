// Workgroup-level building blocks over one array in workgroup memory, WG_SIZE wide.
// Contract: call from uniform control flow with every invocation of the workgroup; l = local_invocation_index.
// wgpu-native does not zero workgroup memory, so each function writes every slot it reads.

var<workgroup> wg_data: array<T, WG_SIZE>;

// The seed's tree: halve the active invocations each step; each level combines values of similar magnitude,
// which is what keeps f32 sums close to exact. Returns the total to every invocation.
fn workgroup_reduce_tree(l: u32, x: T) -> T {
  wg_data[l] = x;
  workgroupBarrier();
  for (var stride = WG_SIZE / 2u; stride > 0u; stride >>= 1u) {
    if (l < stride) {
      wg_data[l] = combine(wg_data[l], wg_data[l + stride]);
    }
    workgroupBarrier();
  }
  let total = wg_data[0];
  workgroupBarrier();
  return total;
}

// Hillis-Steele inclusive scan (log2(WG_SIZE) steps). The earlier value is always the left operand, so the
// scan is correct for associative operators that do not commute. Leaves the inclusive scan in wg_data.
fn workgroup_scan_inclusive(l: u32, x: T) -> T {
  wg_data[l] = x;
  workgroupBarrier();
  for (var d = 1u; d < WG_SIZE; d <<= 1u) {
    var left = identity();
    if (l >= d) {
      left = wg_data[l - d];
    }
    workgroupBarrier();
    if (l >= d) {
      wg_data[l] = combine(left, wg_data[l]);
    }
    workgroupBarrier();
  }
  return wg_data[l];
}

// After workgroup_scan_inclusive: the exclusive value of invocation l.
fn workgroup_exclusive_of(l: u32) -> T {
  if (l == 0u) {
    return identity();
  }
  return wg_data[l - 1u];
}
