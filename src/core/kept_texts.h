#pragma once
// A few basis texts kept with what they were written from, so that a text read from the same
// figures is appended again instead of formatted again (issue 18: each "%g" of a double costs
// 100-150 instructions, and a batch or a search writes the same engines' bands and the same
// facility's clauses over and over). Callers keep one per thread: the texts are the thread's.
#include <array>
#include <cstddef>
#include <string>

namespace gpusizer {

/// Up to N texts, replaced in turn. `Kept` holds what a text was written from: `matches(probe)`
/// says whether `probe` would write the same text, `keep(probe)` copies what it needs of it.
template <typename Kept, size_t N>
class KeptTexts {
 public:
  /// Appends to `out` the text kept for `probe`, else the one `write(out)` appends, kept.
  template <typename Probe, typename Write>
  void append(std::string& out, const Probe& probe, Write&& write) {
    for (const Slot& s : slots_)
      if (s.made && s.kept.matches(probe)) {
        out.append(s.text);
        return;
      }
    const size_t start = out.size();
    write(out);
    Slot& s = slots_[next_];
    next_ = (next_ + 1) % N;
    s.kept.keep(probe);
    s.text.assign(out, start);
    s.made = true;
  }

 private:
  struct Slot {
    Kept kept;
    std::string text;
    bool made = false;
  };
  std::array<Slot, N> slots_{};
  size_t next_ = 0;
};

}  // namespace gpusizer
