// Reads data/speed.json into plain structs once, so that an estimate does no JSON lookups.
#include "gpusizer/speed_profile.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "embed/embedded.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

double number(const nlohmann::json& obj, const char* key, double fallback,
              const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) return fallback;
  const auto& v = obj.at(key);
  if (!v.is_number()) throw InputError(where + "." + key, "must be a number", "bad_file");
  return v.get<double>();
}

InferenceProfile read_inference(const nlohmann::json& o, InferenceProfile p,
                                const std::string& where) {
  p.bw_eff = number(o, "bw_eff", p.bw_eff, where);
  p.compute_eff_max = number(o, "compute_eff_max", p.compute_eff_max, where);
  p.compute_k_tokens = number(o, "compute_k_tokens", p.compute_k_tokens, where);
  p.compute_cap_flops = number(o, "compute_cap_tflops", p.compute_cap_flops / 1e12, where) * 1e12;
  p.bw_cap_bytes_per_s = number(o, "bw_cap_gbps", p.bw_cap_bytes_per_s / 1e9, where) * 1e9;
  if (o.is_object() && o.contains("fp16_accumulate"))
    p.fp16_accumulate = o.at("fp16_accumulate").get<bool>();
  p.step_overhead_s = number(o, "step_overhead_ms", p.step_overhead_s * 1e3, where) * 1e-3;
  p.layer_overhead_s = number(o, "layer_overhead_us", p.layer_overhead_s * 1e6, where) * 1e-6;
  p.hop_overhead_s = number(o, "hop_overhead_ms", p.hop_overhead_s * 1e3, where) * 1e-3;
  p.prefill_chunk_tokens = number(o, "prefill_chunk_tokens", p.prefill_chunk_tokens, where);
  p.max_num_seqs = number(o, "max_num_seqs", p.max_num_seqs, where);
  p.pipeline_depth = number(o, "pipeline_depth", p.pipeline_depth, where);
  if (o.is_object() && o.contains("decode_pipelining"))
    p.decode_pipelining = o.at("decode_pipelining").get<bool>();
  if (p.bw_eff <= 0 || p.compute_eff_max <= 0 || p.prefill_chunk_tokens < 1 || p.max_num_seqs < 1 ||
      p.pipeline_depth < 1)
    throw InputError(where, "efficiencies and sizes must be positive", "bad_file");
  return p;
}

TrainingProfile read_training(const nlohmann::json& o, TrainingProfile p,
                              const std::string& where) {
  p.eff_max = number(o, "eff_max", p.eff_max, where);
  p.eff_k_hidden = number(o, "eff_k_hidden", p.eff_k_hidden, where);
  p.overlap = number(o, "overlap", p.overlap, where);
  p.step_overhead_s = number(o, "step_overhead_ms", p.step_overhead_s * 1e3, where) * 1e-3;
  p.elementwise_bytes_per_hidden =
      number(o, "elementwise_bytes_per_hidden", p.elementwise_bytes_per_hidden, where);
  p.eager_score_bytes = number(o, "eager_score_bytes", p.eager_score_bytes, where);
  p.optimizer_bw_eff = number(o, "optimizer_bw_eff", p.optimizer_bw_eff, where);
  if (p.eff_max <= 0 || p.overlap < 0 || p.overlap > 1 || p.optimizer_bw_eff <= 0 ||
      p.eager_score_bytes < 0)
    throw InputError(where,
                     "eff_max and optimizer_bw_eff must be positive, overlap within [0, 1] and "
                     "eager_score_bytes not negative",
                     "bad_file");
  return p;
}

