// The buffers of a sort and which pass reads and writes which, decided on the GPU from the plan (sort/plan.wgsl)
// so that no host wait is needed to skip passes. Roles: IN the caller's input (absent when the sort is in place),
// X the output, Y a temporary. Slot j runs the j-th active pass (of `count`):
//   not in place: slot 0 reads IN; slot j writes X when count - 1 - j is even, else Y, so the last slot writes X;
//                 with no active pass the finish kernel copies IN to X.
//   in place:     slot 0 reads X; slot j writes Y when j is even, else X; with an odd count the result is in Y and
//                 the finish kernel copies it to X.
// Slot j > 0 reads what slot j - 1 wrote. This module declares the pass kernels' bindings 0-7 (below); an importer
// adds its own from binding 8 on.
//! import sort/keys.wgsl
//! import sort/count.wgsl

@group(0) @binding(0) var<uniform> params: sort_params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_x: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_y: array<u32>;
@group(0) @binding(4) var<storage, read> vals_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> vals_x: array<u32>;
@group(0) @binding(6) var<storage, read_write> vals_y: array<u32>;
@group(0) @binding(7) var<storage, read_write> state: array<atomic<u32>>;

const ROLE_IN: u32 = 0u;
const ROLE_X: u32 = 1u;
const ROLE_Y: u32 = 2u;

struct slot_plan {
  on: bool,     // false: the plan skips this slot
  dpass: u32,   // the digit pass it runs
  src: u32,
  dst: u32,
}

fn active_passes() -> u32 {
  return atomicLoad(&state[PLAN]);
}

fn slot_dst(j: u32, count: u32) -> u32 {
  if (params.in_place != 0u) {
    return select(ROLE_X, ROLE_Y, j % 2u == 0u);
  }
  return select(ROLE_Y, ROLE_X, (count - 1u - j) % 2u == 0u);
}

fn plan_of(j: u32) -> slot_plan {
  let count = active_passes();
  if (j >= count) {
    return slot_plan(false, 0u, 0u, 0u);
  }
  var src = select(ROLE_IN, ROLE_X, params.in_place != 0u);
  if (j > 0u) {
    src = slot_dst(j - 1u, count);
  }
  return slot_plan(true, atomicLoad(&state[PLAN + 1u + j]), src, slot_dst(j, count));
}

fn key_word(role: u32, w: u32) -> u32 {
  if (role == ROLE_IN) {
    return keys_in[w];
  }
  if (role == ROLE_X) {
    return keys_x[w];
  }
  return keys_y[w];
}

// Key i of the buffer of `role` as (low word, high word); the high word is 0 for 32-bit keys.
fn load_key(role: u32, i: u32) -> vec2<u32> {
  if (KEY_WORDS == 1u) {
    return vec2<u32>(key_word(role, i), 0u);
  }
  return vec2<u32>(key_word(role, 2u * i), key_word(role, 2u * i + 1u));
}

fn store_key_word(role: u32, w: u32, v: u32) {
  if (role == ROLE_X) {
    keys_x[w] = v;
  } else {
    keys_y[w] = v;
  }
}

fn load_val(role: u32, i: u32) -> u32 {
  if (role == ROLE_IN) {
    return vals_in[i];
  }
  if (role == ROLE_X) {
    return vals_x[i];
  }
  return vals_y[i];
}

// Key word i of `src` into X, and value i where i < n (the sort's result where it is not in X already: the finish
// kernel, and the onesweep's slot 0 when no pass is active). Word indices cover [0, n * KEY_WORDS), so callers that
// walk every word index also reach every value index.
fn copy_word_to_x(src: u32, i: u32, n: u32) {
  if (i < n * KEY_WORDS) {
    keys_x[i] = key_word(src, i);
  }
  if (params.pairs != 0u && i < n) {
    vals_x[i] = load_val(src, i);
  }
}

fn store_val(role: u32, i: u32, v: u32) {
  if (role == ROLE_X) {
    vals_x[i] = v;
  } else {
    vals_y[i] = v;
  }
}
