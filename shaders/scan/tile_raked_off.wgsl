// Placeholders for scan/decoupled.wgsl when RAKED is false (no subgroups, or another layout): the same
// signatures as scan/tile_raked.wgsl, never called (RAKED guards every call), so that the module needs no
// subgroup operations.

fn raked_has_prefix(k: u32, li: lane_info) -> bool {
  return false;
}

fn raked_load_scan(tile: u32, li: lane_info) -> T {
  return identity();
}

fn raked_tile_aggregate(tile: u32, li: lane_info) -> T {
  return identity();
}

fn raked_store(tile: u32, li: lane_info) {
}

var<private> raked_prefix: array<T, 1>;
