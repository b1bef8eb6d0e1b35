// didYouMean: the "(did you mean 'x'?)" hint of unknown names in manifests, configs and CLIs.
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace tico {
namespace {

const std::vector<std::string> kPasses = {"remove-nop", "fold-constants", "functionalize", "decompose-cumsum"};

TEST(DidYouMean, SuggestsTheClosestNameWithinAThirdOfTheWord) {
  EXPECT_EQ(didYouMean("remove-nopp", kPasses), " (did you mean 'remove-nop'?)");
  EXPECT_EQ(didYouMean("fold-constant", kPasses), " (did you mean 'fold-constants'?)");
  EXPECT_EQ(didYouMean("quantize", kPasses), "");
}

// A misspelt name of megabytes (a generated or corrupted manifest) once cost |word| x |choice|
// per candidate, tens of seconds; choices whose length alone rules them out are skipped.
TEST(DidYouMean, AHugeNameIsAnsweredAtOnce) {
  const std::string huge(10u << 20, 'x');
  std::vector<std::string> many;
  for (int i = 0; i < 500; ++i)
    many.push_back("pass-" + std::to_string(i));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(didYouMean(huge, many), "");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  // A hang guard, not a speed target: the unfiltered search takes about a minute here.
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 20);
}

} // namespace
} // namespace tico
