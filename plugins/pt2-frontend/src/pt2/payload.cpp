#include "pt2/payload.h"

#include "tico/support/checked.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <limits>

namespace tico::pt2 {
namespace {

// TensorData::checkBounds does its arithmetic in int64; refuse views whose extent would
// overflow it before asking (the numbers come straight from the file).
bool viewExtentFits(const TensorData &t) {
  int64_t extent = t.storage_offset;
  if (extent < 0)
    return false;
  for (std::size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] == 0)
      return true;
    if (t.strides[i] == std::numeric_limits<int64_t>::min())
      return false;
    const int64_t stride = t.strides[i] < 0 ? -t.strides[i] : t.strides[i];
    auto reach = checkedMul(t.sizes[i] - 1, stride);
    auto end = reach ? checkedAdd(extent, *reach) : std::nullopt;
    if (!end)
      return false;
    extent = *end;
  }
  return true;
}

} // namespace

PayloadStore::PayloadStore(const Archive &archive, std::string folder)
    : archive_(archive), folder_(std::move(folder)) {
  const std::string model = archive.modelName();
  config_name_ = "data/" + folder_ + "/" + model + "_" + folder_ + "_config.json";
  const ZipEntry *entry = archive.find(config_name_);
  if (!entry) {
    // Early 2025 writers pickled the whole state dict into data/weights/<model>.pt.
    std::string legacy = "data/" + folder_ + "/" + model + ".pt";
    if (archive.find(legacy))
      throw Error(legacy + " holds the " + folder_ +
                  " in the legacy pickled layout (PyTorch before 2.9), which is not supported; "
                  "re-export the model with PyTorch 2.13");
    return;
  }
  config_json_ = parseJson(archive.checkedBytes(*entry), config_name_);
  const Json &config = asObject(field(config_json_, "config", config_name_), config_name_ + " 'config'");
  for (auto it = config.begin(); it != config.end(); ++it)
    config_.emplace(it.key(), &it.value());
}

std::shared_ptr<const Storage> PayloadStore::storage(const std::string &path_name, const std::string &context) {
  auto found = storages_.find(path_name);
  if (found != storages_.end())
    return found->second;
  if (path_name.empty() || path_name.find('/') != std::string::npos || path_name == "." || path_name == "..")
    throw Error(context + ": invalid payload file name '" + path_name + "'");
  const std::string entry_name = "data/" + folder_ + "/" + path_name;
  const ZipEntry *entry = archive_.find(entry_name);
  if (!entry)
    throw Error(context + ": payload file " + entry_name + " is missing from the archive");
  auto storage = archive_.image().slice(entry->offset, entry->size);
  storages_.emplace(path_name, storage);
  return storage;
}

std::shared_ptr<const TensorData> PayloadStore::tensor(const std::string &fqn, const std::string &what) {
  if (auto it = tensors_.find(fqn); it != tensors_.end())
    return it->second;
  auto it = config_.find(fqn);
  if (it == config_.end())
    throw Error(what + " is not in " + (config_json_.is_null() ? "the archive (no " + config_name_ + ")" : config_name_));
  const Json &meta = asObject(*it->second, config_name_ + " '" + fqn + "'");
  const std::string context = what + " (" + config_name_ + ")";

  if (const Json *pickled = optionalField(meta, "use_pickle"); pickled && asBool(*pickled, context))
    throw Error("tensor subclass '" + fqn + "' is pickled; not supported (" + what +
                " is a tensor subclass saved with torch.save)");
  const Json *tensor_meta = optionalField(meta, "tensor_meta");
  if (!tensor_meta)
    throw Error(context + ": no tensor_meta (not a tensor)");
  const std::string &path_name = asString(field(meta, "path_name", context), context + " path_name");

  TensorData t;
  t.dtype = scalarTypeFromCode(asInt(field(*tensor_meta, "dtype", context), context), context);
  t.sizes = concreteSymInts(field(*tensor_meta, "sizes", context), context + " sizes");
  t.strides = concreteSymInts(field(*tensor_meta, "strides", context), context + " strides");
  t.storage_offset = concreteSymInt(field(*tensor_meta, "storage_offset", context), context + " storage_offset");
  if (const Json *layout = optionalField(*tensor_meta, "layout");
      layout && layoutFromCode(asInt(*layout, context), context) != Layout::Strided)
    throw Error(context + ": only strided (dense) tensors are supported, not layout code " + layout->dump());
  if (const Json *device = optionalField(*tensor_meta, "device")) {
    // Weights exported on a GPU are saved as plain bytes all the same; tico runs on the host.
    if (const Json *type = optionalField(*device, "type"); type && type->is_string() && *type != "cpu") {
      TICO_DEBUG << fqn << " was saved from device '" << type->get<std::string>() << "'; reading it as cpu";
    }
  }
  if (t.sizes.size() != t.strides.size())
    throw Error(context + ": " + std::to_string(t.sizes.size()) + " sizes but " +
                std::to_string(t.strides.size()) + " strides");
  for (int64_t s : t.sizes)
    if (s < 0)
      throw Error(context + ": negative size " + std::to_string(s));
  // PyTorch has no negative strides (flip copies), so an archive that holds one is damaged.
  for (std::size_t i = 0; i < t.strides.size(); ++i)
    if (t.strides[i] < 0)
      throw Error(context + ": negative stride " + std::to_string(t.strides[i]) + " in dimension " +
                  std::to_string(i) + " (PyTorch tensors never have negative strides)");

  auto storage_ptr = storage(path_name, context);
  const std::size_t esize = elementSize(t.dtype);
  if (storage_ptr->size() == 0) {
    // Fake and empty tensors are saved as 0-byte files; torch.export.load makes zeros.
    const int64_t nbytes = checkedByteSize(t.sizes, esize, context);
    auto zeros = std::make_shared<TensorData>(
        TensorData::fromBytes(t.dtype, t.sizes, std::vector<std::byte>(static_cast<std::size_t>(nbytes))));
    tensors_.emplace(fqn, zeros);
    return zeros;
  }
  if (storage_ptr->size() % esize != 0)
    throw Error(context + ": payload file data/" + folder_ + "/" + path_name + " has " +
                std::to_string(storage_ptr->size()) + " bytes, not a multiple of the " + std::to_string(esize) +
                "-byte element size of " + std::string(torchDTypeName(t.dtype)));
  t.storage = std::move(storage_ptr);
  if (!viewExtentFits(t))
    throw Error(context + ": tensor view (offset " + std::to_string(t.storage_offset) +
                ") reaches outside its storage (data/" + folder_ + "/" + path_name + ")");
  try {
    t.checkBounds();
  } catch (const Error &e) {
    throw Error(context + ": " + e.what() + " (data/" + folder_ + "/" + path_name + ")");
  }
  auto view = std::make_shared<const TensorData>(std::move(t));
  tensors_.emplace(fqn, view);
  return view;
}

} // namespace tico::pt2
