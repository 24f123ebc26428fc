// The decoupled look-back's shared core (Smith, Levien & Owens, SPAA 2025): the state flags, the stress mode's two
// rules, and the walk of one chain of one-word states by one invocation. tile/lookback.wgsl imports it for its
// walks of one chain per workgroup (scan, select); the onesweep sort (sort/onesweep.wgsl) imports it alone and
// walks 256 chains at once, one per digit, one invocation each.
//
// One-word states: (flag << 30) | value, value < 2^30, values summed (u32 counts), written with atomicMax so a
// state only moves forward (NOT_READY < AGGREGATE < INCLUSIVE). Tile j's state of a chain is state[base + j * stride].
//
// Contract with the importer:
//   reads   const WINDOW (states read at once, 1..32);
//   binds   `state: array<atomic<u32>>`;
//   workgroup memory: none; barriers: none (walk_word_chain is called per invocation, in any control flow);
//   fallback: walk_word_chain returns when a predecessor stays NOT_READY for spin_limit polls; the importer counts
//           that tile's value itself (with its workgroup), publishes it as AGGREGATE and calls the walk again.

const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;
const PAST_TILE_ZERO: u32 = 3u;  // a reader's flag for "no such tile"
const WORD_VALUE_MASK: u32 = 0x3fffffffu;

// Stress mode (testing::set_lookback_stress), rule 1: every tile t with t % 3 == 1 holds back its aggregate for a
// while (one invocation polls state[counter] 20,000 times), so that its successor's walk gives up and falls back.
fn stress_hold_back(counter: u32) {
  var sink = 0u;
  for (var i = 0u; i < 20000u; i += 1u) {
    sink += atomicLoad(&state[counter]);
  }
  if (sink == 0xffffffffu) {
    atomicAdd(&state[counter], 0u);
  }
}

// Stress mode, rule 2: the reader tile r with r % 3 == 2 sees its predecessor as NOT_READY, so the fallback runs
// on every driver, however the workgroups happen to be scheduled (the host sets spin_limit = 1 with it).
fn stress_hides(tile: u32, reader: u32, stress: bool) -> bool {
  return stress && reader % 3u == 2u && tile + 1u == reader;
}

struct word_walk {
  prefix: u32,  // the sum of the values folded so far (tiles next + 1 .. reader - 1)
  next: u32,    // the latest tile not folded yet (meaningful while !done)
  done: bool,   // prefix is the sum over every tile before the reader
}

// The first step of tile `reader`'s walk (reader > 0).
fn word_walk_start(reader: u32) -> word_walk {
  return word_walk(0u, reader - 1u, false);
}

// Walks one chain back from w.next: WINDOW states read at once and folded up to the first that is not AGGREGATE;
// an INCLUSIVE state, or folding tile 0, ends the walk. A NOT_READY state is then polled alone (one load per poll,
// not the window) until it moves; after spin_limit polls without progress the walk returns with done = false and
// next = the tile it waits on, for the importer's fallback.
fn walk_word_chain(w: word_walk, base: u32, stride: u32, reader: u32, spin_limit: u32, stress: bool) -> word_walk {
  var r = w;
  var spins = 0u;
  var width = WINDOW;
  loop {
    if (r.done) {
      break;
    }
    let j = r.next;
    let reads = min(width, j + 1u);
    var s: array<u32, WINDOW>;
    for (var i = 0u; i < WINDOW; i += 1u) {
      s[i] = NOT_READY << 30u;
      if (i < reads) {
        s[i] = atomicLoad(&state[base + (j - i) * stride]);
        if (stress_hides(j - i, reader, stress)) {
          s[i] = NOT_READY << 30u;
        }
      }
    }
    var steps = 0u;
    var stop = AGGREGATE;  // every state read was AGGREGATE, unless one below says otherwise
    for (var i = 0u; i < WINDOW; i += 1u) {
      if (i >= reads) {
        break;
      }
      let f = s[i] >> 30u;
      if (f == NOT_READY) {
        stop = NOT_READY;
        break;
      }
      r.prefix += s[i] & WORD_VALUE_MASK;
      steps += 1u;
      if (f == INCLUSIVE) {
        stop = INCLUSIVE;
        break;
      }
    }
    if (stop == INCLUSIVE || steps > j) {
      r.done = true;  // an inclusive prefix, or folded down to tile 0 (AGGREGATE states after fallbacks)
      break;
    }
    r.next = j - steps;
    if (stop == AGGREGATE) {
      spins = 0u;
      width = WINDOW;
      continue;
    }
    // Tile r.next is NOT_READY.
    if (steps > 0u) {
      spins = 0u;
    }
    spins += 1u;
    width = 1u;
    if (spins >= spin_limit) {
      break;  // stuck at tile r.next
    }
  }
  return r;
}
