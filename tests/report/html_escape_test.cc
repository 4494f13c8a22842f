// HTML escaping (report/html_escape.h): the five characters that can end an
// attribute or start markup become character references; nothing else changes.
#include "report/html_escape.h"

#include <string>

#include <gtest/gtest.h>

namespace profdiff::report {
namespace {

TEST(HtmlEscapeTest, MarkupAndQuotesBecomeCharacterReferences) {
  EXPECT_EQ(HtmlEscape("<script>alert(\"x\" & 'y')</script>"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script"
            "&gt;");
}

TEST(HtmlEscapeTest, EverythingElsePassesUnchanged) {
  EXPECT_EQ(HtmlEscape(""), "");
  EXPECT_EQ(HtmlEscape("aten::mm [4, 4] / 100% = ok"),
            "aten::mm [4, 4] / 100% = ok");
  // UTF-8 and control bytes are not entities.
  EXPECT_EQ(HtmlEscape("\xce\x94 t\n"), "\xce\x94 t\n");
  EXPECT_EQ(HtmlEscape(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(HtmlEscapeTest, AnEscapedAmpersandIsEscapedAgain) {
  // Escaping is not idempotent: text that looks escaped is still text.
  EXPECT_EQ(HtmlEscape("&amp;"), "&amp;amp;");
  EXPECT_EQ(HtmlEscape(HtmlEscape("<")), "&amp;lt;");
}

}  // namespace
}  // namespace profdiff::report
