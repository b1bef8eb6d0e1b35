// GPTQ's column loop with lazy block updates, and the inverse-Hessian factor it walks along.
#include "gptq_solver.h"

#include <oneapi/dnnl/dnnl.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

namespace tico::gptq {
namespace {

std::string describeLayer(const Options &options, Eigen::Index columns) {
  const std::string size = std::to_string(columns) + " input columns";
  return options.label.empty() ? "a layer with " + size : "layer '" + options.label + "' (" + size + ")";
}

void validate(const Eigen::MatrixXf &W, const Eigen::MatrixXd &H, const Options &options) {
  const std::string where = "GPTQ (" + describeLayer(options, W.cols()) + "): ";
  if (W.size() == 0)
    throw std::invalid_argument(where + "empty weight");
  if (H.rows() != W.cols() || H.cols() != W.cols())
    throw std::invalid_argument(where + "Hessian is " + std::to_string(H.rows()) + "x" + std::to_string(H.cols()) +
                                ", expected " + std::to_string(W.cols()) + "x" + std::to_string(W.cols()));
  if (!(options.percdamp > 0.0 && options.percdamp <= 1.0))
    throw std::invalid_argument(where + "percdamp must be in (0, 1], got " + std::to_string(options.percdamp));
  if (options.damping_retries < 0)
    throw std::invalid_argument(where + "damping_retries must be >= 0, got " + std::to_string(options.damping_retries));
  if (options.block_size < 1)
    throw std::invalid_argument(where + "block_size must be >= 1, got " + std::to_string(options.block_size));
  if (options.group_size == 0 || options.group_size < -1)
    throw std::invalid_argument(where + "group_size must be -1 (none) or >= 1, got " +
                                std::to_string(options.group_size));
  if (!W.allFinite())
    throw std::invalid_argument(where + "weight has NaN or infinite values");
  if (!H.allFinite())
    throw std::invalid_argument(where + "Hessian has NaN or infinite values");
}

// In-place inverse of a lower-triangular matrix (the upper part is neither read nor written).
// Recursive 2x2 blocking keeps it at n^3/3 flops in matrix products; solving against an identity
// would cost n^3.
void invertLowerInPlace(Eigen::Ref<Eigen::MatrixXd> L) {
  const Eigen::Index n = L.rows();
  if (n <= 64) {
    Eigen::MatrixXd inverse = Eigen::MatrixXd::Identity(n, n);
    L.triangularView<Eigen::Lower>().solveInPlace(inverse);
    L.triangularView<Eigen::Lower>() = inverse;
    return;
  }
  const Eigen::Index h = n / 2;
  invertLowerInPlace(L.topLeftCorner(h, h));
  invertLowerInPlace(L.bottomRightCorner(n - h, n - h));
  // [[A, 0], [B, C]]^-1 = [[A^-1, 0], [-C^-1 B A^-1, C^-1]], with A and C already inverted.
  const Eigen::MatrixXd b_ainv = L.bottomLeftCorner(n - h, h) * L.topLeftCorner(h, h).triangularView<Eigen::Lower>();
  L.bottomLeftCorner(n - h, h).noalias() = -(L.bottomRightCorner(n - h, n - h).triangularView<Eigen::Lower>() * b_ainv);
}

// The upper-triangular U with H^-1 = U^T U, for H damped and already in processing order. Row k of
// U, divided by U_kk, is the OBS update of the columns after k once columns before k are fixed.
// The original computes it as chol(H) -> H^-1 -> chol(H^-1, upper); the same factor comes
// cheaper from one Cholesky of H with its order reversed (J H J = L L^T, J the reversal):
// H = (J L J)(J L J)^T with J L J upper, so U = (J L J)^-1 = J L^-1 J. Uniqueness of Cholesky
// factors makes both routes agree up to round-off. H is overwritten.
Eigen::MatrixXf inverseFactor(Eigen::MatrixXd &H, const Options &options, double percdamp) {
  const Eigen::Index c = H.rows();
  H.reverseInPlace();  // both rows and columns
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(H);
  if (llt.info() != Eigen::Success)
    throw std::runtime_error("GPTQ: the dampened Hessian of " + describeLayer(options, c) +
                             " is not positive definite (percdamp " + std::to_string(percdamp) +
                             (options.damping_retries > 0
                                  ? " after " + std::to_string(options.damping_retries) + " tenfold increases"
                                  : std::string()) +
                             "); give more calibration samples or raise percdamp / damping_retries");
  invertLowerInPlace(H);
  Eigen::MatrixXf U = Eigen::MatrixXf::Zero(c, c);
  for (Eigen::Index j = 0; j < c; ++j)
    for (Eigen::Index i = 0; i <= j; ++i)
      U(i, j) = static_cast<float>(H(c - 1 - i, c - 1 - j));
  return U;
}

} // namespace

Result quantize(const Eigen::MatrixXf &W, Eigen::MatrixXd H, const Options &options) {
  validate(W, H, options);
  const Eigen::Index rows = W.rows(), c = W.cols();
  const int gs = options.group_size;
  const bool grouped = gs > 0;
  const bool static_groups = grouped && options.static_groups;

  Result result;
  result.group_size = gs;
  result.group_of_column.assign(static_cast<std::size_t>(c), 0);

  // `smse`: the shrink search weighs each column by its undampened H_jj (dead columns: 0).
  GridOptions grid_options = options.grid;
  std::optional<ColumnWeights> importance;
  if (options.sensitivity_weighted && grid_options.mse) {
    grid_options.mse_norm = 2.0f;
    importance = H.diagonal().cast<float>();
  }
  const auto fit = [&](const Eigen::Ref<const Eigen::MatrixXf> &columns, Eigen::Index first,
                       const std::vector<Eigen::Index> *order) {
    if (!importance)
      return fitGrid(columns, grid_options);
    ColumnWeights weights(columns.cols());
    for (Eigen::Index j = 0; j < columns.cols(); ++j)
      weights(j) = (*importance)(order ? (*order)[first + j] : first + j);
    return fitGrid(columns, grid_options, weights);
  };

  // The single grid comes from the weights as given, dead columns included, as in the original.
  std::optional<Grid> whole_grid;
  if (!grouped)
    whole_grid = fit(W, 0, nullptr);

  // A column whose input was always zero carries no information: H_dd = 1 keeps H invertible,
  // its weight is 0 during the loop (nothing to compensate), and it is rounded at the end.
  Eigen::MatrixXf work_weights = W;
  for (Eigen::Index d = 0; d < c; ++d)
    if (H(d, d) == 0.0) {
      H(d, d) = 1.0;
      work_weights.col(d).setZero();
      result.dead_columns.push_back(d);
    }

  std::vector<Grid> static_grids;
  if (static_groups)
    for (Eigen::Index start = 0; start < c; start += gs)
      static_grids.push_back(fit(work_weights.middleCols(start, std::min<Eigen::Index>(gs, c - start)), start, nullptr));

  result.order.resize(static_cast<std::size_t>(c));
  std::iota(result.order.begin(), result.order.end(), Eigen::Index{0});
  if (options.act_order) {
    const Eigen::VectorXd diag = H.diagonal();
    std::stable_sort(result.order.begin(), result.order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return diag(a) > diag(b); });
    Eigen::MatrixXf permuted_weights(rows, c);
    for (Eigen::Index k = 0; k < c; ++k)
      permuted_weights.col(k) = work_weights.col(result.order[k]);
    work_weights.swap(permuted_weights);
    Eigen::MatrixXd permuted(c, c);
    for (Eigen::Index j = 0; j < c; ++j)
      for (Eigen::Index i = 0; i < c; ++i)
        permuted(i, j) = H(result.order[i], result.order[j]);
    H.swap(permuted);
  }

