// Registration record of a Circle pass (see circle_pass.h for the interface).
#pragma once

#include "tico/pass/options.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

class CirclePass;

struct CirclePassSpec {
  std::string name;
  std::string summary;
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<CirclePass>(const Options &)> create;
};

} // namespace tico
