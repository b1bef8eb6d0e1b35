// The calibration sources this plugin registers (docs/quantizers.md, "Calibration data").
#pragma once

#include <tico/quant/calibration.h>

namespace tico::calib {

CalibrationSourceSpec npySource();
CalibrationSourceSpec npzSource();
CalibrationSourceSpec tokenIdsSource();
CalibrationSourceSpec randomSource();
CalibrationSourceSpec exampleInputsSource();

} // namespace tico::calib
