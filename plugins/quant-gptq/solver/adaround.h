// AdaRound (Nagel et al. 2020, arXiv 2004.10568): learn, per weight, whether to round down or
// up on a fixed grid, minimising the layer's output error on calibration data.
//
// The layer-output error of a linear map is a quadratic form in the weight error:
//   sum_n |W x_n - W~ x_n|^2 = tr((W - W~) H (W - W~)^T),  H = sum_n x_n x_n^T,
// so the optimisation needs the layer's Hessian (the same H GPTQ accumulates), not the inputs
// themselves: one c x c matrix however many calibration samples there are. Each step costs one
// (rows x c) by (c x c) product.
//
// W~ = scale * (clamp(floor(W / scale) + zero + h(V), 0, maxq) - zero), with the rectified
// sigmoid h(V) = clamp(sigmoid(V) (zeta - gamma) + gamma, 0, 1), zeta = 1.1, gamma = -0.1, V
// initialised so that h equals the fractional part (W~ = W at the start, inside the grid). The
// loss is tr(dW H dW^T) / samples + lambda * sum(1 - |2h - 1|^beta), the regulariser switched on
// after a warm-up and beta annealed from beta_start to beta_end, Adam on V. At the end h is
// rounded to {0, 1}: every code is the floor or the ceiling of the weight on the grid.
#pragma once

#include "gptq_solver.h"

namespace tico::gptq {

struct AdaRoundOptions {
  int iterations = 1000;
  float learning_rate = 1e-2f;  // Adam on V
  double regularization = 0.01; // lambda
  double warmup = 0.2;          // fraction of iterations without the rounding regulariser
  double beta_start = 20.0, beta_end = 2.0;
  std::string label;            // names the layer in errors
};

struct AdaRoundResult {
  CodeMatrix codes;               // r x c, each floor or ceil of W / scale + zero, clamped
  Eigen::MatrixXf dequantized;
  double initial_error = 0.0;     // tr(dW H dW^T) of round-to-nearest on `grid`
  double final_error = 0.0;       // the same for the learned rounding
  Eigen::Index flipped = 0;       // codes that differ from round-to-nearest
};

// H: the layer's input Hessian (c x c, sum of x x^T over `samples` rows; the loss is divided by
// it so lambda keeps the paper's meaning of a per-sample error). Throws std::invalid_argument for
// shapes or options that do not fit.
AdaRoundResult adaround(const Eigen::MatrixXf &W, const Grid &grid, const Eigen::MatrixXd &H, double samples,
                        const AdaRoundOptions &options);

} // namespace tico::gptq
