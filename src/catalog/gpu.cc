#include "gpusizer/gpu.h"

#include <string_view>

namespace gpusizer {
namespace {

// supports("mxfp8"): OCP MX formats run natively on tensor cores with block-scaled MMA, which
// came with the FP4 generations (Blackwell's tcgen05 block-scaled MMA, PTX ISA 8.7; CDNA 4);
// Hopper and Ada have none (Transformer Engine's MXFP8BlockScaling requires compute capability
// 10.0+). Out of line, so that supports() stays small where dense_flops inlines it (issue 18).
[[gnu::noinline]] bool block_scaled_mma(const Gpu& g) {
  return g.fp8_tflops.has_value() && g.int4_or_fp4_kind.find("FP4") != std::string::npos;
}

}  // namespace

bool Gpu::supports(std::string_view dtype) const {
  if (dtype == "fp32" || dtype.empty()) return true;
  // A rate marked NA in gpus.csv (the hardware lacks the format) is read as empty, like one not
  // published.
  if (dtype == "bf16") return bf16_tflops.has_value();
  if (dtype == "fp16") return fp16_tflops.has_value() || fp32_tflops.has_value();
  if (dtype == "tf32") return tf32_tflops.has_value();
  if (dtype == "fp8") return fp8_tflops.has_value();
  if (dtype == "int8") return int8_tops.has_value();
  if (dtype == "mxfp8") return block_scaled_mma(*this);
  return true;
}

std::optional<double> Gpu::dense_flops(std::string_view dtype) const {
  auto tera = [](std::optional<double> v) -> std::optional<double> {
    if (v) return *v * 1e12;
    return std::nullopt;
  };
  if (dtype == "fp8" && supports("fp8")) return tera(fp8_tflops);
  if (dtype == "int8" && int8_tops) return tera(int8_tops);
  if ((dtype == "bf16" || dtype == "fp8") && supports("bf16")) return tera(bf16_tflops);
  if (dtype == "tf32" && supports("tf32")) return tera(tf32_tflops);
  if (dtype == "fp32" || dtype == "tf32") return tera(fp32_tflops);
  // fp16, and bf16/fp8 on hardware without them, run as fp16 tensor math (V100, T4).
  if (fp16_tflops) return tera(fp16_tflops);
  return tera(fp32_tflops);
}

namespace {

// The generation and lanes of gpus.csv's pcie_gen_lanes text ("Gen4 x16", "Gen5 (4x16 from
// Grace)", "via Grace (Gen5)"): the first "Gen<digit>", then, after optional spaces, an optional
// "(", spaces and a count, "x<lanes>". The same as the regex
// Gen(\d)\s*(?:\(?\s*(?:\d+)?x(\d+))? (case-insensitive) by hand: the estimate asks it for
// every speed estimate, and a std::regex search costs thousands of instructions.
void read_pcie_text(std::string_view t, int& gen, int& lanes) {
  auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  auto space = [](char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); };
  auto lower = [](char ch) { return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch; };
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (lower(t[i]) != 'g' || lower(t[i + 1]) != 'e' || lower(t[i + 2]) != 'n' || !digit(t[i + 3]))
      continue;
    gen = t[i + 3] - '0';
    size_t j = i + 4;
    while (j < t.size() && space(t[j])) ++j;
    if (j < t.size() && t[j] == '(') ++j;
    while (j < t.size() && space(t[j])) ++j;
    while (j < t.size() && digit(t[j])) ++j;
    if (j + 1 < t.size() && lower(t[j]) == 'x' && digit(t[j + 1])) {
      lanes = 0;
      for (size_t k = j + 1; k < t.size() && digit(t[k]); ++k) lanes = lanes * 10 + (t[k] - '0');
    }
    return;
  }
}

}  // namespace

double Gpu::pcie_bytes_per_s() const {
  // Per-lane, per-direction rates after encoding: PCI-SIG base specs 3.0 (8 GT/s, 128b/130b),
  // 4.0 (16 GT/s), 5.0 (32 GT/s), 6.0 (64 GT/s PAM4, FLIT): 0.985, 1.969, 3.938, 7.877 GB/s.
  int gen = 4, lanes = 16;
  read_pcie_text(pcie_gen_lanes, gen, lanes);
  if (pcie_gen > 0) gen = pcie_gen;  // the typed column (gpus.csv pcie_gen) wins over the text
  const double per_lane_gbps = gen <= 3 ? 0.985 : gen == 4 ? 1.969 : gen == 5 ? 3.938 : 7.877;
  return per_lane_gbps * 1e9 * lanes;
}

}  // namespace gpusizer
