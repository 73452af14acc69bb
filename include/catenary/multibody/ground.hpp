#pragma once
namespace catenary {
// The ground as a body index (r = 0, p = (1, 0, 0, 0), at rest).
constexpr int kGround = -1;
}  // namespace catenary
