// GPTQ numerical core (Frantar et al., arXiv 2210.17323): the weight grid, the Hessian of a
// layer's inputs, and the column-by-column quantization with error feedback.
//
// Self-contained on purpose (Eigen only; no tico core, torch or logging headers): the quantizer
// plugin owns graph access, calibration and reporting, and links this library statically. The
// arithmetic follows the original converter's GPTQ (IST-DASLab code as shipped in TICO), so a
// layer quantized here and there gets the same codes up to floating-point round-off; the few
// places where this library deliberately differs are named at the option that controls them.
//
// Conventions (docs: /work/shared/reference/quantization.md §1-2):
//   - W is r x c: one row per output channel, one column per input feature (a conv weight
//     [O, C/groups, kh, kw] flattened to [O, C/groups*kh*kw], matching unfoldConv2d's features).
//   - Codes are unsigned, 0 .. 2^bits-1, and real = scale * (code - zero). Symmetric grids put
//     zero at 2^(bits-1); toSignedCodes/toCircle convert that to signed storage with zp 0.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

namespace tico::gptq {

using RowMajorMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// Row-major because Circle weights are [out, in] row-major: codes can be copied out directly.
using CodeMatrix = Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// How a grid is fitted to weights.
struct GridOptions {
  // Code width; 1..16. Codes are 0 .. 2^bits-1 (int32 holds every width).
  int bits = 4;
  // Symmetric range [-max|w|, max|w|] with zero = 2^(bits-1). Note the original's rule, kept
  // for parity: a row without negative values keeps its lower bound at 0, so only the upper
  // half of the codes is used for it.
  bool symmetric = false;
  // One grid per row (output channel). false: one range over the whole matrix, still reported
  // once per row (all rows equal), so consumers never special-case per-tensor.
  bool per_channel = true;
  // Search shrunken ranges p*[min, max], p = 1, 1-1/mse_grid, ... (mse_max_shrink*mse_grid
  // candidates) and keep the one with the least sum |fq(w) - w|^mse_norm per row: clipping
  // outliers often lowers the error of all other weights. Off: plain min/max.
  bool mse = false;
  float mse_norm = 2.4f;
  int mse_grid = 100;
  double mse_max_shrink = 0.8;
};

// Per-column importance for a weighted shrink search (GPTQ's `smse`): the error of column j
// counts column_weights[j] times. Empty: every column counts once.
using ColumnWeights = Eigen::VectorXf;

// An affine grid per row: real = scale[r] * (code - zero[r]).
struct Grid {
  int bits = 0;
  bool symmetric = false;
  std::vector<float> scale;  // > 0, one per row
  std::vector<float> zero;   // integer-valued, in [0, maxCode()], one per row (float like the
                             // original so the arithmetic below matches it bit for bit)

  int32_t maxCode() const { return (int32_t{1} << bits) - 1; }
  Eigen::Index rows() const { return static_cast<Eigen::Index>(scale.size()); }
  // Nearest code (ties to even, as torch.round), clamped to the grid.
  int32_t code(Eigen::Index row, float w) const;
  float dequantize(Eigen::Index row, int32_t code) const;
  float fakeQuantize(Eigen::Index row, float w) const { return dequantize(row, code(row, w)); }
};

// Fits one grid per row of W (or one for all of W, see GridOptions::per_channel), exactly as
// the original's weight quantizer: the range always contains 0; an all-zero range becomes
// [-1, 1] so the scale is never 0. Throws std::invalid_argument for bad options or an empty W.
Grid fitGrid(const Eigen::Ref<const Eigen::MatrixXf> &W, const GridOptions &options);
// The same with the shrink search's error weighted per column (one non-negative weight per column
// of W; used only when options.mse is set): sum_j column_weights[j] * |fq(w_j) - w_j|^mse_norm.
Grid fitGrid(const Eigen::Ref<const Eigen::MatrixXf> &W, const GridOptions &options,
             const ColumnWeights &column_weights);

// Round-to-nearest on one grid: the baseline GPTQ is measured against.
CodeMatrix quantizeRtn(const Eigen::Ref<const Eigen::MatrixXf> &W, const Grid &grid);
// The real values of codes on one grid (per row).
Eigen::MatrixXf dequantize(const CodeMatrix &codes, const Grid &grid);

// Sum of the outer products of input samples, H = sum_n x_n x_n^T (c x c), in fp64.
// Unnormalised like TICO's accumulation (the IST reference keeps a running 2/n average instead):
// GPTQ's result does not depend on a positive factor on H because dampening is relative to the
// mean of diag(H), so the cheaper sum is kept. fp64 so that millions of samples lose nothing.
class HessianAccumulator {
public:
  explicit HessianAccumulator(Eigen::Index columns);

