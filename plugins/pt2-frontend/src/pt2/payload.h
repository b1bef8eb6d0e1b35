// Weights and constants of a .pt2 archive (data/weights, data/constants).
//
// Each payload file holds a whole untyped storage; every fully-qualified name (FQN) in the
// *_config.json is a strided view into one of them. A file is mapped once as one Storage, so
// tied weights come out as two TensorData sharing a Storage, and nothing is copied.
#pragma once

#include "pt2/archive.h"
#include "pt2/json_schema.h"

#include "tico/ir/tensor_data.h"

#include <map>
#include <memory>
#include <string>

namespace tico::pt2 {

class PayloadStore {
public:
  // `folder` is "weights" or "constants". Reads data/<folder>/<model>_<folder>_config.json
  // when present; a store without config is empty. Throws tico::Error (without the file name)
  // for a malformed config or the legacy pickled weights layout.
  PayloadStore(const Archive &archive, std::string folder);

  bool contains(const std::string &fqn) const { return config_.count(fqn) != 0; }

  // The tensor saved for `fqn`, loaded on first use. `what` describes the requester in
  // messages ("parameter 'fc.weight'"). Throws tico::Error when absent or unreadable.
  std::shared_ptr<const TensorData> tensor(const std::string &fqn, const std::string &what);

private:
  std::shared_ptr<const Storage> storage(const std::string &path_name, const std::string &context);

  const Archive &archive_;
  std::string folder_;
  std::string config_name_;
  Json config_json_;
  std::map<std::string, const Json *> config_;                      // fqn -> PayloadMeta
  std::map<std::string, std::shared_ptr<const Storage>> storages_;  // path_name -> storage
  std::map<std::string, std::shared_ptr<const TensorData>> tensors_; // fqn -> view
};

} // namespace tico::pt2