  // Factor with the requested dampening, raising it tenfold while the factorisation fails. The
  // undampened H is kept for the retries only when one may be needed.
  const Eigen::MatrixXd undamped = options.damping_retries > 0 ? H : Eigen::MatrixXd();
  const double mean_diagonal = H.diagonal().mean();
  result.percdamp = options.percdamp;
  Eigen::MatrixXf U;
  for (;;) {
    H.diagonal().array() += result.percdamp * mean_diagonal;
    try {
      U = inverseFactor(H, options, result.percdamp);
      break;
    } catch (const std::runtime_error &) {
      if (result.damping_retries >= options.damping_retries)
        throw;
    }
    ++result.damping_retries;
    result.percdamp *= 10.0;
    H = undamped;
  }
  H.resize(0, 0);

  result.codes.resize(rows, c);
  result.dequantized.resize(rows, c);
  if (whole_grid)
    result.grids.push_back(*whole_grid);
  if (static_groups)
    result.grids = static_grids;

  const Eigen::Index block_size = std::min<Eigen::Index>(options.block_size, c);
  Eigen::MatrixXf block(rows, block_size), errors(rows, block_size);
  const Grid *grid = whole_grid ? &result.grids.front() : nullptr;
  int32_t group_index = 0;
  double loss = 0.0;
  for (Eigen::Index i1 = 0, i2 = 0; i1 < c; i1 = i2) {
    i2 = std::min(i1 + block_size, c);
    if (grouped && !static_groups && options.exact_group_refit)
      i2 = std::min(i2, (i1 / gs + 1) * gs);  // every group starts a block: its weights are up to date
    const Eigen::Index count = i2 - i1;
    block.leftCols(count) = work_weights.middleCols(i1, count);
    for (Eigen::Index j = 0; j < count; ++j) {
      const Eigen::Index k = i1 + j;
      const Eigen::Index column = result.order[k];
      if (static_groups) {
        group_index = static_cast<int32_t>(column / gs);
        grid = &result.grids[group_index];
      } else if (grouped && k % gs == 0) {
        // Fitted on work_weights, which holds this block's columns as they were at its start.
        result.grids.push_back(fit(work_weights.middleCols(k, std::min<Eigen::Index>(gs, c - k)), k, &result.order));
        group_index = static_cast<int32_t>(result.grids.size() - 1);
        grid = &result.grids.back();
      }
      result.group_of_column[column] = group_index;
      const float d = U(k, k);
      for (Eigen::Index r = 0; r < rows; ++r) {
        const float w = block(r, j);
        const int32_t code = grid->code(r, w);
        const float q = grid->dequantize(r, code);
        result.codes(r, column) = code;
        result.dequantized(r, column) = q;
        const float e = (w - q) / d;
        errors(r, j) = e;
        loss += static_cast<double>(e) * e / 2.0;
      }
      if (j + 1 < count)
        block.middleCols(j + 1, count - j - 1).noalias() -= errors.col(j) * U.row(k).segment(k + 1, count - j - 1);
    }
    if (i2 < c)
      work_weights.rightCols(c - i2).noalias() -= errors.leftCols(count) * U.block(i1, i2, count, c - i2);
  }
  result.loss = loss;

