#include "client/command_line.h"

#include <absl/strings/cord.h>
#include <absl/strings/match.h>

#include "base/str_cat.h"
#include "client/gate_output.h"

namespace profdiff::client {
namespace {

constexpr std::string_view kUsagePayload = "type.profdiff.dev/usage";

}  // namespace

absl::Status UsageError(std::string_view message) {
  absl::Status status = absl::InvalidArgumentError(base::ToAbsl(message));
  status.SetPayload(base::ToAbsl(kUsagePayload), absl::Cord("1"));
  return status;
}

bool WantsUsage(const absl::Status& status) {
  return status.GetPayload(base::ToAbsl(kUsagePayload)).has_value();
}

int ExitCodeOf(const absl::Status& status) {
  if (GateFailedOutput(status).has_value()) return kExitGateFailed;
  switch (status.code()) {
    case absl::StatusCode::kCancelled:
      return kExitInterrupted;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
      return 2;
    case absl::StatusCode::kInvalidArgument:
      return WantsUsage(status) || absl::StartsWith(status.message(), "--") ||
                     absl::StartsWith(status.message(), "-o ")
                 ? 2
                 : 1;
    default:
      return 1;
  }
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::set<std::string>& valued,
                                     const std::set<std::string>& switches) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      parsed.positionals.insert(parsed.positionals.end(), args.begin() + i + 1,
                                args.end());
      break;
    }
    // `-o FILE` is the one short option, of commands that write files.
    const bool short_output = arg == "-o" && valued.contains("output");
    if (!arg.starts_with("--") && !short_output) {
      parsed.positionals.push_back(arg);
      continue;
    }
    std::string name = short_output ? "output" : arg.substr(2);
    std::string value;
    const size_t eq = name.find('=');
    const bool has_inline_value = eq != std::string::npos;
    if (has_inline_value) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (switches.contains(name) && !has_inline_value) {
      parsed.options[name] = "true";
    } else if (valued.contains(name)) {
      if (!has_inline_value) {
        if (i + 1 >= args.size()) {
          return UsageError(base::StrCat("--", name, " needs a value"));
        }
        value = args[++i];
      }
      if (auto it = parsed.options.find(name); it != parsed.options.end()) {
        std::vector<std::string>& all = parsed.repeats[name];
        if (all.empty()) all.push_back(it->second);
        all.push_back(value);
      }
      parsed.options[name] = value;
    } else {
      return UsageError(base::StrCat("unknown option --", name));
    }
  }
  return parsed;
}

std::string ParsedArgs::GetList(const std::string& name,
                                const std::string& fallback) const {
  auto it = repeats.find(name);
  if (it == repeats.end()) return Get(name, fallback);
  std::string joined;
  for (const std::string& value : it->second)
    base::StrAppend(&joined, joined.empty() ? "" : ",", value);
  return joined;
}

}  // namespace profdiff::client
