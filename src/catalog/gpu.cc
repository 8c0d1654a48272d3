#include "gpusizer/gpu.h"

#include <algorithm>
#include <regex>

namespace gpusizer {
namespace {

bool is_unsupported(const Gpu& g, std::string_view column) {
  return std::find(g.unsupported.begin(), g.unsupported.end(), column) != g.unsupported.end();
}

}  // namespace

bool Gpu::supports(std::string_view dtype) const {
  if (dtype == "fp32" || dtype.empty()) return true;
  if (dtype == "bf16")
    return bf16_tflops.has_value() && !is_unsupported(*this, "bf16_tflops_dense");
  if (dtype == "fp16") return fp16_tflops.has_value() || fp32_tflops.has_value();
  if (dtype == "tf32")
    return tf32_tflops.has_value() && !is_unsupported(*this, "tf32_tflops_dense");
  if (dtype == "fp8") return fp8_tflops.has_value() && !is_unsupported(*this, "fp8_tflops_dense");
  if (dtype == "int8") return int8_tops.has_value();
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

double Gpu::pcie_bytes_per_s() const {
  // Per-lane, per-direction rates after encoding: PCI-SIG base specs 3.0 (8 GT/s, 128b/130b),
  // 4.0 (16 GT/s), 5.0 (32 GT/s), 6.0 (64 GT/s PAM4, FLIT): 0.985, 1.969, 3.938, 7.877 GB/s.
  static const std::regex pattern(R"(Gen(\d)\s*(?:\(?\s*(?:\d+)?x(\d+))?)", std::regex::icase);
  std::smatch m;
  int gen = 4, lanes = 16;
  if (std::regex_search(pcie_gen_lanes, m, pattern)) {
    gen = std::stoi(m[1].str());
    if (m[2].matched) lanes = std::stoi(m[2].str());
  }
  if (pcie_gen > 0) gen = pcie_gen;  // the typed column (gpus.csv pcie_gen) wins over the text
  const double per_lane_gbps = gen <= 3 ? 0.985 : gen == 4 ? 1.969 : gen == 5 ? 3.938 : 7.877;
  return per_lane_gbps * 1e9 * lanes;
}

}  // namespace gpusizer
