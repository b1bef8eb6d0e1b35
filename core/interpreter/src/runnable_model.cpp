// RunnableCircleModel: the original converter's load / save / call convenience API.
#include "tico/interpreter/interpreter.h"

#include "tico/circle/reader.h"
#include "tico/circle/writer.h"

namespace tico {

RunnableCircleModel RunnableCircleModel::load(const std::string &path) {
  return RunnableCircleModel(readCircleFile(path));
}

RunnableCircleModel::RunnableCircleModel(CircleModel model)
    : model_(std::make_shared<const CircleModel>(std::move(model))) {}

void RunnableCircleModel::save(const std::string &path) const { writeCircleFile(*model_, path); }

std::vector<std::shared_ptr<const TensorData>>
RunnableCircleModel::run(const std::vector<std::shared_ptr<const TensorData>> &inputs) const {
  if (!interpreter_)
    interpreter_ = std::make_shared<CircleInterpreter>(model_);
  return interpreter_->run(inputs);
}

} // namespace tico
