#include "client/kernel_name_column.h"

#include <utility>

#include "differ/kernel_names.h"

namespace profdiff::client {

TextTable::Column KernelNameColumn(std::string header) {
  TextTable::Column column{std::move(header), Align::kLeft};
  column.shorten = &differ::ShortenKernelNames;
  return column;
}

}  // namespace profdiff::client
