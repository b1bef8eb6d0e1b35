// `example-inputs`: the example inputs torch.export.save stores in a .pt2 archive
// (`<root>/data/sample_inputs/model.pt`, torch.save of (args, kwargs)) as one batch. Selected
// by the location `example-inputs` (--calibration example-inputs).
#include "batch_support.h"
#include "pt2/zip_reader.h"
#include "sources.h"
#include "torch_pickle.h"

#include <tico/support/error.h>

#include <cstring>

namespace tico::calib {
namespace {

constexpr const char *kSampleInputs = "data/sample_inputs/model.pt";

// Tensors of `v` in pytree order (tuples and lists in order, dicts in insertion order).
void flatten(const PickleRef &v, const std::string &path, std::vector<TensorPtr> &out, const std::string &file) {
  switch (v->kind) {
  case PickleValue::Kind::Tensor:
    out.push_back(v->tensor);
    return;
  case PickleValue::Kind::Tuple:
  case PickleValue::Kind::List:
    for (std::size_t i = 0; i < v->items.size(); ++i)
      flatten(v->items[i], path + "[" + std::to_string(i) + "]", out, file);
    return;
  case PickleValue::Kind::Dict:
    for (std::size_t i = 0; i + 1 < v->items.size(); i += 2) {
      const PickleRef &key = v->items[i];
      flatten(v->items[i + 1], path + "[" + (key->kind == PickleValue::Kind::String ? "'" + key->text + "'" : "?") + "]",
              out, file);
    }
    return;
  default:
    throw Error(file + ": example input " + path + " is a " + kindName(v->kind) +
                "; only tensors (in tuples, lists and dicts) can be calibration inputs");
  }
}

class ExampleInputsSource : public CalibrationSource {
public:
  explicit ExampleInputsSource(const CalibrationRequest &request) : model_(request.model_path) {
    if (model_.empty())
      throw Error("example-inputs calibration data comes from the .pt2 model archive, and there is no model file");
    pt2::ArchiveImage image = pt2::ArchiveImage::open(model_);
    if (image.size() < 4 || std::memcmp(image.data(), "PK", 2) != 0)
      throw Error("example-inputs calibration data comes from a .pt2 model archive; '" + model_ + "' is not one");
    pt2::ZipReader zip(image);
    const pt2::ZipEntry *found = nullptr;
    for (const pt2::ZipEntry &e : zip.entries()) {
      const auto slash = e.name.find('/');
      if (slash != std::string::npos && e.name.substr(slash + 1) == kSampleInputs)
        found = &e;
    }
    if (!found || found->size == 0)
      throw Error("'" + model_ + "': the archive holds no example inputs (" + std::string(kSampleInputs) +
                  (found ? " is empty" : " is missing") +
                  "); export with example inputs, or give calibration data (--calibration)");
    const std::string name = model_ + ":" + found->name;
    zip.checkedBytes(*found); // a damaged byte in the example inputs would change the calibration
    PickleRef saved = loadTorchSave(pt2::ArchiveImage::borrowed(
        image.slice(static_cast<std::size_t>(found->offset), static_cast<std::size_t>(found->size)), name));
    if (saved->kind != PickleValue::Kind::Tuple || saved->items.size() != 2)
      throw Error(name + ": expected the tuple (args, kwargs), found a " + kindName(saved->kind));
    flatten(saved->items[0], "args", batch_, name);
    addKeywordInputs(saved->items[1], request.inputs, name);
    if (batch_.size() != request.inputs.size())
      throw Error(name + ": the example inputs hold " + std::to_string(batch_.size()) + " tensors, the graph takes " +
                  std::to_string(request.inputs.size()) + " inputs");
    for (std::size_t i = 0; i < batch_.size(); ++i)
      checkDType(*batch_[i], request.inputs, i, name + " tensor " + std::to_string(i));
    count_ = limitBatches(1, request);
  }

  std::size_t size() const override { return count_; }
  CalibrationBatch batch(std::size_t index) override {
    if (index >= count_)
      throw Error("example inputs: batch " + std::to_string(index) + " requested, there is one");
    return batch_;
  }
  std::string describe() const override { return "example inputs of '" + model_ + "' (1 batch)"; }

private:
  // Keyword tensors follow the positional ones in the graph's signature order, which is not
  // necessarily the order they were passed in: each remaining input takes the keyword named
  // like it.
  void addKeywordInputs(const PickleRef &kwargs, const std::vector<CalibrationInput> &inputs, const std::string &name) {
    if (kwargs->kind != PickleValue::Kind::Dict)
      throw Error(name + ": expected the tuple (args, kwargs) with a dict of kwargs, found a " + kindName(kwargs->kind));
    const std::size_t keywords = kwargs->items.size() / 2;
    if (keywords == 0)
      return;
    if (batch_.size() + keywords != inputs.size())
      throw Error(name + ": the example inputs hold " + std::to_string(batch_.size()) + " positional and " +
                  std::to_string(keywords) + " keyword arguments, the graph takes " + std::to_string(inputs.size()) +
                  " inputs");
    for (std::size_t i = batch_.size(); i < inputs.size(); ++i) {
      PickleRef value;
      for (std::size_t k = 0; k + 1 < kwargs->items.size(); k += 2)
        if (kwargs->items[k]->kind == PickleValue::Kind::String && kwargs->items[k]->text == inputs[i].name)
          value = kwargs->items[k + 1];
      if (!value || value->kind != PickleValue::Kind::Tensor)
        throw Error(name + ": " + inputLabel(inputs, i) + (value ? " is passed as a " + kindName(value->kind) :
                    " has no keyword argument of its name") + "; keyword example inputs must be tensors named like the "
                    "graph's inputs");
      batch_.push_back(value->tensor);
    }
  }

  std::string model_;
  CalibrationBatch batch_;
  std::size_t count_ = 1;
};

} // namespace

CalibrationSourceSpec exampleInputsSource() {
  return {"example-inputs",
          "the example inputs torch.export.save stored in the .pt2 archive (one batch); location 'example-inputs'",
          [](const std::string &location) { return location == "example-inputs"; },
          [](const CalibrationRequest &request) { return std::make_unique<ExampleInputsSource>(request); }};
}

} // namespace tico::calib
