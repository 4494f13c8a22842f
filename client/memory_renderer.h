// The memory diff as tables (issue 24): devices with peaks and where they
// happened, and the operator and module memory rows.
#ifndef PROFDIFF_CLIENT_MEMORY_RENDERER_H_
#define PROFDIFF_CLIENT_MEMORY_RENDERER_H_

#include <string>

#include "client/text_table.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

// "Memory: baseline from [memory] events; experimental ..." (and what a missing
// source means).
std::string MemorySourceLine(const v1::MemoryDiff& memory);

// Per device: peak, average and reserved on both sides, and the op/module at
// each peak.
TextTable MemoryDevicesTable(const v1::MemoryDiff& memory);

// What was alive at each side's peak, by allocating operator.
TextTable MemoryHoldersTable(const v1::MemoryDiff& memory);

// Operator (`modules` false) or module rows; at most `max_rows` (0: all).
TextTable MemoryRowsTable(const v1::MemoryDiff& memory, bool modules,
                          size_t max_rows);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_MEMORY_RENDERER_H_
