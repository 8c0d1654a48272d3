// Name matching for "did you mean": normalised names and Levenshtein distance, as ninja's
// SpellcheckString (src/util.cc) does for unknown targets.
#include <algorithm>
#include <cctype>

#include "gpusizer/names.h"

namespace gpusizer {

namespace {

// std::isalnum and std::tolower of one byte; ASCII as the "C" locale classifies it (the program
// never calls setlocale), other bytes by the library.
inline bool name_char(unsigned char c, char& lowered) {
  if (c < 0x80) {
    const unsigned char lower = c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c | 0x20) : c;
    lowered = static_cast<char>(lower);
    return (c >= '0' && c <= '9') || (lower >= 'a' && lower <= 'z');
  }
  if (!std::isalnum(c)) return false;
  lowered = static_cast<char>(std::tolower(c));
  return true;
}

}  // namespace

std::string normalize_name(std::string_view name) {
  // Built on the stack and copied once (issue 18: appended a byte at a time through the
  // locale's tables, a catalog lookup's name cost ~300 instructions).
  char text[128];
  if (name.size() <= sizeof text) {
    size_t n = 0;
    for (const char c : name) n += name_char(static_cast<unsigned char>(c), text[n]);
    return std::string(text, n);
  }
  std::string out;
  for (const char c : name) {
    char lowered;
    if (name_char(static_cast<unsigned char>(c), lowered)) out += lowered;
  }
  return out;
}

size_t normalized_name_hash(std::string_view name) {
  size_t hash = 0;
  char lowered;
  for (const char c : name)
    if (name_char(static_cast<unsigned char>(c), lowered))
      hash = hash * 131 + static_cast<unsigned char>(lowered);
  return hash;
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates, size_t count) {
  const std::string query = normalize_name(name);
  // A typo lies a few edits from a name, and no catalog name is near 128 characters long. Past
  // that the quadratic distance over every id and alias only costs time: a 100 KB "model" in one
  // request took seconds of CPU before this bound (tests/bad_input_test.cc).
  constexpr size_t kMaxQuery = 128;
  if (query.size() > kMaxQuery) return {};
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string n = normalize_name(c);
    size_t d = edit_distance(query, n);
    // A candidate that contains the query ("4090" in "rtx-4090-24gb") is a strong match.
    if (!query.empty() && n.find(query) != std::string::npos) d = std::min(d, size_t{1});
    scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() == count) break;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string shown_input(std::string_view text) {
  constexpr size_t kShown = 80;
  if (text.size() <= kShown) return std::string(text);
  size_t cut = kShown;
  // Not inside a UTF-8 sequence: back to the first byte of the character the cut would split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace gpusizer
