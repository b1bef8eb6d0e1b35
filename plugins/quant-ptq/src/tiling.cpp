// Tiling (tiling.h).
#include "tiling.h"

#include "tico/support/error.h"

namespace tico::ptq {

std::string Tiling::describe() const {
  switch (kind) {
  case Kind::PerTensor:
    return "per-tensor";
  case Kind::PerChannel:
    return "per-channel (axis " + std::to_string(axis) + ")";
  case Kind::PerBlock:
    return "per-block (axis " + std::to_string(axis) + ", block " + std::to_string(block_size) +
           (channel_axis >= 0 ? ", channel axis " + std::to_string(channel_axis) : std::string()) + ")";
  }
  return "?";
}

std::vector<int64_t> Tiling::tileShape(const std::vector<int64_t> &shape) const {
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> tile = shape;
  const auto checkAxis = [&](int64_t a, const char *what) {
    if (a < 0 || a >= rank)
      throw Error(std::string(what) + " " + std::to_string(a) + " is outside a tensor of rank " + std::to_string(rank));
  };
  if (kind == Kind::PerChannel) {
    checkAxis(axis, "channel axis");
    tile[axis] = 1;
  } else if (kind == Kind::PerBlock) {
    checkAxis(axis, "block axis");
    if (block_size <= 0 || shape[axis] % block_size != 0)
      throw Error("block size " + std::to_string(block_size) + " does not divide dimension " + std::to_string(axis) +
                  " of size " + std::to_string(shape[axis]));
    tile[axis] = block_size;
    if (channel_axis >= 0) {
      checkAxis(channel_axis, "channel axis");
      if (channel_axis == axis)
        throw Error("the block axis and the channel axis are both " + std::to_string(axis));
      tile[channel_axis] = 1;
    }
  }
  return tile;
}

int64_t parameterCount(const std::vector<int64_t> &shape, const Tiling &tiling) {
  const std::vector<int64_t> tile = tiling.tileShape(shape);
  int64_t rows = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    rows *= tile[d] == 0 ? 0 : shape[d] / tile[d];
  return rows;
}

TileRows toRows(std::span<const float> values, const std::vector<int64_t> &shape, const Tiling &tiling) {
  const std::vector<int64_t> tile = tiling.tileShape(shape);
  const std::size_t rank = shape.size();
  const int64_t rows = parameterCount(shape, tiling);
  int64_t cols = 1;
  for (int64_t t : tile)
    cols *= t;
  if (static_cast<int64_t>(values.size()) != rows * cols)
    throw Error("tiling " + tiling.describe() + ": " + std::to_string(values.size()) +
                " values do not fill the tensor's shape");
  // Tiles are already contiguous rows when only the outermost dimension is cut.
  bool in_place = true;
  for (std::size_t d = 1; d < rank; ++d)
    in_place &= tile[d] == shape[d];
  if (in_place)
    return TileRows::view(values, rows, cols);
  std::vector<float> out(values.size());
  std::vector<int64_t> grid(rank);
  for (std::size_t d = 0; d < rank; ++d)
    grid[d] = shape[d] / tile[d];
  // Walk the elements in row-major order with a running multi-index.
  std::vector<int64_t> index(rank, 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    int64_t row = 0, col = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      row = row * grid[d] + index[d] / tile[d];
      col = col * tile[d] + index[d] % tile[d];
    }
    out[static_cast<std::size_t>(row * cols + col)] = values[i];
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return TileRows::owning(std::move(out), rows, cols);
}

} // namespace tico::ptq
