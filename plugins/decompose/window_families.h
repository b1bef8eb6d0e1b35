// The rule families windowRules() (window_rules.cpp) gathers, one per window_*.cpp file.
#pragma once

#include "decomposition.h"

namespace tico::decompose {

std::vector<Rule> maxPoolWindowRules();       // dilation, ceil_mode windows, used indices
std::vector<Rule> avgPoolWindowRules();       // divisor_override, clipped ceil_mode windows, excluded padding
std::vector<Rule> adaptivePoolWindowRules();  // uneven adaptive_avg_pool2d, adaptive_max_pool2d, adaptive_avg_pool1d
std::vector<Rule> pool1dWindowRules();        // max_pool1d / avg_pool1d as 2-d pools
std::vector<Rule> padWindowRules();           // replicate and circular padding, negative (cropping) pads
std::vector<Rule> transposeConvWindowRules(); // dilated transposed convolution, constant weight
std::vector<Rule> im2colWindowRules();       // im2col / col2im (nn.Unfold / nn.Fold) over static sizes
std::vector<Rule> convPaddingWindowRules();   // conv1d/2d/3d padding modes ('same', 'valid') made explicit

} // namespace tico::decompose