  for (const Eigen::Index d : result.dead_columns) {
    const Grid &g = result.grids[result.group_of_column[d]];
    for (Eigen::Index r = 0; r < rows; ++r) {
      result.codes(r, d) = g.code(r, W(r, d));
      result.dequantized(r, d) = g.dequantize(r, result.codes(r, d));
    }
  }
  return result;
}

double layerError(const Eigen::MatrixXf &W, const Eigen::MatrixXf &W_hat, const Eigen::MatrixXd &H) {
  if (W.rows() != W_hat.rows() || W.cols() != W_hat.cols() || H.rows() != W.cols() || H.cols() != W.cols())
    throw std::invalid_argument("GPTQ layerError: shapes do not match");
  // tr(Δ H Δᵀ) = Σ (Δ H) ∘ Δ. A report, not part of the solve: the product runs in float32 on
  // oneDNN (Eigen's fp64 product of a 2048-feature layer cost as much as its solve), the sum in
  // fp64.
  const RowMajorMatrixXf delta = W - W_hat;
  const RowMajorMatrixXf h = H.cast<float>();
  RowMajorMatrixXf product(delta.rows(), delta.cols());
  const dnnl_status_t status = dnnl_sgemm('N', 'N', delta.rows(), h.cols(), delta.cols(), 1.0f, delta.data(),
                                          delta.cols(), h.data(), h.cols(), 0.0f, product.data(), product.cols());
  if (status != dnnl_success)
    throw std::runtime_error("GPTQ layerError: oneDNN sgemm failed (status " + std::to_string(static_cast<int>(status)) + ")");
  return product.cast<double>().cwiseProduct(delta.cast<double>()).sum();
}

} // namespace tico::gptq