  // Adds `rows` samples of `columns()` features each, row-major (a linear layer's flattened
  // inputs, or unfoldConv2d's patches). `batch_items` counts them the way the original counts
  // nsamples (the leading dimension of the layer input of this call), for reporting only.
  void addBatch(const float *samples, Eigen::Index rows, int64_t batch_items = 1);
  void addBatch(const Eigen::Ref<const RowMajorMatrixXf> &samples, int64_t batch_items = 1);

  Eigen::Index columns() const { return columns_; }
  int64_t batchItems() const { return batch_items_; }
  int64_t sampleRows() const { return sample_rows_; }
  // The full symmetric H.
  Eigen::MatrixXd hessian() const;

private:
  Eigen::Index columns_;
  void flush() const; // adds the float32 partial sum into lower_
  // Only the lower triangles are computed and read. hessian() flushes, hence mutable.
  mutable Eigen::MatrixXd lower_;
  mutable RowMajorMatrixXf pending_; // float32 partial sum of up to 1024 samples
  mutable Eigen::Index pending_rows_ = 0;
  int64_t batch_items_ = 0;
  int64_t sample_rows_ = 0;
};

// Convolution geometry for unfoldConv2d (the fields of torch.nn.Conv2d; padding is numeric and
// symmetric, "same"/"valid" must be resolved by the caller).
struct Conv2dGeometry {
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_h = 0, pad_w = 0;
  int dilation_h = 1, dilation_w = 1;
  int groups = 1;
};

// The patches a Conv2d multiplies with its flattened weight, exactly as torch.nn.Unfold after
// splitting channels into groups: input NCHW (contiguous) -> row-major
// [N*groups*out_h*out_w, (C/groups)*kh*kw], feature index (ci*kh + i)*kw + j. For groups > 1 all
// groups share one Hessian (the original's approximation: one H for the whole weight).
// Throws std::invalid_argument for inconsistent geometry.
RowMajorMatrixXf unfoldConv2d(const float *input, int n, int c, int h, int w, const Conv2dGeometry &geometry);

struct Options {
  GridOptions grid;
  // Columns updated lazily per block: a speed knob only; results do not depend on it (see
  // exact_group_refit for the one case where the original's result does).
  int block_size = 128;
  // Dampening added to diag(H), relative to mean(diag(H)); in (0, 1]. Makes H invertible and
  // regularises the error feedback.
  double percdamp = 0.01;
  // When the dampened H is not positive definite (round-off on a nearly singular H: too few
  // samples, duplicated or constant features), multiply the dampening by 10 and factor again,
  // at most this many times, instead of failing (Result::percdamp reports what was used).
  int damping_retries = 4;
  // `smse`: the shrink search (grid.mse) weights each column's squared error by the Hessian's
  // diagonal H_jj = sum x_j^2, the layer-output loss's curvature along that weight (the
  // Gauss-Newton / Fisher approximation), so inputs that carry energy decide the range. Sets the
  // error norm to 2. The original takes an externally computed per-weight sensitivity instead.
  bool sensitivity_weighted = false;
  // Quantize columns in order of decreasing diag(H) (the inputs with the most energy first, so
  // later columns can absorb their error). On by default, as in TICO (IST: off).
  bool act_order = true;
  // -1: one grid per row for all columns. > 0: a new grid per row every group_size columns
  // (in the processing order, so with act_order the groups are not contiguous in W unless
  // static_groups is set).
  int group_size = -1;
  // With groups: fit all group grids up front on the original weights (dead columns as zeros)
  // in their natural column order (groups stay contiguous, so per-block export works with
  // act_order); otherwise each
  // group's grid is fitted when the loop reaches it, from the error-updated weights. Ignored
  // without groups.
  bool static_groups = false;
  // Dynamic groups: refit on the weights as updated by every earlier column (true), which makes
  // the result independent of block_size. The original refits on the weights as they were at
  // the start of the current block (false): when a group starts inside a block (group_size not
  // a multiple of block_size) its grid misses the updates of that block's earlier columns.
  // false reproduces the original's codes exactly.
  bool exact_group_refit = true;
  // Names the layer in error messages.
  std::string label;
};

struct Result {
  CodeMatrix codes;                  // r x c, original column order
  Eigen::MatrixXf dequantized;       // W-hat = scale * (code - zero), r x c
  // One per group (one in all without groups): static groups in column order, dynamic groups
  // in the order the loop reached them.
  std::vector<Grid> grids;
  std::vector<int32_t> group_of_column;  // c entries, original column order: index into grids
  int group_size = -1;               // as requested (-1: no groups)
  std::vector<Eigen::Index> order;   // columns in the order they were quantized
  std::vector<Eigen::Index> dead_columns;  // diag(H) == 0: never seen a non-zero input
  // The loss proxy sum (w - q)^2 / U_kk^2 / 2 over all weights, with w the error-updated weight
  // at its turn: what the original prints as "error".
  double loss = 0.0;
  // The dampening that made H positive definite (relative to mean(diag H)) and how many times it
  // had to be raised from Options::percdamp.
  double percdamp = 0.0;
  int damping_retries = 0;

