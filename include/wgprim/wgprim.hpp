/// @file
/// wgprim: device-wide parallel primitives (reduce, scan, ...) in WGSL on WebGPU. The one include.
/// @namespace wgprim
/// The public API: contexts, device memory, operators and the device-wide primitives.
#pragma once
#include "wgprim/algorithm.hpp"
#include "wgprim/arg_reduce.hpp"
#include "wgprim/buffer.hpp"
#include "wgprim/context.hpp"
#include "wgprim/copy.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/reference.hpp"
#include "wgprim/error.hpp"
#include "wgprim/exact.hpp"
#include "wgprim/histogram.hpp"
#include "wgprim/op.hpp"
#include "wgprim/policy.hpp"
#include "wgprim/reduce.hpp"
#include "wgprim/reduce_by_key.hpp"
#include "wgprim/scan.hpp"
#include "wgprim/transform_reduce.hpp"
#include "wgprim/sort.hpp"
#include "wgprim/segmented.hpp"
#include "wgprim/select.hpp"
#include "wgprim/types.hpp"
#include "wgprim/view.hpp"