KernelScale read_scale(const nlohmann::json& o, const std::string& where) {
  KernelScale k;
  k.bw_scale = number(o, "bw_scale", 1, where);
  k.compute_scale = number(o, "compute_scale", 1, where);
  if (k.bw_scale <= 0 || k.compute_scale <= 0)
    throw InputError(where, "scales must be positive", "bad_file");
  return k;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

SpeedProfile SpeedProfile::from_json(const nlohmann::json& doc) {
  if (!doc.is_object()) throw InputError("speed.json", "must be a JSON object", "bad_file");
  SpeedProfile p;
  p.doc_ = doc;
  const auto empty = nlohmann::json::object();
  const auto& inf = doc.contains("inference") ? doc.at("inference") : empty;
  p.inference_default_ = read_inference(inf.value("defaults", empty), InferenceProfile{},
                                        "speed.json inference.defaults");
  if (inf.contains("engines"))
    for (const auto& [name, o] : inf.at("engines").items())
      p.inference_[name] =
          read_inference(o, p.inference_default_, "speed.json inference.engines." + name);
  const auto& tr = doc.contains("training") ? doc.at("training") : empty;
  p.training_default_ =
      read_training(tr.value("defaults", empty), TrainingProfile{}, "speed.json training.defaults");
  if (tr.contains("engines"))
    for (const auto& [name, o] : tr.at("engines").items())
      p.training_[name] =
          read_training(o, p.training_default_, "speed.json training.engines." + name);
  p.qlora_dequant_cost_ = number(tr, "qlora_dequant_cost", p.qlora_dequant_cost_, "training");
  p.lora_extra_cost_ = number(tr, "lora_extra_cost", p.lora_extra_cost_, "training");
  for (const char* section : {"weight_kernels", "vendors"}) {
    if (!doc.contains(section)) continue;
    auto& target = std::string(section) == "vendors" ? p.vendors_ : p.kernels_;
    for (const auto& [name, o] : doc.at(section).items())
      if (o.is_object())
        target[name] = read_scale(o, std::string("speed.json ") + section + "." + name);
  }
  const auto& l = doc.contains("links") ? doc.at("links") : empty;
  LinkProfile& k = p.links_;
  const std::string lw = "speed.json links";
  k.nvlink_eff = number(l, "nvlink_eff", k.nvlink_eff, lw);
  k.nvlink_latency_s = number(l, "nvlink_latency_us", k.nvlink_latency_s * 1e6, lw) * 1e-6;
  k.pcie_eff = number(l, "pcie_eff", k.pcie_eff, lw);
  k.pcie_latency_s = number(l, "pcie_latency_us", k.pcie_latency_s * 1e6, lw) * 1e-6;
  k.network_bytes_per_s =
      number(l, "network_gbps_per_gpu", k.network_bytes_per_s * 8 / 1e9, lw) * 1e9 / 8;
  k.network_eff = number(l, "network_eff", k.network_eff, lw);
  k.network_latency_s = number(l, "network_latency_us", k.network_latency_s * 1e6, lw) * 1e-6;
  k.activation_bytes = number(l, "activation_bytes", k.activation_bytes, lw);
  k.host_memory_bytes_per_s =
      number(l, "host_memory_gbps_per_gpu", k.host_memory_bytes_per_s / 1e9, lw) * 1e9;
  if (k.nvlink_eff <= 0 || k.pcie_eff <= 0 || k.network_eff <= 0 || k.network_bytes_per_s <= 0 ||
      k.host_memory_bytes_per_s <= 0)
    throw InputError(lw, "link efficiencies and bandwidths must be positive", "bad_file");
  const auto& cv = doc.contains("cv") ? doc.at("cv") : empty;
  if (cv.contains("eff"))
    for (const auto& [name, v] : cv.at("eff").items()) p.cv_eff_[name] = v.get<double>();
  p.cv_step_overhead_s_ = number(cv, "step_overhead_ms", 5, "speed.json cv") * 1e-3;
  if (doc.contains("achievable_matmul")) {
    const auto& m = doc.at("achievable_matmul");
    p.matmul_fraction_default_ = number(m, "default", 1.0, "speed.json achievable_matmul");
    if (m.contains("gpus"))
      for (const auto& [name, v] : m.at("gpus").items())
        if (v.is_number()) p.matmul_fraction_[name] = v.get<double>();
  }
  if (doc.contains("fp16_accumulate_factor"))
    for (const auto& [name, v] : doc.at("fp16_accumulate_factor").items())
      if (v.is_number()) p.fp16_acc_factor_[name] = v.get<double>();
  return p;
}

const SpeedProfile& SpeedProfile::builtin() {
  static const SpeedProfile profile = [] {
    std::string text;
    if (const char* dir = std::getenv("GPUSIZER_DATA_DIR"); dir && *dir)
      text = read_text(std::string(dir) + "/speed.json");
    if (text.empty()) text = std::string(embedded::find("speed.json"));
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw InputError("speed.json", std::string("is not valid JSON: ") + e.what(), "bad_file");
    }
    return from_json(doc);
  }();
  return profile;
}

const InferenceProfile& SpeedProfile::inference(const std::string& engine) const {
  const auto it = inference_.find(engine);
  return it == inference_.end() ? inference_default_ : it->second;
}

const TrainingProfile& SpeedProfile::training(const std::string& engine) const {
  const auto it = training_.find(engine);
  return it == training_.end() ? training_default_ : it->second;
}

KernelScale SpeedProfile::weight_kernel(const std::string& kind) const {
  const auto it = kernels_.find(kind);
  return it == kernels_.end() ? KernelScale{} : it->second;
}

KernelScale SpeedProfile::vendor(const std::string& name) const {
  const auto it = vendors_.find(name);
  return it == vendors_.end() ? KernelScale{} : it->second;
}

double SpeedProfile::fp16_accumulate_factor(const std::string& vendor,
                                            const std::string& segment) const {
  const auto it = fp16_acc_factor_.find(vendor + " " + segment);
  return it == fp16_acc_factor_.end() ? 1.0 : it->second;
}

double SpeedProfile::matmul_fraction(const std::string& gpu_id) const {
  const auto it = matmul_fraction_.find(gpu_id);
  return it == matmul_fraction_.end() ? matmul_fraction_default_ : it->second;
}

double SpeedProfile::cv_eff(const std::string& dtype) const {
  const auto it = cv_eff_.find(dtype);
  return it == cv_eff_.end() ? 0.4 : it->second;
}

}  // namespace gpusizer
