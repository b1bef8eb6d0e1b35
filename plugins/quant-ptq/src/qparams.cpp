// Affine parameters (qparams.h).
#include "qparams.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cmath>

namespace tico::ptq {

Grid parseGrid(const std::string &dtype, const std::string &scheme, const std::string &context) {
  Grid g;
  if (dtype == "uint8")
    g = {8, false};
  else if (dtype == "int8")
    g = {8, true};
  else if (dtype == "uint4")
    g = {4, false};
  else if (dtype == "int4")
    g = {4, true};
  else if (dtype == "int16")
    g = {16, true};
  else
    throw Error(context + ": unknown dtype '" + dtype + "' (uint8, int8, uint4, int4, int16)");
  if (scheme == "auto" || scheme.empty()) {
    g.symmetric = g.is_signed;
  } else if (scheme == "symmetric") {
    if (!g.is_signed)
      throw Error(context + ": unsigned dtype '" + dtype +
                  "' cannot be symmetric (a symmetric grid has zero point 0 in the middle of a signed range)");
    g.symmetric = true;
  } else if (scheme == "asymmetric") {
    g.symmetric = false;
  } else {
    throw Error(context + ": unknown scheme '" + scheme + "' (auto, symmetric, asymmetric)");
  }
  return g;
}

std::string gridName(const Grid &grid) {
  return std::string(grid.is_signed ? "int" : "uint") + std::to_string(grid.bits) +
         (grid.symmetric ? " symmetric" : " asymmetric");
}

AffineParams computeQParams(Range range, const Grid &grid, bool per_tensor) {
  // Every step is one float32 operation, as the original's tensor arithmetic does it.
  const float eps = 1e-8f;
  const float qmin = static_cast<float>(grid.qmin());
  const float qmax = static_cast<float>(grid.qmax());
  const float mn = range.min;
  const float mx = range.max;
  AffineParams p;
  if (grid.symmetric) {
    const float max_abs = std::max(std::fabs(mx), std::fabs(mn));
    p.scale = std::max(max_abs / qmax, eps);
    p.zero_point = 0;
    return p;
  }
  float rng = mx - mn;
  if (per_tensor && std::fabs(rng) < eps) {
    const float c = mn;
    if (std::fabs(static_cast<double>(c)) <= 1e-8) {
      p.scale = 1.0f;
      p.zero_point = 0;
    } else if (c > 0.0f) {
      p.scale = std::max(c, eps);
      p.zero_point = 0;
    } else {
      p.scale = std::max(std::fabs(c), eps);
      p.zero_point = grid.qmax();
    }
    return p;
  }
  // The grid must hold real 0: a positive range starts at 0, a negative one ends there.
  if (mn > 0.0f)
    rng = mx;
  if (mx < 0.0f)
    rng = -mn;
  p.scale = std::max(rng / (qmax - qmin), eps);
  const float zp = std::nearbyint(qmin - mn / p.scale);
  p.zero_point = static_cast<int64_t>(std::clamp(zp, qmin, qmax));
  return p;
}

int64_t quantizeCode(float x, const AffineParams &p, const Grid &grid) {
  const float inv = 1.0f / p.scale;
  const auto q = static_cast<int64_t>(std::nearbyint(x * inv)) + p.zero_point;
  return std::clamp(q, grid.qmin(), grid.qmax());
}

float dequantizeCode(int64_t q, const AffineParams &p) {
  return static_cast<float>(q - p.zero_point) * p.scale;
}

double quantizationError(std::span<const float> values, const AffineParams &p, const Grid &grid) {
  double sum = 0.0;
  for (float x : values) {
    const double d = static_cast<double>(x) - dequantizeCode(quantizeCode(x, p, grid), p);
    sum += d * d;
  }
  return sum;
}

} // namespace tico::ptq
