#pragma once
// The speed profile (data/speed.json): efficiencies, per-step overheads and link figures that the
// speed estimator reads, per engine, weight-kernel kind and GPU vendor. Loaded once, read often.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// One inference engine's roofline figures (data/speed.json "inference"). The figures live in the
/// file: "defaults" must give every fitted one, an engine's entry inherits what it leaves out; the
/// zeros here are "not read", never a value.
struct InferenceProfile {
  double bw_eff = 0;            ///< achieved fraction of peak memory bandwidth
  double compute_eff_max = 0;   ///< asymptote of eff(T) = max * T / (T + k)
  double compute_k_tokens = 0;  ///< tokens per pass at which half of the asymptote is reached
  /// GEMM width (the narrower of a matrix's depth and output width on one tensor-parallel rank)
  /// at which a GEMM reaches half of its rate; tensor parallelism narrows them (inference_speed).
  double gemm_k_width = 0;
  double compute_cap_flops = 0;   ///< engine kernels' own ceiling, FLOP/s; 0 = none
  double bw_cap_bytes_per_s = 0;  ///< engine kernels' bandwidth ceiling (Little's law); 0 = none
  bool fp16_accumulate = false;   ///< GEMMs accumulate in fp16 (rate x fp16_accumulate_factor)
  double step_overhead_s = 0;     ///< per forward pass
  double layer_overhead_s = 0;    ///< per layer per forward pass
  double hop_overhead_s = 0;      ///< per pipeline-stage boundary per pass
  double prefill_chunk_tokens = 0;
  double max_num_seqs = 0;
  double pipeline_depth = 0;      ///< micro-batches in flight in prompt processing
  bool decode_pipelining = true;  ///< false: layer split runs stages in turn (llama.cpp)
  /// Bytes moved per attention score per layer when scores are materialised (no flash
  /// attention); 0 = the engine never materialises them.
  double score_bytes_per_element = 0;
  /// Decode attention reads the KV cache once per query head, not once per KV head:
  /// grouped-query models move heads / kv_heads times the cache per step (a release's flag,
  /// releases.VERSION.kv_read_per_query_head).
  bool kv_read_per_query_head = false;
  /// Static batching: the engine runs the batch it was set up with (no in-flight batching), so
  /// its peak throughput is at the scenario's batch, not at the largest batch the memory holds.
  bool static_batch = false;
  /// The engine's entry names releases with figures of their own (SpeedProfile::release).
  bool has_releases = false;
  /// The engine's entry names GPU vendors whose build of it has figures of its own
  /// (SpeedProfile::vendor_build).
  bool has_vendor_builds = false;
};

/// bitsandbytes kernel figures for one format (data/speed.json bitsandbytes.FORMAT).
struct BitsandbytesKernel {
  double linear_call_overhead_s = 0;
  double gemv_max_tokens = 0;
  double dequant_bytes_per_param = 0;
};

struct KernelScale {
  double bw_scale = 1;
  double compute_scale = 1;
};

/// A weight format kind's kernels (data/speed.json weight_kernels.KIND): its scales, and the time
/// a dequantizing kernel spends on each weight beyond reading it, in bytes of the same kernel's
/// bandwidth (weight_kernel folds it into a format's bw_scale by its bits per value).
struct WeightKernel {
  KernelScale scale;
  double dequant_bytes_per_weight = 0;
};

/// Collective links (data/speed.json "links"; every figure required there).
struct LinkProfile {
  double nvlink_eff = 0, nvlink_latency_s = 0;
  double pcie_eff = 0, pcie_latency_s = 0;
  /// NCCL's protocols (collectives.h): the low-latency one moves this share of the link's
  /// bandwidth; the bulk one adds this latency to the link's.
  double ll_bandwidth_share = 1, simple_extra_latency_s = 0;
  double network_bytes_per_s = 0, network_eff = 0, network_latency_s = 0;
  double activation_bytes = 0;
  /// Host (CPU) memory bandwidth one GPU's share of the node can use for an offloaded optimizer.
  double host_memory_bytes_per_s = 0;
};

struct TrainingProfile {
  double eff_max = 0;
  double eff_k_hidden = 0;
  double overlap = 0;
  double step_overhead_s = 0;
  /// Bytes moved by the non-GEMM (element-wise, norm, activation) kernels per token, per layer,
  /// per hidden unit, forward and backward; bandwidth-bound, so GPUs with many FLOPs per byte
  /// lose a larger share of the step to them.
  double elementwise_bytes_per_hidden = 0;
  /// The same under torch.compile (training.compile: Inductor fuses the element-wise chains);
  /// 0 = as without it.
  double compiled_elementwise_bytes_per_hidden = 0;
  /// Eager (non-Flash) attention: bytes moved per materialized score (one head, query, key),
  /// forward and backward; 0 = FlashAttention, nothing materialized.
  double eager_score_bytes = 0;
  /// Fraction of memory bandwidth the (multi-tensor, fused) optimizer kernels reach.
  double optimizer_bw_eff = 0;
  /// LoRA adapters: bytes moved per token beyond the base GEMM, forward and backward, per input
  /// and per output feature of each targeted matrix (PEFT's unfused path: 18 and 36).
  double lora_bytes_per_in_feature = 0, lora_bytes_per_out_feature = 0;
  /// FP8 training: bytes the casts read per value entering or leaving a linear layer's GEMM
  /// (per-tensor current scaling, and MXFP8's block scaling); what they write follows from the
  /// FP8 layout (core/fp8_recipe.h). 0 = not counted.
  double fp8_cast_read_bytes_per_value = 0, mxfp8_cast_read_bytes_per_value = 0;
};

