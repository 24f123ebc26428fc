// The neutral tail of a counted range (wgprim::device_count): writes params.pad into dst[n .. capacity), n being
// the count read where it lies (`count[count_at]`, a window of the caller's buffer), clamped to the capacity. A
// pass over the whole capacity then sees the tail as neutral (the largest key of an ascending sort, a reduction's
// identity). One u32 per invocation, 2-D grid of grid_x workgroups per row.

struct pad_params {
  capacity: u32,
  pad: u32,                    // the value written past the count
  count_at: u32,               // the count's word in `count`
  unused: u32,
}

@group(0) @binding(0) var<uniform> params: pad_params;
@group(0) @binding(1) var<storage, read> count: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn pad_tail(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 64u;
  let n = min(count[params.count_at], params.capacity);
  if (i >= n && i < params.capacity) {
    dst[i] = params.pad;
  }
}
