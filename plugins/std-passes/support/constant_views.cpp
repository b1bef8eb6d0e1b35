#include "constant_views.h"

#include "tico/support/error.h"

#include <optional>

namespace tico::passes {
namespace {

std::shared_ptr<TensorData> sameStorage(const TensorData &data) {
  auto view = std::make_shared<TensorData>();
  view->storage = data.storage;
  view->dtype = data.dtype;
  view->storage_offset = data.storage_offset;
  return view;
}

// Strides for viewing (sizes, strides) as `shape` without moving data, following the rule
// PyTorch's view() applies: dims may be merged or split only inside runs of dims that are
// contiguous with each other.
std::optional<std::vector<int64_t>> viewStrides(const std::vector<int64_t> &sizes, const std::vector<int64_t> &strides,
                                                const std::vector<int64_t> &shape) {
  int64_t numel = 1;
  for (int64_t s : sizes)
    numel *= s;
  if (numel == 0 || sizes.empty())
    return TensorData::contiguousStrides(shape);
  std::vector<int64_t> out(shape.size(), 0);
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= sizes[tensor_d];
    bool chunk_ends =
        tensor_d == 0 || (sizes[tensor_d - 1] != 1 && strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends)
      continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
      out[view_d] = view_numel * chunk_base_stride;
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel)
      return std::nullopt;
    if (tensor_d > 0) {
      chunk_base_stride = strides[tensor_d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1)
    return std::nullopt;
  return out;
}

} // namespace

DataPtr permuteView(const TensorData &data, const std::vector<int64_t> &perm) {
  auto view = sameStorage(data);
  for (int64_t p : perm) {
    view->sizes.push_back(data.sizes.at(static_cast<std::size_t>(p)));
    view->strides.push_back(data.strides.at(static_cast<std::size_t>(p)));
  }
  return view;
}

DataPtr unsqueezeView(const TensorData &data, int64_t dim) {
  auto view = sameStorage(data);
  view->sizes = data.sizes;
  view->strides = data.strides;
  // The stride of a size-1 dim is never used to address; PyTorch picks size*stride of the next.
  std::size_t d = static_cast<std::size_t>(dim);
  int64_t stride = d < data.sizes.size() ? data.sizes[d] * data.strides[d] : 1;
  view->sizes.insert(view->sizes.begin() + dim, 1);
  view->strides.insert(view->strides.begin() + dim, stride);
  return view;
}

DataPtr squeezeView(const TensorData &data, const std::vector<int64_t> &dims) {
  auto view = sameStorage(data);
  for (std::size_t i = 0; i < data.sizes.size(); ++i) {
    bool drop = false;
    for (int64_t d : dims)
      drop |= static_cast<std::size_t>(d) == i;
    if (drop) {
      if (data.sizes[i] != 1)
        throw Error("squeezeView: dim " + std::to_string(i) + " has size " + std::to_string(data.sizes[i]));
      continue;
    }
    view->sizes.push_back(data.sizes[i]);
    view->strides.push_back(data.strides[i]);
  }
  return view;
}

DataPtr sliceView(const TensorData &data, int64_t dim, int64_t start, int64_t end, int64_t step) {
  auto view = sameStorage(data);
  view->sizes = data.sizes;
  view->strides = data.strides;
  std::size_t d = static_cast<std::size_t>(dim);
  int64_t length = end > start ? (end - start + step - 1) / step : 0;
  if (length > 0)
    view->storage_offset += start * data.strides[d];
  view->sizes[d] = length;
  view->strides[d] = data.strides[d] * step;
  return view;
}

DataPtr selectView(const TensorData &data, int64_t dim, int64_t index) {
  auto view = sameStorage(data);
  std::size_t d = static_cast<std::size_t>(dim);
  view->storage_offset += index * data.strides[d];
  for (std::size_t i = 0; i < data.sizes.size(); ++i) {
    if (i == d)
      continue;
    view->sizes.push_back(data.sizes[i]);
    view->strides.push_back(data.strides[i]);
  }
  return view;
}

DataPtr reshapeView(const TensorData &data, const std::vector<int64_t> &sizes) {
  auto strides = viewStrides(data.sizes, data.strides, sizes);
  if (!strides)
    return nullptr;
  auto view = sameStorage(data);
  view->sizes = sizes;
  view->strides = std::move(*strides);
  return view;
}

} // namespace tico::passes
