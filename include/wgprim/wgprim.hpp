// wgprim: device-wide parallel primitives (reduce, scan, ...) in WGSL on WebGPU. The one include.
#pragma once
#include "wgprim/algorithm.hpp"
#include "wgprim/buffer.hpp"
#include "wgprim/context.hpp"
#include "wgprim/copy.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/cpu_twin.hpp"
#include "wgprim/error.hpp"
#include "wgprim/op.hpp"
#include "wgprim/reduce.hpp"
#include "wgprim/scan.hpp"
#include "wgprim/select.hpp"
#include "wgprim/types.hpp"
