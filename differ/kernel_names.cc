#include "differ/kernel_names.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <absl/container/flat_hash_map.h>

#include "base/str_cat.h"

namespace profdiff::differ {
namespace {

constexpr std::string_view kEllipsis = "...";
// A first template argument cut shorter than this tells nothing: "f<...>".
constexpr size_t kMinArgumentShown = 8;
// Under this width a cut keeps the head alone: no room for "..." and a tail.
constexpr size_t kMinCutWidth = 8;
// Under this width names kept apart print whole rather than cut around the
// part where they differ (design note 4): the two cuts would not both fit.
constexpr size_t kMinApartWidth = 20;
// How far back from the place two names differ a cut may start, to begin at
// an argument or a word ("MulFunctor<float>" rather than "lFunctor<float>").
constexpr size_t kMaxLead = 24;
// A cut apart keeps at least this much of where a name differs.
constexpr size_t kMinWindow = 12;
// Names nested deeper than this are not parsed (each level is a recursion):
// they are cut by characters like a bare name.
constexpr int kMaxNesting = 64;
// Rounds of keeping names apart; names still alike after them print whole.
constexpr int kMaxRounds = 8;

bool IsOpen(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
bool IsIdentifier(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

// A closing bracket at `i`; the '>' of "->" is none.
bool IsCloseAt(std::string_view s, size_t i) {
  const char c = s[i];
  if (c == '>') return i == 0 || s[i - 1] != '-';
  return c == ')' || c == '}' || c == ']';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Whether every bracket closes, none closes unopened, and the nesting stays
// within kMaxNesting.
bool Parsable(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsOpen(s[i])) {
      if (++depth > kMaxNesting) return false;
    } else if (IsCloseAt(s, i)) {
      if (--depth < 0) return false;
    }
  }
  return depth == 0;
}

// The index of the bracket closing the one opened at `open`, or npos.
size_t Match(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (IsOpen(s[i])) {
      ++depth;
    } else if (IsCloseAt(s, i) && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// The index of the bracket opening the one closed at `close`, or npos.
size_t MatchBack(std::string_view s, size_t close) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (IsCloseAt(s, i)) {
      ++depth;
    } else if (IsOpen(s[i]) && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// `s` split at each `sep` outside brackets.
std::vector<std::string_view> SplitTop(std::string_view s,
                                       std::string_view sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsOpen(s[i])) {
      ++depth;
    } else if (IsCloseAt(s, i)) {
      --depth;
    } else if (depth == 0 && s.substr(i).starts_with(sep)) {
      parts.push_back(s.substr(start, i - start));
      i += sep.size() - 1;
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

// The first '(' outside brackets, or npos.
size_t TopParen(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (depth == 0 && s[i] == '(') return i;
    if (IsOpen(s[i])) {
      ++depth;
    } else if (IsCloseAt(s, i)) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// A scope that is a function ("copy_kernel(at::TensorIterator&)"): what
// follows it is local to it (a lambda, operator()).
bool IsFunction(std::string_view scope) {
  scope = Trim(scope);
  const size_t paren = TopParen(scope);
  return paren != std::string_view::npos && paren > 0 && scope.front() != '{';
}

std::string CompactArgument(std::string_view argument);

// One scope of a name with whitespace removed but between two words
// ("unsigned int") and each bracketed list's items compacted.
std::string CompactScope(std::string_view scope) {
  std::string out;
  for (size_t i = 0; i < scope.size();) {
    const char c = scope[i];
    if (IsOpen(c)) {
      const size_t close = Match(scope, i);
      if (close == std::string_view::npos) {
        out.append(scope.substr(i));
        break;
      }
      out.push_back(c);
      const std::vector<std::string_view> items =
          SplitTop(scope.substr(i + 1, close - i - 1), ",");
      for (size_t k = 0; k < items.size(); ++k) {
        if (k > 0) out.push_back(',');
        out += CompactArgument(items[k]);
      }
      out.push_back(scope[close]);
      i = close + 1;
    } else if (IsSpace(c)) {
      size_t next = i;
      while (next < scope.size() && IsSpace(scope[next])) ++next;
      if (!out.empty() && next < scope.size() && IsIdentifier(out.back()) &&
          IsIdentifier(scope[next])) {
        out.push_back(' ');
      }
      i = next;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return out;
}

// A template argument without whitespace and namespaces:
// "at::native::BinaryFunctor<float, float, float, at::native::MulFunctor<float>
// >" -> "BinaryFunctor<float,float,float,MulFunctor<float>>". What is local to
// a function keeps the function ("direct_copy_kernel_cuda(...)::{lambda()#3}::
// operator()() const::{lambda(float)#1}" ->
// "direct_copy_kernel_cuda::{lambda(float)#1}"), a member of a class template
// its class ("policy_hub<long,int>::Policy1000").
std::string CompactArgument(std::string_view argument) {
  argument = Trim(argument);
  const std::vector<std::string_view> scopes = SplitTop(argument, "::");
  if (scopes.size() == 1) return CompactScope(argument);
  const size_t last = scopes.size() - 1;
  std::optional<size_t> function;
  for (size_t i = 0; i < last; ++i) {
    if (IsFunction(scopes[i])) {
      function = i;
      break;
    }
  }
  if (function) {
    size_t scope = *function;
    // A lambda inside operator(): the class says more than "operator".
    if (Trim(scopes[scope]).starts_with("operator") && scope > 0) --scope;
    std::string_view owner = Trim(scopes[scope]);
    const size_t paren = TopParen(owner);
    if (paren != std::string_view::npos && paren > 0) {
      owner = Trim(owner.substr(0, paren));
    }
    return base::StrCat(CompactScope(owner),
                        "::", CompactScope(Trim(scopes[last])));
  }
  if (Trim(scopes[last - 1]).ends_with('>')) {
    return base::StrCat(CompactScope(Trim(scopes[last - 1])),
                        "::", CompactScope(Trim(scopes[last])));
  }
  return CompactScope(Trim(scopes[last]));
}

// Design note 2: the head, "...", and the last "_" or "." part when it is a
// word of at most a third of the width.
std::string Cut(std::string_view text, size_t width) {
  if (text.size() <= width) return std::string(text);
  if (width < kMinCutWidth) return std::string(text.substr(0, width));
  size_t tail = 0;
  const size_t separator = text.find_last_of("_.");
  if (separator != std::string_view::npos && separator > 0 &&
      text.size() - separator <= width / 3 &&
      std::all_of(text.begin() + separator + 1, text.end(), IsIdentifier)) {
    tail = text.size() - separator;
  }
  return base::StrCat(text.substr(0, width - kEllipsis.size() - tail),
                      kEllipsis, text.substr(text.size() - tail));
}

// Design note 3: "_ZN2ck6device12_GLOBAL__N_16kernelIJ...EEvT_" ->
// "ck::device::(anonymous namespace)::kernel<...>"; nullopt when `name` is
// not a mangled name this reads.
std::optional<std::string> ReadableMangled(std::string_view name) {
  if (!name.starts_with("_Z")) return std::nullopt;
  size_t i = 2;
  const bool nested = i < name.size() && name[i] == 'N';
  if (nested) {
    ++i;
    // cv-qualifiers of a member function.
    while (i < name.size() &&
           (name[i] == 'K' || name[i] == 'V' || name[i] == 'r')) {
      ++i;
    }
  }
  std::vector<std::string_view> scopes;
  if (name.substr(i).starts_with("St")) {
    scopes.push_back("std");
    i += 2;
  }
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) {
    size_t length = 0;
    while (i < name.size() &&
           std::isdigit(static_cast<unsigned char>(name[i]))) {
      length = length * 10 + static_cast<size_t>(name[i] - '0');
      if (length > name.size()) return std::nullopt;
      ++i;
    }
    if (length == 0 || i + length > name.size()) return std::nullopt;
    const std::string_view id = name.substr(i, length);
    scopes.push_back(id.starts_with("_GLOBAL__N") ? "(anonymous namespace)"
                                                  : id);
    i += length;
    if (!nested) break;
  }
  if (scopes.empty()) return std::nullopt;
  std::string out;
  for (size_t k = 0; k < scopes.size(); ++k) {
    base::StrAppend(&out, k > 0 ? "::" : "", scopes[k]);
  }
  if (i < name.size() && name[i] == 'I') out += "<...>";
  return out;
}

// Without " [clone .kd]" (ROCm) and the parameter list.
std::string_view StripParameters(std::string_view text) {
  if (text.ends_with(']')) {
    const size_t clone = text.rfind(" [clone ");
    if (clone != std::string_view::npos) text = Trim(text.substr(0, clone));
  }
  std::string_view signature = text;
  if (signature.ends_with(" const")) signature.remove_suffix(6);
  if (!signature.ends_with(')')) return text;
  const size_t open = MatchBack(signature, signature.size() - 1);
  if (open == std::string_view::npos || open == 0) return text;
  return Trim(signature.substr(0, open));
}

void AddForm(std::vector<std::string>& forms, std::string form) {
  if (!form.empty() && (forms.empty() || forms.back() != form)) {
    forms.push_back(std::move(form));
  }
}

// The last form, which must fit even when that leaves nothing (width 0).
void AddLastForm(std::vector<std::string>& forms, std::string form) {
  if (forms.empty() || forms.back() != form) forms.push_back(std::move(form));
}

std::string JoinArguments(const std::vector<std::string>& arguments,
                          size_t count) {
  std::string out;
  for (size_t k = 0; k < count; ++k) {
    base::StrAppend(&out, k > 0 ? "," : "", arguments[k]);
  }
  return out;
}

// Every form of `name` from the whole name to the cut one, each shorter or as
// long as the one before (design note 1); the last fits `width`.
std::vector<std::string> Forms(std::string_view name, size_t width) {
  std::vector<std::string> forms;
  if (Trim(name).empty()) return {std::string(name.substr(0, width))};
  AddForm(forms, std::string(name));
  const std::optional<std::string> readable = ReadableMangled(name);
  std::string_view text = Trim(name);
  if (readable) {
    text = *readable;
    AddForm(forms, *readable);
  }
  if (!Parsable(text)) {
    AddLastForm(forms, Cut(text, width));
    return forms;
  }
  if (text.starts_with("void ")) {
    text = Trim(text.substr(5));
    AddForm(forms, std::string(text));
  }
  text = StripParameters(text);
  AddForm(forms, std::string(text));
  std::string_view function = Trim(SplitTop(text, "::").back());
  if (function.empty()) function = text;
  AddForm(forms, std::string(function));
  const size_t open = function.find('<');
  if (open != std::string_view::npos && open > 0 &&
      Match(function, open) == function.size() - 1) {
    const std::string_view bare = Trim(function.substr(0, open));
    std::vector<std::string> arguments;
    for (std::string_view argument :
         SplitTop(function.substr(open + 1, function.size() - open - 2), ",")) {
      if (!Trim(argument).empty()) {
        arguments.push_back(CompactArgument(argument));
      }
    }
    const size_t n = arguments.size();
    AddForm(forms, base::StrCat(bare, "<", JoinArguments(arguments, n), ">"));
    for (size_t kept = n; kept-- > 1;) {
      AddForm(forms,
              base::StrCat(bare, "<", JoinArguments(arguments, kept), ",...>"));
    }
    if (n > 0) {
      const std::string_view more = n > 1 ? ",...>" : ">";
      const size_t frame = bare.size() + 1 + more.size();
      if (width >= frame + kMinArgumentShown &&
          arguments[0].size() > width - frame) {
        AddForm(forms, base::StrCat(bare, "<", Cut(arguments[0], width - frame),
                                    more));
      }
    }
    AddForm(forms, base::StrCat(bare, "<...>"));
    function = bare;
    AddForm(forms, std::string(function));
  }
  AddLastForm(forms, Cut(function, width));
  return forms;
}

// The first form that fits (the last one does).
size_t FittingLevel(const std::vector<std::string>& forms, size_t width) {
  for (size_t level = 0; level < forms.size(); ++level) {
    if (forms[level].size() <= width) return level;
  }
  return forms.size() - 1;
}

bool AllDistinct(const std::vector<std::string>& texts) {
  std::vector<std::string_view> sorted(texts.begin(), texts.end());
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

size_t CommonPrefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The longest prefix `text` shares with one of `sorted` (but itself): one of
// its neighbours in sorted order.
size_t NearestPrefix(std::string_view text,
                     const std::vector<std::string_view>& sorted) {
  const auto at = std::lower_bound(sorted.begin(), sorted.end(), text);
  size_t longest = 0;
  for (auto it = at == sorted.begin() ? at : at - 1;
       it != sorted.end() && it <= at + 1; ++it) {
    if (*it != text) longest = std::max(longest, CommonPrefix(text, *it));
  }
  return longest;
}

// Where a cut of `text` before `limit` may end its head or start its window:
// just after the last bracket, comma or "::" from `floor` on (a whole
// argument), else after the last "_" or "." from `floor` on (a whole part of
// a bare name); `limit` when there is neither.
size_t Boundary(std::string_view text, size_t floor, size_t limit) {
  limit = std::min(limit, text.size());
  for (std::string_view separators : {"<,({:", "_."}) {
    for (size_t at = limit; at >= floor && at > 0; --at) {
      if (separators.find(text[at - 1]) != std::string_view::npos) return at;
    }
  }
  return limit;
}

// Where a window showing the part of `text` from `differs` on starts: at the
// argument it is in when that starts close by, else at its word; rather at a
// name than at a number ("Metadata<float,1>" rather than "1>").
size_t WindowStart(std::string_view text, size_t differs) {
  const size_t near = differs > kMaxLead / 2 ? differs - kMaxLead / 2 : 0;
  const size_t floor = differs > kMaxLead ? differs - kMaxLead : 0;
  size_t start = Boundary(text, near, differs);
  if (start == differs) start = Boundary(text, floor, differs);
  while (start > floor && start < text.size() &&
         !std::isalpha(static_cast<unsigned char>(text[start])) &&
         text[start] != '_') {
    const size_t before = Boundary(text, floor, start - 1);
    if (before >= start - 1) break;
    start = before;
  }
  return start;
}

// Design note 4, past the width: each text longer than `width` cut to it
// around where it differs from the others of `texts` (all distinct) and from
// the names of `sorted_names` (a cut apart from its group alone could print
// like a name of another): the head the texts share (to an argument, at most
// two thirds of the width), "...", and the part from the argument or word
// where it differs. A text whose cut would print like another's stays whole.
std::vector<std::string> CutApart(
    const std::vector<std::string>& texts,
    const std::vector<std::string_view>& sorted_names, size_t width) {
  if (width < kMinApartWidth) return texts;
  size_t shared = texts.front().size();
  for (const std::string& text : texts) {
    shared = std::min(shared, CommonPrefix(texts.front(), text));
  }
  const size_t max_head = width - 2 * kEllipsis.size() - kMinWindow;
  size_t head =
      Boundary(texts.front(), max_head / 2, std::min(shared, max_head));
  if (head < kMinArgumentShown) {
    head = Boundary(texts.front(), width / 4, width / 2 - kEllipsis.size());
  }
  // The shortest head: the function and its "<".
  const size_t open = texts.front().find('<');
  const size_t min_head = open < head ? open + 1 : head;
  std::vector<std::string> out;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string_view text = texts[i];
    if (text.size() <= width) {
      out.emplace_back(text);
      continue;
    }
    // Where `text` differs from its nearest neighbour.
    size_t differs = NearestPrefix(text, sorted_names);
    for (size_t j = 0; j < texts.size(); ++j) {
      if (j != i) differs = std::max(differs, CommonPrefix(text, texts[j]));
    }
    const size_t start = WindowStart(text, differs);
    const size_t tail = text.size() - start;
    std::string cut;
    if (tail + kEllipsis.size() + std::max(min_head, kMinArgumentShown) <=
        width) {
      // The part that differs runs to the end: as much head as fits.
      const size_t room = width - kEllipsis.size() - tail;
      cut = base::StrCat(
          text.substr(0, Boundary(text, std::max(min_head, room / 2), room)),
          kEllipsis, text.substr(start));
    } else {
      // The shared head, the part that differs, and "...".
      // A gap no longer than "..." is shown rather than elided.
      const size_t own_head = start <= head + kEllipsis.size() ? start : head;
      const size_t room = width - own_head - kEllipsis.size() -
                          (start > own_head ? kEllipsis.size() : 0);
      cut = base::StrCat(text.substr(0, own_head),
                         start > own_head ? kEllipsis : "",
                         text.substr(start, room),
                         start + room < text.size() ? kEllipsis : "");
    }
    out.push_back(std::move(cut));
  }
  absl::flat_hash_map<std::string_view, int> count;
  for (const std::string& cut : out) ++count[cut];
  for (size_t i = 0; i < out.size(); ++i) {
    if (count[out[i]] > 1) out[i] = texts[i];
  }
  return out;
}

struct Entry {
  std::string_view name;
  std::vector<std::string> forms;
  size_t level = 0;
  std::string shown;
};

// Keeps the entries of `group` (all shown alike) apart: back up their forms
// together until they differ, then cut those to the width around where they
// differ when they no longer fit.
void KeepApart(std::vector<Entry>& entries, const std::vector<size_t>& group,
               const std::vector<std::string_view>& sorted_names,
               size_t width) {
  for (size_t back = 1;; ++back) {
    std::vector<std::string> candidates;
    bool at_top = true;
    for (size_t i : group) {
      const Entry& e = entries[i];
      const size_t level = e.level > back ? e.level - back : 0;
      at_top = at_top && level == 0;
      candidates.push_back(e.forms[level]);
    }
    if (!AllDistinct(candidates) && !at_top) continue;
    std::vector<std::string> cut = CutApart(candidates, sorted_names, width);
    for (size_t k = 0; k < group.size(); ++k) {
      Entry& e = entries[group[k]];
      e.level = e.level > back ? e.level - back : 0;
      e.shown = std::move(cut[k]);
    }
    return;
  }
}

}  // namespace

std::string ShortenKernelName(std::string_view name, size_t width) {
  std::vector<std::string> forms = Forms(name, width);
  return std::move(forms[FittingLevel(forms, width)]);
}

std::vector<std::string> ShortenKernelNames(
    const std::vector<std::string>& names, size_t width) {
  absl::flat_hash_map<std::string_view, size_t> index;
  std::vector<Entry> entries;
  for (const std::string& name : names) {
    if (!index.try_emplace(name, entries.size()).second) continue;
    Entry& e = entries.emplace_back();
    e.name = name;
    e.forms = Forms(name, width);
    e.level = FittingLevel(e.forms, width);
    e.shown = e.forms[e.level];
  }
  std::vector<std::string_view> sorted_names;
  sorted_names.reserve(entries.size());
  for (const Entry& e : entries) sorted_names.push_back(e.name);
  std::sort(sorted_names.begin(), sorted_names.end());
  for (int round = 0;; ++round) {
    absl::flat_hash_map<std::string_view, std::vector<size_t>> alike;
    for (size_t i = 0; i < entries.size(); ++i) {
      alike[entries[i].shown].push_back(i);
    }
    std::vector<std::vector<size_t>> groups;
    for (auto& [shown, group] : alike) {
      if (group.size() > 1) groups.push_back(std::move(group));
    }
    if (groups.empty()) break;
    // Names still alike after the rounds print whole (whole names differ);
    // should a whole name still print like another's short form, every name
    // prints whole.
    if (round >= kMaxRounds) {
      for (const std::vector<size_t>& group : groups) {
        for (size_t i : group) entries[i].shown = std::string(entries[i].name);
      }
      if (round > kMaxRounds) {
        for (Entry& e : entries) e.shown = std::string(e.name);
        break;
      }
      continue;
    }
    // `alike` holds views of the shown strings that KeepApart replaces.
    std::sort(groups.begin(), groups.end());
    alike.clear();
    for (const std::vector<size_t>& group : groups) {
      KeepApart(entries, group, sorted_names, width);
    }
  }
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& name : names) {
    out.push_back(entries[index.at(name)].shown);
  }
  return out;
}

}  // namespace profdiff::differ
