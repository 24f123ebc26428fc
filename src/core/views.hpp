// Checks on device views that every backend makes before it touches one.
#pragma once
#include "wgprim/device_vector.hpp"

namespace wgprim::detail {

/// Checks that a view belongs to ctx and lies inside its buffer; `what` names the argument in the message.
void check_view(const context& ctx, const device_view& v, const char* what);

}  // namespace wgprim::detail
