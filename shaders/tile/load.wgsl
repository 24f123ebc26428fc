// The load hook of a primitive's input: load_input(i) -> E is element i of the bound chunk of what the primitive
// reads: its input buffer, or a view fused into the load (include/wgprim/view.hpp), so no temporary buffer ever
// holds a view's values. A transform view's expression is not here: it is the prelude's lift (wgsl_compose), which
// the importer applies to what load_input returns.
//
// Contract:
//   reads      the importer's src: array<E>: the input (no view; with VIEW_GATHER the whole base range), or the
//              view's parameters (VIEW_COUNTING: src[0] start, src[1] step, src[2] the bits of the chunk's first
//              index; VIEW_CONSTANT: src[0] the value); with VIEW_GATHER also the importer's
//              view_index: array<u32> (the chunk's indices; an index past the base reads its last element);
//              with VIEW_ZIP src is the chunk of the first range (a) and view_index that of the second (b), and
//              the element is view_zip(a, b) on their bits (the zip's checked expression, generated with the
//              constants: src/primitives/view.cpp);
//   writes, workgroup memory, barriers, subgroup operations: none; callable from non-uniform control flow;
//   constants  VIEW_COUNTING, VIEW_CONSTANT, VIEW_GATHER (at most one true; none: the buffer itself; a zip sets
//              VIEW_GATHER too, which declares view_index), VIEW_ZIP and
//              VIEW_FLOAT (counting over f32: fma(f32(index), step, start), one rounding, as the CPU twin).
// 32-bit E only (src[2] holds a u32). E may be the view's type or u32 holding its bits (the exact sum, which adds
// bits): the arithmetic is the same modulo 2^32 for integers, and f32 counting goes through bitcasts.

fn load_input(i: u32) -> E {
//! if VIEW_COUNTING
//! if VIEW_FLOAT
  return bitcast<E>(fma(f32(i + bitcast<u32>(src[2])), bitcast<f32>(src[1]), bitcast<f32>(src[0])));
//! else
  return src[0] + src[1] * E(i + bitcast<u32>(src[2]));
//! endif
//! else
//! if VIEW_CONSTANT
  return src[0];
//! else
//! if VIEW_ZIP
  return bitcast<E>(view_zip(bitcast<u32>(src[i]), view_index[i]));
//! else
//! if VIEW_GATHER
  return src[min(view_index[i], arrayLength(&src) - 1u)];
//! else
  return src[i];
//! endif
//! endif
//! endif
//! endif
}
