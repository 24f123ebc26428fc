// The bindings 0-5 of a merge level inside one binding (the comparator sort, src/primitives/sort/comparator.cpp:
// the first six slots of sort_merge_level_spec and sort_merge_tile_spec), imported by sort/merge_level.wgsl and
// sort/merge_tile.wgsl (which adds its splits at binding 6): keys_a and keys_b bind the same input (merge_keys.wgsl
// reads A through one and B through the other), keys_out the output; vals_in and vals_out the values (small unused
// buffers without pairs).
//! import sort/merge_keys.wgsl

@group(0) @binding(0) var<uniform> params: merge_params;
@group(0) @binding(1) var<storage, read> keys_a: array<u32>;
@group(0) @binding(2) var<storage, read> keys_b: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(4) var<storage, read> vals_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;
