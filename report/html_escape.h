// Text made safe for HTML: element content and attribute values alike.
#ifndef PROFDIFF_REPORT_HTML_ESCAPE_H_
#define PROFDIFF_REPORT_HTML_ESCAPE_H_

#include <string>
#include <string_view>

namespace profdiff::report {

// &, <, >, " and ' as character references; everything else as it is.
std::string HtmlEscape(std::string_view text);

}  // namespace profdiff::report

#endif  // PROFDIFF_REPORT_HTML_ESCAPE_H_
