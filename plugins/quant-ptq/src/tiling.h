// Granularity as tiling (FastForward's design, quantization reference §4.3): a tensor is cut
// into equal tiles, each tile gets its own parameters, and every range estimator works on the
// tiles laid out as rows ("one row per parameter"), so no estimator special-cases per-channel
// or per-block.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tico::ptq {

struct Tiling {
  enum class Kind { PerTensor, PerChannel, PerBlock } kind = Kind::PerTensor;
  int64_t axis = 0;       // per-channel: the channel dimension; per-block: the blocked dimension
  int64_t block_size = 0; // per-block
  int64_t channel_axis = -1; // per-block: a dimension that also gets one tile per index (-1: none)

  static Tiling perTensor() { return {}; }
  static Tiling perChannel(int64_t axis) { return {Kind::PerChannel, axis, 0, -1}; }
  static Tiling perBlock(int64_t axis, int64_t block_size, int64_t channel_axis) {
    return {Kind::PerBlock, axis, block_size, channel_axis};
  }
  std::string describe() const;

  // The tile shape over `shape`: the full dimension, 1 on a channel dimension, the block size
  // on the blocked one. Throws tico::Error for an axis outside the rank or a block size that
  // does not divide its dimension (blocks are never partial).
  std::vector<int64_t> tileShape(const std::vector<int64_t> &shape) const;
};

// A tensor's elements regrouped so row r holds tile r (tiles in row-major order over the tile
// grid, elements in row-major order inside the tile). When the tensor's own layout already is
// that (per tensor, or per channel on the outermost dimension) the rows are a view of the
// caller's elements and nothing is copied: a 100 MB embedding table is read where it is mapped.
// Move-only, since a view may point into `storage`.
struct TileRows {
  int64_t rows = 0;
  int64_t cols = 0;
  std::span<const float> data; // rows * cols elements, row-major
  std::vector<float> storage;  // the regrouped elements when `data` could not be a view

  TileRows() = default;
  TileRows(TileRows &&) = default; // a moved vector keeps its buffer, so `data` stays valid
  TileRows &operator=(TileRows &&) = default;
  TileRows(const TileRows &) = delete;
  TileRows &operator=(const TileRows &) = delete;

  static TileRows view(std::span<const float> values, int64_t rows, int64_t cols) {
    TileRows t;
    t.rows = rows;
    t.cols = cols;
    t.data = values;
    return t;
  }
  static TileRows owning(std::vector<float> values, int64_t rows, int64_t cols) {
    TileRows t;
    t.rows = rows;
    t.cols = cols;
    t.storage = std::move(values);
    t.data = t.storage;
    return t;
  }
  std::span<const float> row(int64_t r) const { return data.subspan(static_cast<std::size_t>(r * cols), static_cast<std::size_t>(cols)); }
};

// `values` is a row-major float tensor of `shape`; the result may view it (see TileRows).
TileRows toRows(std::span<const float> values, const std::vector<int64_t> &shape, const Tiling &tiling);

// How many parameters the tiling gives a tensor of `shape` (the rows of toRows).
int64_t parameterCount(const std::vector<int64_t> &shape, const Tiling &tiling);

} // namespace tico::ptq
