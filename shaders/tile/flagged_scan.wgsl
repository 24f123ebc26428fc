// Workgroup scan of flag-value pairs: the block-level piece of every segmented scan and reduction.
// A pair (f, v) carries a group code f (0: no group starts inside the pair's span; else the code of the last
// group that does) and v, the combination of the span's values from that start (or from the span's beginning
// when f == 0). (f1, v1) + (f2, v2) = f2 != 0 ? (f2, v2) : (f1, v1 . v2): associative, order kept, so any monoid
// works, commutative or not.
//
// Contract: flagged_scan(l, x) is called by every invocation of the workgroup in uniform control flow, with
// l = local_invocation_index; it returns the exclusive prefix of invocation l ((0, identity()) for l == 0) and
// the workgroup's inclusive total. Workgroup memory: WG_SIZE u32 + WG_SIZE T (wg_flag_f, wg_flag_v), written
// whole before they are read (not relying on zero initialisation). Barriers: 2 log2(WG_SIZE) + 2; on return the
// arrays may be reused. No subgroup operations: any subgroup size, adapters without subgroups. Needs the
// prelude's T, identity(), combine() and the constant WG_SIZE (a power of two).

struct flagged {
  f: u32,
  v: T,
}

struct flagged_scan_result {
  exclusive: flagged,
  total: flagged,
}

fn flagged_combine(a: flagged, b: flagged) -> flagged {
  if (b.f != 0u) {
    return b;
  }
  return flagged(a.f, combine(a.v, b.v));
}

var<workgroup> wg_flag_f: array<u32, WG_SIZE>;
var<workgroup> wg_flag_v: array<T, WG_SIZE>;

// Hillis-Steele over the workgroup; the earlier span is always the left operand.
fn flagged_scan(l: u32, x: flagged) -> flagged_scan_result {
  var mine = x;
  wg_flag_f[l] = mine.f;
  wg_flag_v[l] = mine.v;
  workgroupBarrier();
  for (var d = 1u; d < WG_SIZE; d *= 2u) {
    var prev = mine;
    if (l >= d) {
      prev = flagged(wg_flag_f[l - d], wg_flag_v[l - d]);
    }
    workgroupBarrier();
    if (l >= d) {
      mine = flagged_combine(prev, mine);
      wg_flag_f[l] = mine.f;
      wg_flag_v[l] = mine.v;
    }
    workgroupBarrier();
  }
  var r: flagged_scan_result;
  r.exclusive = flagged(0u, identity());
  if (l > 0u) {
    r.exclusive = flagged(wg_flag_f[l - 1u], wg_flag_v[l - 1u]);
  }
  r.total = flagged(wg_flag_f[WG_SIZE - 1u], wg_flag_v[WG_SIZE - 1u]);
  workgroupBarrier();
  return r;
}
