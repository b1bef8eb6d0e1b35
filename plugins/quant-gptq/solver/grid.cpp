// Weight grids: fitting (min/max or shrink search), rounding, and the Circle view.
#include "gptq_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tico::gptq {
namespace {

struct ScaleZero {
  float scale;
  float zero;
};

// Every step in fp32 and in the original's order, so grids (and hence codes) match it exactly.
ScaleZero rangeToGrid(float xmin, float xmax, float max_code, bool symmetric) {
  const float scale = (xmax - xmin) / max_code;
  const float zero = symmetric ? (max_code + 1.0f) / 2.0f : std::nearbyint(-xmin / scale);
  return {scale, zero};
}

float roundTrip(float x, ScaleZero g, float max_code) {
  const float q = std::clamp(std::nearbyint(x / g.scale) + g.zero, 0.0f, max_code);
  return g.scale * (q - g.zero);
}

// `weight`, when given, holds one importance per value (the shrink search's error weights).
ScaleZero fitValues(const float *x, const float *weight, Eigen::Index n, const GridOptions &options) {
  const float max_code = static_cast<float>((int32_t{1} << options.bits) - 1);
  float xmin = 0.0f, xmax = 0.0f;  // the range always contains 0
  for (Eigen::Index i = 0; i < n; ++i) {
    xmin = std::min(xmin, x[i]);
    xmax = std::max(xmax, x[i]);
  }
  if (options.symmetric) {
    xmax = std::max(-xmin, xmax);
    if (xmin < 0.0f)
      xmin = -xmax;
  }
  // An all-zero range (or one so tiny that the scale underflows, where the original would
  // produce NaN) gets [-1, 1]: zeros still round-trip exactly.
  ScaleZero best = rangeToGrid(xmin, xmax, max_code, options.symmetric);
  if (!(best.scale > 0.0f)) {
    xmin = -1.0f;
    xmax = 1.0f;
    best = rangeToGrid(xmin, xmax, max_code, options.symmetric);
  }
  if (!options.mse)
    return best;

  const float symmetric_zero = best.zero;
  double best_error = std::numeric_limits<double>::infinity();
  const int candidates = static_cast<int>(options.mse_max_shrink * options.mse_grid);
  for (int i = 0; i < candidates; ++i) {
    const float p = static_cast<float>(1.0 - static_cast<double>(i) / options.mse_grid);
    const float lo = p * xmin, hi = p * xmax;
    ScaleZero g = rangeToGrid(lo, hi, max_code, options.symmetric);
    if (options.symmetric)
      g.zero = symmetric_zero;
    double error = 0.0;  // fp64 sum: ties between candidates are decided by the terms, not by
                         // the summation order
    // |d|^2 without pow: the squared norm (smse's) is the common case and pow dominated the search.
    const bool squared = options.mse_norm == 2.0f;
    for (Eigen::Index k = 0; k < n; ++k) {
      const float d = std::fabs(roundTrip(x[k], g, max_code) - x[k]);
      const double term = squared ? static_cast<double>(d) * d : std::pow(d, options.mse_norm);
      error += weight == nullptr ? term : static_cast<double>(weight[k]) * term;
    }
    if (error < best_error) {  // strict: the widest range wins ties, as in the original
      best_error = error;
      best = g;
    }
  }
  return best;
}

void validate(const GridOptions &options) {
  if (options.bits < 1 || options.bits > 16)
    throw std::invalid_argument("GPTQ grid: bits must be in [1, 16], got " + std::to_string(options.bits));
  if (options.mse && (options.mse_grid < 1 || !(options.mse_max_shrink > 0.0 && options.mse_max_shrink <= 1.0) ||
                      !(options.mse_norm > 0.0f)))
    throw std::invalid_argument("GPTQ grid: the MSE search needs mse_grid >= 1, mse_max_shrink in (0, 1] and "
                                "mse_norm > 0");
}

} // namespace

int32_t Grid::code(Eigen::Index row, float w) const {
  const float max_code = static_cast<float>(maxCode());
  const float q = std::clamp(std::nearbyint(w / scale[row]) + zero[row], 0.0f, max_code);
  return static_cast<int32_t>(q);
}

float Grid::dequantize(Eigen::Index row, int32_t code) const {
  return scale[row] * (static_cast<float>(code) - zero[row]);
}

