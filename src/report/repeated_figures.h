#pragma once
// Figures an answer writes under more than one key: the cost's hourly price, per-million prices
// and run price are its cloud's (estimate_cost copies them), one instance's price is the fleet's
// when one is rented and its listed price when listed in dollars, and the fleet's watts are its
// node's when it has one node. The text writer formats such a figure once and copies its text
// for the same double after (issue 18: Grisu2's ~300 instructions a figure, five of them on an
// answer that rents its fleet). The other writers write the number each time.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "report/json_figure.h"
#include "report/json_text_parts.h"
#include "report/json_writer.h"
#include "report/raw_writer.h"

namespace gpusizer {

/// The texts of the last kSlots figures written through it (the four prices the cost repeats
/// from its cloud), each kept with its double's bits: -0.0 and 0.0 have different texts.
class RepeatedFigures {
 public:
  static constexpr size_t kSlots = 4;

  /// `k`: `v`, as the writer's literal_number writes it.
  template <typename W>
  void field(W& w, std::string_view k, double v) {
    if constexpr (std::is_same_v<W, TextWriter> || std::is_same_v<W, RawWriter>)
      w.literal_number_text(k, v, text(v));
    else
      w.literal_number(k, v);
  }
  /// The key only when the value is present, as JsonFields::field.
  template <typename W>
  void field(W& w, std::string_view k, const std::optional<double>& v) {
    if (v) field(w, k, *v);
  }

  /// `v`'s JSON text (write_json_figure's): a kept one when one of the last kSlots figures had
  /// the same bits, else made and kept in place of the oldest.
  std::string_view text(double v) {
    const auto bits = std::bit_cast<uint64_t>(v);
    for (size_t i = 0; i < kept_; ++i)
      if (slots_[i].bits == bits) return slots_[i].view();
    Slot& s = slots_[next_];
    next_ = (next_ + 1) % kSlots;
    if (kept_ < kSlots) ++kept_;
    s.bits = bits;
    s.size = static_cast<uint8_t>(write_json_figure(s.text, v) - s.text);
    return s.view();
  }

 private:
  struct Slot {
    uint64_t bits;
    uint8_t size;
    char text[kJsonFloatChars];
    std::string_view view() const { return {text, size}; }
  };
  Slot slots_[kSlots];  // the first kept_ hold texts; not zeroed
  size_t kept_ = 0;
  size_t next_ = 0;  // the slot the next new text goes to
};

}  // namespace gpusizer
