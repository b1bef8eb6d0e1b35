// Registers the bundled calibration sources; each lives in its own file.
#include "sources.h"

#include <tico/plugin/plugin.h>

namespace {

void registerPlugin(tico::Registrar &registrar) {
  for (auto make : {tico::calib::npySource, tico::calib::npzSource, tico::calib::tokenIdsSource,
                    tico::calib::randomSource, tico::calib::exampleInputsSource})
    registrar.addCalibrationSource(make());
}

} // namespace

TICO_PLUGIN("calibration-sources", "0.1.0", "Apache-2.0", registerPlugin)