class SpeedProfile {
 public:
  /// Reads the text of a speed.json; throws InputError naming the file, key or line.
  static SpeedProfile parse(std::string_view text, const std::string& file = "speed.json");
  /// Reads a profile document; throws InputError naming the bad key.
  static SpeedProfile from_json(const nlohmann::json& doc);

  const nlohmann::json& doc() const { return doc_; }
  const InferenceProfile& inference(std::string_view engine) const;
  /// The figures of one release of an engine (inference.engines.ENGINE.releases.VERSION, which
  /// inherits the engine's), or nullptr when the release has none of its own.
  const InferenceProfile* release(std::string_view engine, std::string_view version) const;
  /// The figures of an engine's build for one GPU vendor's software stack
  /// (inference.engines.ENGINE.vendors.VENDOR, which inherits the engine's: vLLM on ROCm runs
  /// other kernels, graphs and collectives than on CUDA), or nullptr when it has none of its own.
  const InferenceProfile* vendor_build(std::string_view engine, std::string_view vendor) const;
  const TrainingProfile& training(std::string_view engine) const;
  /// The scales of a format of kind `format_kind` holding `bits_per_value` bits a weight.
  KernelScale weight_kernel(std::string_view format_kind, double bits_per_value) const;
  KernelScale vendor(std::string_view vendor) const;
  const LinkProfile& links() const { return links_; }
  /// QLoRA: bytes one dequantization of a 4-bit weight moves (packed weight and scales read,
  /// 16-bit copy written), once per pass.
  double qlora_dequant_bytes_per_param() const { return qlora_dequant_bytes_; }
  double lora_extra_cost() const { return lora_extra_cost_; }
  /// Tensor rate with fp16 accumulation over the stored (fp32-accumulate) rate, by GPU segment
  /// and vendor ("NVIDIA consumer": GeForce runs fp16-accumulate MMA at twice the rate); 1 if none.
  double fp16_accumulate_factor(std::string_view vendor, std::string_view segment) const;
  /// Achieved fraction of the dense rate in CV training for a compute dtype (speed.json cv.eff,
  /// which must give bf16, fp16, fp32 and tf32).
  double cv_eff(std::string_view dtype) const;
  double cv_step_overhead_s() const { return cv_step_overhead_s_; }
  /// Maximum achievable matmul FLOPS over the datasheet rate for a GPU id (measured); the file's
  /// achievable_matmul.default when the GPU has no measurement.
  double matmul_fraction(std::string_view gpu_id) const;
  /// The same for FP8 (e4m3) GEMMs (achievable_matmul.fp8_gpus); the 16-bit fraction when the
  /// GPU has no FP8 measurement.
  double fp8_matmul_fraction(std::string_view gpu_id) const;
  /// Achieved fraction of the dense rate in the attention kernels the engine uses on a GPU
  /// architecture family (data/speed.json attention_kernels).
  double attention_efficiency(std::string_view engine, std::string_view family) const;
  /// Achieved fraction of the dense rate in FlashAttention's backward (fwd FLOPs x 2.5) on an
  /// architecture family (data/speed.json training.attention_backward); 0 when the profile has
  /// no such table (training attention then runs at the GEMM rate).
  double training_attention_backward(std::string_view family) const;
  /// The bitsandbytes kernel an engine runs for a weight format, or nullptr.
  const BitsandbytesKernel* bitsandbytes(std::string_view engine, std::string_view format_id) const;

 private:
  static void read_attention_kernels(const nlohmann::json& doc, SpeedProfile& p);
  static void read_inference_section(const nlohmann::json& doc, SpeedProfile& p);
  static void read_training_section(const nlohmann::json& doc, SpeedProfile& p);
  static void read_links(const nlohmann::json& doc, SpeedProfile& p);
  static void read_cv_and_matmul(const nlohmann::json& doc, SpeedProfile& p);
  static void read_bitsandbytes(const nlohmann::json& doc, SpeedProfile& p);
  nlohmann::json doc_;
  InferenceProfile inference_default_;
  std::map<std::string, InferenceProfile, std::less<>> inference_;
  std::map<std::string, InferenceProfile, std::less<>> releases_;  // "engine version"
  /// A vendor's build of an engine: few, so found by a scan of names without a joined key.
  struct VendorBuild {
    std::string engine, vendor;
    InferenceProfile profile;
  };
  std::vector<VendorBuild> vendor_builds_;
  TrainingProfile training_default_;
  std::map<std::string, TrainingProfile, std::less<>> training_;
  std::map<std::string, WeightKernel, std::less<>> kernels_;
  std::map<std::string, KernelScale, std::less<>> vendors_;
  LinkProfile links_;
  double qlora_dequant_bytes_ = 0, lora_extra_cost_ = 0;
  std::map<std::string, double, std::less<>> cv_eff_;
  std::map<std::string, double, std::less<>> fp16_acc_factor_;
  std::map<std::string, double, std::less<>> matmul_fraction_, fp8_matmul_fraction_;
  double matmul_fraction_default_ = 1.0;  ///< "vendor segment" -> factor
  double cv_step_overhead_s_ = 0;
  std::map<std::string, std::string, std::less<>> attention_kernel_of_;  // engine -> family
  std::map<std::string, std::map<std::string, double, std::less<>>, std::less<>>
      attention_eff_;  // family -> arch -> eff
  std::string attention_fallback_ = "fa2";
  std::map<std::string, double, std::less<>> training_attention_bwd_;  // architecture -> fraction
  std::vector<std::string> bnb_engines_;
  std::map<std::string, BitsandbytesKernel, std::less<>> bnb_;
};

}  // namespace gpusizer
