// Hessian accumulation from calibration inputs, and the conv patch extraction feeding it.
#include "gptq_solver.h"

#include <Eigen/Core>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tico::gptq {

HessianAccumulator::HessianAccumulator(Eigen::Index columns) : columns_(columns) {
  if (columns < 1)
    throw std::invalid_argument("GPTQ Hessian: needs at least one column, got " + std::to_string(columns));
  lower_ = Eigen::MatrixXd::Zero(columns, columns);
}

void HessianAccumulator::addBatch(const float *samples, Eigen::Index rows, int64_t batch_items) {
  if (rows < 0 || (rows > 0 && samples == nullptr))
    throw std::invalid_argument("GPTQ Hessian: bad batch");
  // Samples are multiplied in float32 on oneDNN's product (vectorised and threaded on every x86
  // CPU; Eigen's fp64 kernel ran on one core without AVX and took a third of an LLM's
  // calibration) into a float32 partial sum, which joins the fp64 accumulator every kFlush
  // samples: no entry sums more than kFlush products in float32 (the original sums every sample
  // in float32). Only the lower triangle is computed, in bands of rows.
  constexpr Eigen::Index kFlush = 1024, kBand = 256;
  if (pending_.size() == 0)
    pending_ = RowMajorMatrixXf::Zero(columns_, columns_);
  for (Eigen::Index start = 0; start < rows;) {
    const Eigen::Index n = std::min(kFlush - pending_rows_, rows - start);
    const float *x = samples + start * columns_;
    for (Eigen::Index r0 = 0; r0 < columns_; r0 += kBand) {
      const Eigen::Index m = std::min(kBand, columns_ - r0);
      // pending[r0 : r0+m, 0 : r0+m] += X[:, r0 : r0+m]ᵀ X[:, 0 : r0+m]
      const dnnl_status_t status = dnnl_sgemm('T', 'N', m, r0 + m, n, 1.0f, x + r0, columns_, x, columns_, 1.0f,
                                              pending_.data() + r0 * columns_, columns_);
      if (status != dnnl_success)
        throw std::runtime_error("GPTQ Hessian: oneDNN sgemm failed (status " +
                                 std::to_string(static_cast<int>(status)) + ")");
    }
    pending_rows_ += n;
    start += n;
    if (pending_rows_ == kFlush)
      flush();
  }
  sample_rows_ += rows;
  batch_items_ += batch_items;
}

void HessianAccumulator::flush() const {
  if (pending_rows_ == 0)
    return;
  lower_.triangularView<Eigen::Lower>() += pending_.cast<double>();
  pending_.setZero();
  pending_rows_ = 0;
}

void HessianAccumulator::addBatch(const Eigen::Ref<const RowMajorMatrixXf> &samples, int64_t batch_items) {
  if (samples.cols() != columns_)
    throw std::invalid_argument("GPTQ Hessian: batch has " + std::to_string(samples.cols()) + " features, expected " +
                                std::to_string(columns_));
  if (samples.outerStride() != columns_) {
    const RowMajorMatrixXf packed = samples;
    addBatch(packed.data(), packed.rows(), batch_items);
    return;
  }
  addBatch(samples.data(), samples.rows(), batch_items);
}

Eigen::MatrixXd HessianAccumulator::hessian() const {
  flush();
  Eigen::MatrixXd full = lower_.selfadjointView<Eigen::Lower>();
  return full;
}

RowMajorMatrixXf unfoldConv2d(const float *input, int n, int c, int h, int w, const Conv2dGeometry &g) {
  if (n < 0 || c < 1 || h < 1 || w < 1 || g.kernel_h < 1 || g.kernel_w < 1 || g.stride_h < 1 || g.stride_w < 1 ||
      g.pad_h < 0 || g.pad_w < 0 || g.dilation_h < 1 || g.dilation_w < 1 || g.groups < 1 || c % g.groups != 0)
    throw std::invalid_argument("unfoldConv2d: inconsistent geometry (channels " + std::to_string(c) + ", groups " +
                                std::to_string(g.groups) + ")");
  const int span_h = g.dilation_h * (g.kernel_h - 1) + 1;
  const int span_w = g.dilation_w * (g.kernel_w - 1) + 1;
  if (h + 2 * g.pad_h < span_h || w + 2 * g.pad_w < span_w)
    throw std::invalid_argument("unfoldConv2d: the kernel is larger than the padded input");
  const int out_h = (h + 2 * g.pad_h - span_h) / g.stride_h + 1;
  const int out_w = (w + 2 * g.pad_w - span_w) / g.stride_w + 1;
  const int group_channels = c / g.groups;
  const Eigen::Index patches = static_cast<Eigen::Index>(out_h) * out_w;
  const Eigen::Index features = static_cast<Eigen::Index>(group_channels) * g.kernel_h * g.kernel_w;

  RowMajorMatrixXf out(static_cast<Eigen::Index>(n) * g.groups * patches, features);
  for (int b = 0; b < n; ++b)
    for (int grp = 0; grp < g.groups; ++grp)
      for (int oy = 0; oy < out_h; ++oy)
        for (int ox = 0; ox < out_w; ++ox) {
          // Row order = torch's (batch*groups, patch) flattening; H does not depend on it,
          // the tests compare against it.
          const Eigen::Index row = (static_cast<Eigen::Index>(b) * g.groups + grp) * patches +
                                   static_cast<Eigen::Index>(oy) * out_w + ox;
          float *dst = &out(row, 0);
          for (int ci = 0; ci < group_channels; ++ci) {
            const float *plane = input + (static_cast<std::size_t>(b) * c + grp * group_channels + ci) *
                                             static_cast<std::size_t>(h) * w;
            for (int i = 0; i < g.kernel_h; ++i) {
              const int y = oy * g.stride_h - g.pad_h + i * g.dilation_h;
              for (int j = 0; j < g.kernel_w; ++j) {
                const int x = ox * g.stride_w - g.pad_w + j * g.dilation_w;
                *dst++ = (y >= 0 && y < h && x >= 0 && x < w) ? plane[static_cast<std::size_t>(y) * w + x] : 0.0f;
              }
            }
          }
        }
  return out;
}

} // namespace tico::gptq
