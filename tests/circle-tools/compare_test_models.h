// Models for the `tico-circle compare` tests (make_circle_test_models writes them):
//
//   mlp_float.circle       x[4,16] -> fc1 (relu) -> h1 -> fc2 (relu) -> h2 -> fc3 -> y[4,8], float32
//   mlp_quant.circle       the same MLP quantized the way the ptq pipeline writes it: QUANTIZE x -> x_q
//                          (uint8), uint8 FULLY_CONNECTED with per-channel uint8 weights '<w>_codes' and
//                          int32 biases '<b>_quantized', outputs h1, h2, y (uint8), DEQUANTIZE -> y_dq
//   mlp_defect.circle      mlp_quant with the planted defect: fc2's weight scales (every channel)
//                          multiplied by 4 (its bias scales too, which the kernel requires to be input
//                          scale x weight scale); everything before fc2 is unchanged
//   mlp_quant_io.circle    mlp_quant taking x as uint8 codes (no QUANTIZE), as quantized-model-io writes it
//   mlp_renamed.circle     mlp_float with every tensor renamed: no names in common
//   mlp_x.npy              the input (also as mlp_inputs/x.npy, for --inputs-dir); mlp_y_ref.npy: y computed here in double precision from the
//                          float weights (an independent reference for the SQNR of y)
//   mlp_quant.encodings.json  what tico-run --encodings writes for mlp_quant, with gptq-style
//                          error_ratio metrics
#pragma once

#include <filesystem>

namespace tico::circle_tools_test {

void writeCompareTestModels(const std::filesystem::path &dir);

} // namespace tico::circle_tools_test
