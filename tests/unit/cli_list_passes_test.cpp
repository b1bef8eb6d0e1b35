// tico-run --list-passes: every kind of manifest entry with its options, the lower stage's
// included (it is the core's serializer, so no plugin lists it).
#include "cli_test_support.h"

#include "tico/circle/serializer.h"
#include "tico/pass/options.h"

namespace tico::cli_test {
namespace {

TEST(ListPasses, ShowsTheLowerStageWithItsOptions) {
  ScratchDir dir;
  const ToolResult listed = runTool(TICO_RUN_PATH, {"--list-passes"}, dir.path());
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  const std::string &out = listed.output;
  const std::size_t lower = out.find("\nlower  [lower stage, core]\n");
  ASSERT_NE(lower, std::string::npos) << out;
  // Every declared option of the lower stage, with type, default and help, right under it.
  std::size_t at = out.find('\n', out.find('\n', lower + 1) + 1); // past the name and summary lines
  ASSERT_FALSE(LowerOptions::specs().empty());
  for (const OptionSpec &o : LowerOptions::specs()) {
    const std::string line = "\n      " + o.name + " (" + optionTypeName(o.type) + ", default " +
                             optionValueString(o.default_value) + ")" + (o.help.empty() ? "" : ": " + o.help);
    EXPECT_EQ(out.find(line, at), at) << out.substr(lower, 400);
    at += line.size();
  }
  EXPECT_NE(out.find("remove_constant_input (bool, default false): "), std::string::npos) << out;
  // Pipeline order: ATen-level passes before it, Circle passes after it.
  EXPECT_LT(out.find("remove-nop  [pass"), lower);
  EXPECT_GT(out.find("  [circle pass"), lower);
}

} // namespace
} // namespace tico::cli_test
