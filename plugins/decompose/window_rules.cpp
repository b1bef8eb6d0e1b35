// The window rules: pooling, padding, transposed-convolution and im2col / col2im cases that
// Circle's MAX_POOL_2D, AVERAGE_POOL_2D, PAD/MIRROR_PAD and TRANSPOSE_CONV cannot express, rewritten
// from slices, elementwise ops, cat and constants. Each rule applies only where the Circle
// lowering would refuse the node, so the cases it takes keep their single operator. The
// exception are convolution padding modes, always made explicit (window_conv_padding.cpp) so
// that the convolution rewrites after them see one form.
#include "window_families.h"

namespace tico::decompose {

std::vector<Rule> windowRules() {
  std::vector<Rule> all;
  for (std::vector<Rule> family : {maxPoolWindowRules(), avgPoolWindowRules(), adaptivePoolWindowRules(),
                                   pool1dWindowRules(), padWindowRules(), transposeConvWindowRules(),
                                   im2colWindowRules(), convPaddingWindowRules()})
    all.insert(all.end(), family.begin(), family.end());
  return all;
}

} // namespace tico::decompose
