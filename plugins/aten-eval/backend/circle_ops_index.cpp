// circle::shape (Circle SHAPE: the runtime shape as an int32 vector) and circle::gather_nd
// (TFLite GATHER_ND: the last index dim holds full coordinates into params' leading dims).
#include "circle_ops.h"

#include <limits>

namespace tico::aten_eval {

at::Tensor circleShape(CircleArgs &args) {
  at::Tensor x = args.tensor("input");
  std::vector<int32_t> dims;
  for (int64_t d : x.sizes()) {
    if (d > std::numeric_limits<int32_t>::max())
      throw args.error("dim " + std::to_string(d) + " does not fit SHAPE's int32");
    dims.push_back(static_cast<int32_t>(d));
  }
  return at::tensor(at::ArrayRef<int32_t>(dims), at::kInt).view({static_cast<int64_t>(dims.size())});
}

// out[i...] = params[indices[i..., 0], ..., indices[i..., depth-1], ...]: the coordinates are
// folded into one row number of params viewed as [rows, inner...]. A coordinate outside its dim
// is an error (Circle kernels reject it too), never a wrapped or clamped read.
at::Tensor circleGatherNd(CircleArgs &args) {
  at::Tensor params = args.tensor("params");
  at::Tensor indices = args.tensor("indices");
  if (indices.scalar_type() != at::kInt && indices.scalar_type() != at::kLong)
    throw args.error("'indices' must be int32 or int64");
  if (indices.dim() < 1)
    throw args.error("'indices' must have rank >= 1");
  const int64_t depth = indices.size(-1);
  if (depth > params.dim())
    throw args.error("indices address " + std::to_string(depth) + " dims but params has rank " +
                     std::to_string(params.dim()));
  std::vector<int64_t> out_shape(indices.sizes().begin(), indices.sizes().end() - 1);
  std::vector<int64_t> row_shape = {1};
  int64_t rows = 1;
  for (int64_t d = 0; d < depth; ++d)
    rows *= params.size(d);
  row_shape[0] = rows;
  for (int64_t d = depth; d < params.dim(); ++d) {
    out_shape.push_back(params.size(d));
    row_shape.push_back(params.size(d));
  }
  int64_t picks = 1;
  for (int64_t d = 0; d + 1 < indices.dim(); ++d)
    picks *= indices.size(d);
  at::Tensor coords = indices.to(at::kLong).reshape({picks, depth});
  at::Tensor row = at::zeros({picks}, at::kLong);
  for (int64_t d = 0; d < depth; ++d) {
    at::Tensor c = coords.select(1, d);
    if (c.numel() > 0 && (c.min().item<int64_t>() < 0 || c.max().item<int64_t>() >= params.size(d)))
      throw args.error("an index is out of range for dim " + std::to_string(d) + " of size " +
                       std::to_string(params.size(d)));
    row = row * params.size(d) + c;
  }
  return params.reshape(row_shape).index_select(0, row).reshape(out_shape);
}

} // namespace tico::aten_eval
