// Registration record of a runtime (see runtime.h for the interface).
#pragma once

#include "tico/pass/options.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

class Runtime;

struct RuntimeSpec {
  std::string name;    // selects it: `tico-circle run --runtime NAME`, fold-constants' `runtime`
  std::string summary; // one line for listings
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<Runtime>(const Options &)> create;
};

} // namespace tico
