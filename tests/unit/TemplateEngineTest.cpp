#include "emit/TemplateEngine.h"

#include <gtest/gtest.h>

using namespace stencilc;

namespace {

std::string render(const std::string &text, const TemplateValues &values) {
  llvm::Expected<std::string> result = renderTemplate("t", text, values);
  if (!result)
    return "ERROR: " + llvm::toString(result.takeError());
  return *result;
}

TEST(TemplateEngine, SubstitutesInline) {
  EXPECT_EQ(render("a {{x}} b {{y}}", {{"x", "1"}, {"y", "2"}}), "a 1 b 2");
}

TEST(TemplateEngine, IndentsMultiLineValuesAloneOnTheirLine) {
  EXPECT_EQ(render("{\n  {{body}}\n}\n", {{"body", "a;\nb;\n\nc;"}}),
            "{\n  a;\n  b;\n\n  c;\n}\n");
}

TEST(TemplateEngine, DropsTheLineOfAnEmptyValue) {
  EXPECT_EQ(render("a\n  {{gone}}\nb", {{"gone", ""}}), "a\nb");
}

TEST(TemplateEngine, UnknownAndUnusedKeysAreErrors) {
  EXPECT_EQ(render("{{missing}}", {}),
            "ERROR: template 't' line 1 uses unknown key 'missing'");
  EXPECT_EQ(render("text", {{"extra", "1"}}),
            "ERROR: template 't' never uses key 'extra'");
  EXPECT_EQ(render("a {{open", {}),
            "ERROR: template 't' line 1 has an unclosed '{{'");
}

TEST(TemplateEngine, EmbeddedTemplatesExist) {
  for (const char *name : {"kernels.hip.in", "kernels.hpp.in", "tune_main.cpp.in"}) {
    llvm::Expected<llvm::StringRef> text = getTemplate(name);
    ASSERT_TRUE(static_cast<bool>(text)) << llvm::toString(text.takeError());
    EXPECT_FALSE(text->empty());
  }
  llvm::Expected<llvm::StringRef> missing = getTemplate("nope.in");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()), "no template named 'nope.in'");
}

} // namespace
