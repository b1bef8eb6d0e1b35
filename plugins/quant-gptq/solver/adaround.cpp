// AdaRound's optimisation on the layer Hessian (see adaround.h).
#include "adaround.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tico::gptq {
namespace {

constexpr float kZeta = 1.1f, kGamma = -0.1f;

void validate(const Eigen::MatrixXf &W, const Grid &grid, const Eigen::MatrixXd &H, double samples,
              const AdaRoundOptions &o) {
  const std::string where = "AdaRound" + (o.label.empty() ? std::string() : " (" + o.label + ")") + ": ";
  if (W.size() == 0)
    throw std::invalid_argument(where + "empty weight");
  if (grid.rows() != W.rows())
    throw std::invalid_argument(where + "the grid has " + std::to_string(grid.rows()) + " rows, the weight " +
                                std::to_string(W.rows()));
  if (H.rows() != W.cols() || H.cols() != W.cols())
    throw std::invalid_argument(where + "Hessian is " + std::to_string(H.rows()) + "x" + std::to_string(H.cols()) +
                                ", expected " + std::to_string(W.cols()) + "x" + std::to_string(W.cols()));
  if (!(samples > 0.0))
    throw std::invalid_argument(where + "the Hessian must come from at least one sample");
  if (o.iterations < 0 || !(o.learning_rate > 0.0f) || !(o.regularization >= 0.0) ||
      !(o.warmup >= 0.0 && o.warmup < 1.0) || !(o.beta_start >= o.beta_end && o.beta_end > 0.0))
    throw std::invalid_argument(where + "iterations >= 0, learning_rate > 0, regularization >= 0, warmup in [0, 1) "
                                        "and beta_start >= beta_end > 0 are required");
  if (!W.allFinite() || !H.allFinite())
    throw std::invalid_argument(where + "weight or Hessian has NaN or infinite values");
}

// out = a * b for row-major float matrices (a: m x k, b: k x n), on oneDNN like the solver's
// other products.
void multiply(const RowMajorMatrixXf &a, const RowMajorMatrixXf &b, RowMajorMatrixXf &out) {
  out.resize(a.rows(), b.cols());
  const dnnl_status_t status = dnnl_sgemm('N', 'N', a.rows(), b.cols(), a.cols(), 1.0f, a.data(), a.cols(), b.data(),
                                          b.cols(), 0.0f, out.data(), out.cols());
  if (status != dnnl_success)
    throw std::runtime_error("AdaRound: oneDNN sgemm failed (status " + std::to_string(static_cast<int>(status)) + ")");
}

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

} // namespace

