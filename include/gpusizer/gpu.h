#pragma once
// The Gpu: one accelerator SKU from the catalog (data/gpus.csv), every figure with its source.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpusizer {

struct Gpu {
  std::string id;  ///< e.g. "a100-sxm4-80gb"
  std::string name;
  std::string vendor;
  std::string segment;  ///< datacenter, workstation, consumer, apple-soc
  std::string architecture;
  std::string form_factor_class;  ///< SXM, PCIe, OAM, superchip, consumer, SoC
  std::optional<double> release_year;
  double memory_gb = 0;  ///< marketed capacity, decimal GB
  std::string memory_type;
  std::optional<double> memory_bandwidth_gbps;
  // Dense peak rates in TFLOPS (TOPS for int). Empty: unknown, or NA in gpus.csv (the hardware
  // lacks the format).
  std::optional<double> fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops, int8_tops,
      int4_or_fp4_tops;
  std::string int4_or_fp4_kind;
  bool nvlink = false;
  std::string scaleup_interconnect;
  std::optional<double> scaleup_gbps_bidir;  ///< per-GPU NVLink/xGMI, both directions
  std::string pcie_gen_lanes;
  // Topology (gpus.csv fast_link_domain, pcie_gen, scaleout_gbps_per_gpu, topology_source).
  /// GPUs one NVLink/xGMI/fabric domain joins on the usual platform: 0 none (PCIe only), 2 a
  /// bridged pair, 4 a bridged quad or 4-GPU board, 8 an HGX/OAM baseboard, 72 GB200 NVL72.
  int64_t fast_link_domain = 0;
  int pcie_gen = 0;                             ///< 3, 4, 5, 6; 0 without a PCIe link (SoC)
  std::optional<double> scaleout_gbps_per_gpu;  ///< network per GPU on its platform, Gb/s
  std::string topology_source;
  /// Sale in mainland China (gpus.csv china_status): "available", "licence" (needs a US export
  /// licence, case by case), "restricted" (export-controlled) or "not-sold" (no retail part).
  std::string china_status;
  std::string china_variant;  ///< the part sold in China instead, when there is one
  std::optional<double> tdp_w;
  std::string ecc;  ///< "yes", "no", or a qualified note
  std::optional<double> mig_max_instances;
  std::optional<double> launch_price_usd;
  std::optional<double> cloud_usd_per_gpu_hr;
  std::string cloud_instance;
  std::string cloud_price_date;
  std::string china_export_note;
  std::string confidence;
  std::string source_urls;
  std::vector<std::pair<std::string, std::string>> fields;  ///< every column as written

  /// Memory capacity in bytes (decimal GB as marketed).
  double capacity_bytes() const { return memory_gb * 1e9; }
  /// Whether the GPU computes natively in a tensor format ("bf16", "fp8", "fp16", "tf32", "int8").
  bool supports(std::string_view compute_dtype) const;
  /// Dense tensor rate in FLOP/s for a compute dtype, falling back to the nearest slower path.
  std::optional<double> dense_flops(std::string_view compute_dtype) const;
  /// PCIe bandwidth per direction in bytes/s from the generation and lane count.
  double pcie_bytes_per_s() const;
  bool has_ecc() const { return ecc.rfind("yes", 0) == 0; }
  /// First word of the architecture ("Hopper (GH100)" -> "Hopper"): what the attention tables
  /// of data/speed.json are keyed by.
  std::string_view architecture_family() const {
    return std::string_view(architecture).substr(0, architecture.find(' '));
  }
};

/// The GPU a scenario runs on, shared and immutable: a Scenario is copied for every candidate a
/// search tries, and a catalog row (every column as text) is too big to copy each time. Reads
/// like std::optional<Gpu>.
class GpuRef {
 public:
  GpuRef() = default;
  GpuRef(std::nullopt_t) {}  // NOLINT(google-explicit-constructor)
  GpuRef(const Gpu& gpu) : gpu_(std::make_shared<const Gpu>(gpu)) {}  // NOLINT: copies once
  GpuRef(std::shared_ptr<const Gpu> gpu) : gpu_(std::move(gpu)) {}    // NOLINT: shares

  explicit operator bool() const { return gpu_ != nullptr; }
  bool has_value() const { return gpu_ != nullptr; }
  const Gpu& operator*() const { return *gpu_; }
  const Gpu* operator->() const { return gpu_.get(); }
  const Gpu* get() const { return gpu_.get(); }

 private:
  std::shared_ptr<const Gpu> gpu_;
};

}  // namespace gpusizer
