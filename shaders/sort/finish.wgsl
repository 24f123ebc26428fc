// The radix sort's last step (sort/buffers.wgsl): when the passes left the result outside X, copy it there:
// an in-place sort with an odd number of active passes (result in Y), or an out-of-place sort with none (the
// input is sorted already: IN). Otherwise every workgroup returns at once. A fixed number of workgroups walk
// blocks of WG_SIZE * ITEMS words.
//! import sort/buffers.wgsl

@compute @workgroup_size(WG_SIZE)
fn finish(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let count = active_passes();
  var src = ROLE_IN;
  if (params.in_place != 0u) {
    if (count % 2u == 0u) {
      return;
    }
    src = ROLE_Y;
  } else if (count != 0u) {
    return;
  }
  let w = wid.y * params.grid_x + wid.x;
  let n = sort_n();
  for (var block = w; block < params.blocks; block += params.workgroups) {
    for (var k = 0u; k < ITEMS; k += 1u) {
      copy_word_to_x(src, (block * ITEMS + k) * WG_SIZE + l, n);
    }
  }
}
