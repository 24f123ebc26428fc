// The radix sort's plan, from the histogram (one workgroup of RADIX invocations, after the histogram kernel):
// a pass is active when it covers compared bits ([pass_lo, pass_hi), the only ones the histogram counted) unless
// one digit holds all n keys (then it would move nothing); the active passes in order
// go to state[PLAN + 1 + j] and their number to state[PLAN]; each pass's digit starts (the exclusive scan of its
// counts) to state[STARTS + pass * 256 + digit]. The pass kernels read these, so no host wait decides anything.
//! import sort/keys.wgsl
//! import sort/count.wgsl

const PASSES: u32 = 4u * KEY_WORDS;

@group(0) @binding(0) var<uniform> params: sort_params;
@group(0) @binding(1) var<storage, read_write> state: array<atomic<u32>>;

var<workgroup> wg_one_digit: array<atomic<u32>, 8>;

@compute @workgroup_size(WG_SIZE)
fn plan(@builtin(local_invocation_index) l: u32, li: lane_info) {
  if (l < 8u) {
    atomicStore(&wg_one_digit[l], 0u);
  }
  workgroupBarrier();
  let n = sort_n();
  for (var p = params.pass_lo; p < params.pass_hi; p += 1u) {
    let c = atomicLoad(&state[HIST + p * RADIX + l]);
    if (c == n) {
      atomicStore(&wg_one_digit[p], 1u);
    }
    atomicStore(&state[STARTS + p * RADIX + l], workgroup_scan(l, c, li).exclusive);
  }
  workgroupBarrier();
  if (l == 0u) {
    var count = 0u;
    for (var p = params.pass_lo; p < params.pass_hi; p += 1u) {
      if (atomicLoad(&wg_one_digit[p]) == 0u) {
        atomicStore(&state[PLAN + 1u + count], p);
        count += 1u;
      }
    }
    atomicStore(&state[PLAN], count);
  }
}
