// Affine parameters from a range, with the original converter's formulas (its observers'
// compute_qparams), evaluated in float32 in PyTorch's order so the scales are bit-identical to
// the ones its observers produce for the same range.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tico::ptq {

// An integer grid: bits and signedness, the real range it covers, and its scheme.
struct Grid {
  int bits = 8;
  bool is_signed = false;
  bool symmetric = false; // zero point 0, range +-max|x| (signed grids only)
  int64_t qmin() const { return is_signed ? -(int64_t{1} << (bits - 1)) : 0; }
  int64_t qmax() const { return is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1; }
};

// "uint8", "int8", "uint4", "int4", "int16" -> a grid with the scheme `scheme` ("auto": signed
// symmetric, unsigned asymmetric, as the original's defaults; "symmetric"; "asymmetric").
// Unsigned + symmetric is rejected, as the original's configuration does. Throws tico::Error
// naming `context`.
Grid parseGrid(const std::string &dtype, const std::string &scheme, const std::string &context);
std::string gridName(const Grid &grid); // "uint8 asymmetric"

struct Range {
  float min = 0.0f;
  float max = 0.0f;
};

struct AffineParams {
  float scale = 1.0f;
  int64_t zero_point = 0;
};

// The parameters of `range` on `grid`. `per_tensor` enables the original's special case of a
// constant tensor (|max - min| < 1e-8: zero -> scale 1, positive c -> scale c with zero point 0,
// negative c -> scale |c| with zero point qmax), which it applies to per-tensor observers only.
// The asymmetric range is widened to contain 0; scales are floored at 1e-8.
AffineParams computeQParams(Range range, const Grid &grid, bool per_tensor);

// torch.fake_quantize_*_affine's code: clamp(nearbyint(x * (1 / scale)) + zero_point).
int64_t quantizeCode(float x, const AffineParams &p, const Grid &grid);
float dequantizeCode(int64_t q, const AffineParams &p);

// Sum of squared quantize-dequantize errors of `values` (for range search).
double quantizationError(std::span<const float> values, const AffineParams &p, const Grid &grid);

} // namespace tico::ptq