  // Whether grid g covers columns [g*group_size, (g+1)*group_size): per-block export needs it.
  bool contiguousGroups() const;
};

// Quantizes W (r x c) with GPTQ given H (c x c, e.g. HessianAccumulator::hessian()). H is taken
// by value and used as scratch (std::move it in to save a c x c copy). Hessian algebra runs in
// fp64, the column loop in fp32 like the original. Dead columns (diag(H) == 0) get H_dd = 1,
// take part as zeros, and are finally rounded to nearest from the original weights on their
// column's grid (with groups: the group's grid, which may clamp them; the original refuses
// dead columns with groups). Throws std::invalid_argument for bad options, shapes or non-finite
// inputs and std::runtime_error when H is not positive definite even after
// Options::damping_retries increases of the dampening.
Result quantize(const Eigen::MatrixXf &W, Eigen::MatrixXd H, const Options &options);

// The layer's output error on the calibration inputs, tr((W - W-hat) H (W - W-hat)^T) (in fp64):
// with H = sum x x^T this is sum_n |W x_n - W-hat x_n|^2, the quantity GPTQ minimises.
double layerError(const Eigen::MatrixXf &W, const Eigen::MatrixXf &W_hat, const Eigen::MatrixXd &H);

// Circle's view of a result: real = scale * (q - zero_point), per output channel
// (quantized_dimension 0) and, with groups, per contiguous group of group_size input columns.
struct CircleQuant {
  int bits = 0;
  bool is_signed = false;         // int<bits> storage (symmetric only) instead of uint<bits>
  int group_size = -1;            // -1: per channel; else per [1, group_size] block
  int quantized_dimension = 0;
  std::vector<float> scale;       // [rows][groups], row-major
  std::vector<int64_t> zero_point;
};

// Reports the result's grids in Circle's convention. signed_storage (symmetric grids only):
// codes shifted by -2^(bits-1) (see toSignedCodes) with zero point 0, i.e. int4/int8 instead
// of uint4/uint8 with zero point 2^(bits-1); the dequantized values are the same.
// Throws std::invalid_argument for groups that are not contiguous (act_order with dynamic
// groups: Circle has no per-column group index) or signed_storage on an asymmetric grid.
CircleQuant toCircle(const Result &result, bool signed_storage);
// The same for grids from elsewhere (e.g. fitGrid for round-to-nearest): grids[g] covers
// columns [g*group_size, (g+1)*group_size); group_size -1 with a single grid means per channel.
CircleQuant toCircle(const std::vector<Grid> &grids, int group_size, bool signed_storage);

// Unsigned symmetric codes (zero = 2^(bits-1)) -> signed codes with zero point 0.
CodeMatrix toSignedCodes(const CodeMatrix &codes, int bits);

} // namespace tico::gptq
