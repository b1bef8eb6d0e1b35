// The window rules: pooling, padding and transposed-convolution cases that Circle's
// MAX_POOL_2D, AVERAGE_POOL_2D, PAD/MIRROR_PAD and TRANSPOSE_CONV cannot express, rewritten
// from slices, elementwise ops, cat and constants. Each rule applies only where the Circle
// lowering would refuse the node, so the cases it takes keep their single operator.
#include "window_families.h"

namespace tico::decompose {

std::vector<Rule> windowRules() {
  std::vector<Rule> all;
  for (std::vector<Rule> family : {maxPoolWindowRules(), avgPoolWindowRules(), adaptivePoolWindowRules(),
                                   pool1dWindowRules(), padWindowRules(), transposeConvWindowRules()})
    all.insert(all.end(), family.begin(), family.end());
  return all;
}

} // namespace tico::decompose