namespace {

Grid fitGridWeighted(const Eigen::Ref<const Eigen::MatrixXf> &W, const GridOptions &options,
                     const ColumnWeights *column_weights) {
  validate(options);
  if (W.size() == 0)
    throw std::invalid_argument("GPTQ grid: cannot fit a grid to an empty matrix");
  if (column_weights != nullptr) {
    if (column_weights->size() != W.cols())
      throw std::invalid_argument("GPTQ grid: " + std::to_string(column_weights->size()) +
                                  " column weights for a matrix of " + std::to_string(W.cols()) + " columns");
    if (!column_weights->allFinite() || (column_weights->array() < 0.0f).any())
      throw std::invalid_argument("GPTQ grid: column weights must be finite and non-negative");
    if (!options.mse)
      column_weights = nullptr;  // min/max ranges do not depend on them
  }
  Grid grid;
  grid.bits = options.bits;
  grid.symmetric = options.symmetric;
  grid.scale.resize(W.rows());
  grid.zero.resize(W.rows());
  if (!options.per_channel) {
    // Column-major order is fine: min/max and the error sums do not depend on it.
    const Eigen::MatrixXf all = W;
    Eigen::MatrixXf weights;
    if (column_weights != nullptr)
      weights = column_weights->transpose().replicate(W.rows(), 1);  // same layout as `all`
    const ScaleZero g = fitValues(all.data(), column_weights ? weights.data() : nullptr, all.size(), options);
    std::fill(grid.scale.begin(), grid.scale.end(), g.scale);
    std::fill(grid.zero.begin(), grid.zero.end(), g.zero);
    return grid;
  }
  // Rows are independent; the shrink search (mse) costs 80 round trips per weight, so they are
  // split over threads (each writes only its own row's entries).
#pragma omp parallel for schedule(dynamic, 8) if (options.mse && W.size() > 65536)
  for (Eigen::Index r = 0; r < W.rows(); ++r) {
    const Eigen::VectorXf row = W.row(r).transpose();
    const ScaleZero g = fitValues(row.data(), column_weights ? column_weights->data() : nullptr, row.size(), options);
    grid.scale[r] = g.scale;
    grid.zero[r] = g.zero;
  }
  return grid;
}

} // namespace

Grid fitGrid(const Eigen::Ref<const Eigen::MatrixXf> &W, const GridOptions &options) {
  return fitGridWeighted(W, options, nullptr);
}

Grid fitGrid(const Eigen::Ref<const Eigen::MatrixXf> &W, const GridOptions &options,
             const ColumnWeights &column_weights) {
  return fitGridWeighted(W, options, &column_weights);
}

CodeMatrix quantizeRtn(const Eigen::Ref<const Eigen::MatrixXf> &W, const Grid &grid) {
  if (grid.rows() != W.rows())
    throw std::invalid_argument("GPTQ: grid has " + std::to_string(grid.rows()) + " rows, weights have " +
                                std::to_string(W.rows()));
  CodeMatrix codes(W.rows(), W.cols());
  for (Eigen::Index r = 0; r < W.rows(); ++r)
    for (Eigen::Index k = 0; k < W.cols(); ++k)
      codes(r, k) = grid.code(r, W(r, k));
  return codes;
}

Eigen::MatrixXf dequantize(const CodeMatrix &codes, const Grid &grid) {
  if (grid.rows() != codes.rows())
    throw std::invalid_argument("GPTQ: grid has " + std::to_string(grid.rows()) + " rows, codes have " +
                                std::to_string(codes.rows()));
  Eigen::MatrixXf values(codes.rows(), codes.cols());
  for (Eigen::Index r = 0; r < codes.rows(); ++r)
    for (Eigen::Index k = 0; k < codes.cols(); ++k)
      values(r, k) = grid.dequantize(r, codes(r, k));
  return values;
}

bool Result::contiguousGroups() const {
  if (group_size <= 0)
    return true;
  for (std::size_t k = 0; k < group_of_column.size(); ++k)
    if (group_of_column[k] != static_cast<int32_t>(k / static_cast<std::size_t>(group_size)))
      return false;
  return true;
}

CircleQuant toCircle(const std::vector<Grid> &grids, int group_size, bool signed_storage) {
  if (grids.empty())
    throw std::invalid_argument("GPTQ: no grid to report");
  if (group_size <= 0 && grids.size() != 1)
    throw std::invalid_argument("GPTQ: several grids need a group size");
  const Grid &first = grids.front();
  for (const Grid &grid : grids)
    if (grid.bits != first.bits || grid.symmetric != first.symmetric || grid.rows() != first.rows())
      throw std::invalid_argument("GPTQ: grids of one tensor must agree in bits, symmetry and rows");
  if (signed_storage && !first.symmetric)
    throw std::invalid_argument("GPTQ: signed storage with zero point 0 needs a symmetric grid");
  CircleQuant out;
  out.bits = first.bits;
  out.is_signed = signed_storage;
  out.group_size = group_size <= 0 ? -1 : group_size;
  const Eigen::Index rows = first.rows();
  const std::size_t groups = grids.size();
  out.scale.resize(static_cast<std::size_t>(rows) * groups);
  out.zero_point.resize(out.scale.size());
  for (Eigen::Index r = 0; r < rows; ++r)
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t i = static_cast<std::size_t>(r) * groups + g;
      out.scale[i] = grids[g].scale[r];
      out.zero_point[i] = signed_storage ? 0 : static_cast<int64_t>(grids[g].zero[r]);
    }
  return out;
}

CircleQuant toCircle(const Result &result, bool signed_storage) {
  if (!result.contiguousGroups())
    throw std::invalid_argument("GPTQ: groups are not contiguous column ranges (act_order without static_groups); "
                                "Circle cannot express them");
  return toCircle(result.grids, result.group_size, signed_storage);
}

CodeMatrix toSignedCodes(const CodeMatrix &codes, int bits) {
  if (bits < 1 || bits > 16)
    throw std::invalid_argument("GPTQ: bits must be in [1, 16], got " + std::to_string(bits));
  return codes.array() - (int32_t{1} << (bits - 1));
}

} // namespace tico::gptq