AdaRoundResult adaround(const Eigen::MatrixXf &W, const Grid &grid, const Eigen::MatrixXd &H, double samples,
                        const AdaRoundOptions &options) {
  validate(W, grid, H, samples, options);
  const Eigen::Index rows = W.rows(), cols = W.cols();
  const float max_code = static_cast<float>(grid.maxCode());

  // floor(w / scale) + zero and the fractional part that initialises V.
  RowMajorMatrixXf floor_code(rows, cols), V(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index k = 0; k < cols; ++k) {
      const float x = W(r, k) / grid.scale[r];
      const float f = std::floor(x);
      floor_code(r, k) = f + grid.zero[r];
      // h(V) = rest needs sigmoid(V) = (rest - gamma) / (zeta - gamma), inside (0, 1) for rest in [0, 1).
      const float rest = std::clamp(x - f, 0.0f, 1.0f);
      const float p = (rest - kGamma) / (kZeta - kGamma);
      V(r, k) = std::log(p / (1.0f - p));
    }

  const RowMajorMatrixXf h_matrix = H.cast<float>();
  const RowMajorMatrixXf w_rows = W;
  RowMajorMatrixXf delta(rows, cols), product, sig(rows, cols), m = RowMajorMatrixXf::Zero(rows, cols),
                                                             v = RowMajorMatrixXf::Zero(rows, cols);
  const float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  float beta1_power = 1.0f, beta2_power = 1.0f;
  const float gradient_scale = static_cast<float>(2.0 / samples);
  const int warmup_iterations = static_cast<int>(options.warmup * options.iterations);
  for (int it = 0; it < options.iterations; ++it) {
    // The soft weights and their error. The element-wise loops split rows over OpenMP threads
    // (each writes only its own rows); the product runs on oneDNN's.
#pragma omp parallel for schedule(static)
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index k = 0; k < cols; ++k) {
        sig(r, k) = sigmoid(V(r, k));
        const float h = std::clamp(sig(r, k) * (kZeta - kGamma) + kGamma, 0.0f, 1.0f);
        const float code = std::clamp(floor_code(r, k) + h, 0.0f, max_code);
        delta(r, k) = grid.scale[r] * (code - grid.zero[r]) - w_rows(r, k);
      }
    multiply(delta, h_matrix, product);  // d(tr(dW H dW^T))/dW = 2 dW H
    const bool regularize = it >= warmup_iterations && options.regularization > 0.0;
    double beta = options.beta_start;
    if (regularize) {
      const double progress =
          static_cast<double>(it - warmup_iterations) / std::max(1, options.iterations - warmup_iterations);
      beta = options.beta_end + (options.beta_start - options.beta_end) * std::max(0.0, 1.0 - progress);
    }
    beta1_power *= beta1;
    beta2_power *= beta2;
    const float step = options.learning_rate * std::sqrt(1.0f - beta2_power) / (1.0f - beta1_power);
#pragma omp parallel for schedule(static)
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index k = 0; k < cols; ++k) {
        const float s = sig(r, k);
        const float h_raw = s * (kZeta - kGamma) + kGamma;
        if (h_raw <= 0.0f || h_raw >= 1.0f) {
          // The rectifier is flat there: no gradient reaches V, but Adam's moments still decay.
          m(r, k) *= beta1;
          v(r, k) *= beta2;
          continue;
        }
        const float code = floor_code(r, k) + h_raw;
        float grad_h = (code >= 0.0f && code <= max_code) ? gradient_scale * product(r, k) * grid.scale[r] : 0.0f;
        if (regularize) {
          // d/dh (1 - |2h - 1|^beta) = -2 beta |2h - 1|^(beta - 1) sign(2h - 1)
          const float x = 2.0f * h_raw - 1.0f;
          const float magnitude = std::pow(std::fabs(x), static_cast<float>(beta - 1.0));
          grad_h += static_cast<float>(options.regularization) * -2.0f * static_cast<float>(beta) * magnitude *
                    (x >= 0.0f ? 1.0f : -1.0f);
        }
        const float g = grad_h * s * (1.0f - s) * (kZeta - kGamma);
        m(r, k) = beta1 * m(r, k) + (1.0f - beta1) * g;
        v(r, k) = beta2 * v(r, k) + (1.0f - beta2) * g * g;
        V(r, k) -= step * m(r, k) / (std::sqrt(v(r, k)) + epsilon);
      }
  }

  AdaRoundResult result;
  result.codes.resize(rows, cols);
  const CodeMatrix nearest_codes = quantizeRtn(W, grid);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index k = 0; k < cols; ++k) {
      // h >= 1/2 exactly when sigmoid(V) >= 1/2 (the rectified sigmoid is symmetric about it).
      const float up = V(r, k) >= 0.0f ? 1.0f : 0.0f;
      result.codes(r, k) = static_cast<int32_t>(std::clamp(floor_code(r, k) + up, 0.0f, max_code));
    }
  result.flipped = (result.codes.array() != nearest_codes.array()).count();
  result.dequantized = dequantize(result.codes, grid);
  const Eigen::MatrixXf nearest = dequantize(nearest_codes, grid);
  result.initial_error = layerError(W, nearest, H);
  result.final_error = layerError(W, result.dequantized, H);
  return result;
}

} // namespace tico::gptq
