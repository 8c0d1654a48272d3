// Reads data/speed.json into plain structs once, so that an estimate does no JSON lookups.
#include "gpusizer/speed_profile.h"

#include <algorithm>
#include <cstring>

#include "catalog/data_json.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

// A finite, non-negative figure; absent keys inherit from the file's "defaults" section.
double number(const nlohmann::json& obj, const char* key, double fallback,
              const std::string& where) {
  return data::number_or(obj, key, where, 0, 1e18, fallback);
}

// A finite, non-negative figure that must be there.
double required(const nlohmann::json& obj, const char* key, const std::string& where) {
  return data::required_number(obj, key, where, 0, 1e18);
}

const std::vector<std::string> kInferenceKeys = {"bw_eff",
                                                 "compute_eff_max",
                                                 "compute_k_tokens",
                                                 "gemm_k_width",
                                                 "compute_cap_tflops",
                                                 "bw_cap_gbps",
                                                 "fp16_accumulate",
                                                 "step_overhead_ms",
                                                 "layer_overhead_us",
                                                 "hop_overhead_ms",
                                                 "prefill_chunk_tokens",
                                                 "max_num_seqs",
                                                 "pipeline_depth",
                                                 "decode_pipelining",
                                                 "score_bytes_per_element",
                                                 "kv_read_per_query_head",
                                                 "static_batch",
                                                 "releases",
                                                 "vendors"};
const std::vector<std::string> kTrainingKeys = {"eff_max",
                                                "eff_k_hidden",
                                                "overlap",
                                                "step_overhead_ms",
                                                "elementwise_bytes_per_hidden",
                                                "compiled_elementwise_bytes_per_hidden",
                                                "eager_score_bytes",
                                                "optimizer_bw_eff",
                                                "lora_bytes_per_in_feature",
                                                "lora_bytes_per_out_feature",
                                                "fp8_cast_read_bytes_per_value",
                                                "mxfp8_cast_read_bytes_per_value"};

InferenceProfile read_inference(const nlohmann::json& o, InferenceProfile p,
                                const std::string& where) {
  data::reject_unknown_keys(o, where, kInferenceKeys);
  p.bw_eff = number(o, "bw_eff", p.bw_eff, where);
  p.compute_eff_max = number(o, "compute_eff_max", p.compute_eff_max, where);
  p.compute_k_tokens = number(o, "compute_k_tokens", p.compute_k_tokens, where);
  p.gemm_k_width = number(o, "gemm_k_width", p.gemm_k_width, where);
  p.compute_cap_flops = number(o, "compute_cap_tflops", p.compute_cap_flops / 1e12, where) * 1e12;
  p.bw_cap_bytes_per_s = number(o, "bw_cap_gbps", p.bw_cap_bytes_per_s / 1e9, where) * 1e9;
  p.fp16_accumulate = data::bool_or(o, "fp16_accumulate", where, p.fp16_accumulate);
  p.step_overhead_s = number(o, "step_overhead_ms", p.step_overhead_s * 1e3, where) * 1e-3;
  p.layer_overhead_s = number(o, "layer_overhead_us", p.layer_overhead_s * 1e6, where) * 1e-6;
  p.hop_overhead_s = number(o, "hop_overhead_ms", p.hop_overhead_s * 1e3, where) * 1e-3;
  p.prefill_chunk_tokens = number(o, "prefill_chunk_tokens", p.prefill_chunk_tokens, where);
  p.max_num_seqs = number(o, "max_num_seqs", p.max_num_seqs, where);
  p.pipeline_depth = number(o, "pipeline_depth", p.pipeline_depth, where);
  p.decode_pipelining = data::bool_or(o, "decode_pipelining", where, p.decode_pipelining);
  p.static_batch = data::bool_or(o, "static_batch", where, p.static_batch);
  p.score_bytes_per_element =
      number(o, "score_bytes_per_element", p.score_bytes_per_element, where);
  p.kv_read_per_query_head =
      data::bool_or(o, "kv_read_per_query_head", where, p.kv_read_per_query_head);
  if (p.bw_eff <= 0 || p.compute_eff_max <= 0 || p.prefill_chunk_tokens < 1 || p.max_num_seqs < 1 ||
      p.pipeline_depth < 1)
    throw InputError(where, "efficiencies and sizes must be positive", "bad_file");
  return p;
}

TrainingProfile read_training(const nlohmann::json& o, TrainingProfile p,
                              const std::string& where) {
  data::reject_unknown_keys(o, where, kTrainingKeys);
  p.eff_max = number(o, "eff_max", p.eff_max, where);
  p.eff_k_hidden = number(o, "eff_k_hidden", p.eff_k_hidden, where);
  p.overlap = number(o, "overlap", p.overlap, where);
  p.step_overhead_s = number(o, "step_overhead_ms", p.step_overhead_s * 1e3, where) * 1e-3;
  p.elementwise_bytes_per_hidden =
      number(o, "elementwise_bytes_per_hidden", p.elementwise_bytes_per_hidden, where);
  p.compiled_elementwise_bytes_per_hidden = number(o, "compiled_elementwise_bytes_per_hidden",
                                                   p.compiled_elementwise_bytes_per_hidden, where);
  p.eager_score_bytes = number(o, "eager_score_bytes", p.eager_score_bytes, where);
  p.optimizer_bw_eff = number(o, "optimizer_bw_eff", p.optimizer_bw_eff, where);
  p.lora_bytes_per_in_feature =
      number(o, "lora_bytes_per_in_feature", p.lora_bytes_per_in_feature, where);
  p.lora_bytes_per_out_feature =
      number(o, "lora_bytes_per_out_feature", p.lora_bytes_per_out_feature, where);
  p.fp8_cast_read_bytes_per_value =
      number(o, "fp8_cast_read_bytes_per_value", p.fp8_cast_read_bytes_per_value, where);
  p.mxfp8_cast_read_bytes_per_value =
      number(o, "mxfp8_cast_read_bytes_per_value", p.mxfp8_cast_read_bytes_per_value, where);
  if (p.eff_max <= 0 || p.overlap < 0 || p.overlap > 1 || p.optimizer_bw_eff <= 0 ||
      p.eager_score_bytes < 0)
    throw InputError(where,
                     "eff_max and optimizer_bw_eff must be positive, overlap within [0, 1] and "
                     "eager_score_bytes not negative",
                     "bad_file");
  return p;
}

// The "defaults" sections give every fitted figure (an engine inherits what it leaves out), so
// no figure comes from C++. The ones left out here are optional: 0 or false means none.
const std::vector<std::string> kRequiredInferenceDefaults = {
    "bw_eff",           "compute_eff_max",   "compute_k_tokens", "gemm_k_width",
    "step_overhead_ms", "layer_overhead_us", "hop_overhead_ms",  "prefill_chunk_tokens",
    "max_num_seqs",     "pipeline_depth",    "decode_pipelining"};

void require_keys(const nlohmann::json& o, const std::string& where,
                  const std::vector<std::string>& keys) {
  if (!o.is_object()) throw InputError(where, "must be a JSON object", "bad_file");
  for (const auto& key : keys)
    if (!o.contains(key)) throw InputError(where + "." + key, "is missing", "bad_file");
}

KernelScale read_scale(const nlohmann::json& o, const std::string& where) {
  KernelScale k;
  k.bw_scale = required(o, "bw_scale", where);
  k.compute_scale = required(o, "compute_scale", where);
  if (k.bw_scale <= 0 || k.compute_scale <= 0)
    throw InputError(where, "scales must be positive", "bad_file");
  return k;
}

WeightKernel read_weight_kernel(const nlohmann::json& o, const std::string& where) {
  data::reject_unknown_keys(o, where, {"bw_scale", "compute_scale", "dequant_bytes_per_weight"});
  WeightKernel k;
  k.scale = read_scale(o, where);
  if (o.contains("dequant_bytes_per_weight"))
    k.dequant_bytes_per_weight = data::required_number(o, "dequant_bytes_per_weight", where, 0, 8);
  return k;
}

}  // namespace

// attention_kernels: {"engines": {engine: family}, family: {architecture: fraction, "default"}}.
// An engine the table does not name, and an architecture its family has no figure for, take the
// fallback family (fa2, FlashAttention-2: PyTorch SDPA and flash-attn), which must be there with
// a "default" for the architectures it does not list.
void SpeedProfile::read_attention_kernels(const nlohmann::json& doc, SpeedProfile& p) {
  const std::string where = "speed.json attention_kernels";
  const auto& a = data::required_object(doc, "attention_kernels", "speed.json");
  for (const auto& [key, v] : a.items()) {
    if (data::is_comment_key(key)) continue;
    if (key == "engines") {
      for (const auto& [engine, family] : v.items()) {
        if (!family.is_string())
          throw InputError(where + ".engines." + engine, "must name a kernel family", "bad_file");
        p.attention_kernel_of_[engine] = family.get<std::string>();
      }
      continue;
    }
    if (!v.is_object()) throw InputError(where + "." + key, "must be a JSON object", "bad_file");
    for (const auto& [arch, x] : v.items())
      if (!data::is_comment_key(arch))
        p.attention_eff_[key][arch] =
            data::required_number(v, arch.c_str(), where + "." + key, 0.01, 1);
  }
  const auto fallback = p.attention_eff_.find(p.attention_fallback_);
  if (fallback == p.attention_eff_.end() || !fallback->second.contains("default"))
    throw InputError(where + "." + p.attention_fallback_ + ".default", "is missing", "bad_file");
  for (const auto& [engine, family] : p.attention_kernel_of_)
    if (!p.attention_eff_.contains(family))
      throw InputError(where + ".engines." + engine, "names no kernel family: " + family,
                       "bad_file");
}

// bitsandbytes: {"engines": [names], FORMAT: {linear_call_overhead_us, gemv_max_tokens,
// dequant_bytes_per_param}}.
void SpeedProfile::read_bitsandbytes(const nlohmann::json& doc, SpeedProfile& p) {
  if (!doc.contains("bitsandbytes")) return;
  const auto& b = doc.at("bitsandbytes");
  const std::string where = "speed.json bitsandbytes";
  if (!b.is_object()) throw InputError(where, "must be a JSON object", "bad_file");
  for (const auto& [key, v] : b.items()) {
    if (data::is_comment_key(key)) continue;
    if (key == "engines") {
      if (!v.is_array()) throw InputError(where + ".engines", "must list engines", "bad_file");
      for (const auto& e : v)
        if (e.is_string()) p.bnb_engines_.push_back(e.get<std::string>());
      continue;
    }
    const std::string w = where + "." + key;
    data::reject_unknown_keys(
        v, w, {"linear_call_overhead_us", "gemv_max_tokens", "dequant_bytes_per_param"});
    BitsandbytesKernel k;
    k.linear_call_overhead_s = required(v, "linear_call_overhead_us", w) * 1e-6;
    k.gemv_max_tokens = required(v, "gemv_max_tokens", w);
    k.dequant_bytes_per_param = required(v, "dequant_bytes_per_param", w);
    p.bnb_[key] = k;
  }
}

// inference: {"defaults": {...}, "engines": {name: {...}}}.
void SpeedProfile::read_inference_section(const nlohmann::json& doc, SpeedProfile& p) {
  const auto& inf = data::required_object(doc, "inference", "speed.json");
  const auto& defaults = data::required_object(inf, "defaults", "speed.json inference");
  require_keys(defaults, "speed.json inference.defaults", kRequiredInferenceDefaults);
  p.inference_default_ =
      read_inference(defaults, InferenceProfile{}, "speed.json inference.defaults");
  if (!inf.contains("engines")) return;
  for (const auto& [name, o] : inf.at("engines").items()) {
    const std::string where = "speed.json inference.engines." + name;
    InferenceProfile& e = p.inference_[name] = read_inference(o, p.inference_default_, where);
    if (!o.is_object()) continue;
    // A vendor's build of the engine starts from the engine's figures (vLLM's ROCm build runs
    // its own kernels, HIP graphs and collectives; docs/speed.md "Vendor builds").
    if (o.contains("vendors")) {
      const auto& builds = data::required_object(o, "vendors", where);
      e.has_vendor_builds = true;
      for (const auto& [vendor, v] : builds.items())
        if (!data::is_comment_key(vendor))
          p.vendor_builds_.push_back(
              {name, vendor, read_inference(v, e, where + ".vendors." + vendor)});
    }
    // A release's own figures start from its engine's (an engine's releases can differ in how
    // they batch and in their kernels; docs/speed.md "Calibration method").
    if (!o.contains("releases")) continue;
    const auto& rel = data::required_object(o, "releases", where);
    e.has_releases = true;
    for (const auto& [version, r] : rel.items())
      if (!data::is_comment_key(version))
        p.releases_[name + " " + version] = read_inference(r, e, where + ".releases." + version);
  }
}

// training: {"defaults": {...}, "engines": {...}, "qlora_dequant_bytes_per_param",
// "lora_extra_cost"}.
void SpeedProfile::read_training_section(const nlohmann::json& doc, SpeedProfile& p) {
  const auto& tr = data::required_object(doc, "training", "speed.json");
  const auto& defaults = data::required_object(tr, "defaults", "speed.json training");
  require_keys(defaults, "speed.json training.defaults", kTrainingKeys);
  p.training_default_ = read_training(defaults, TrainingProfile{}, "speed.json training.defaults");
  if (tr.contains("engines"))
    for (const auto& [name, o] : tr.at("engines").items())
      p.training_[name] =
          read_training(o, p.training_default_, "speed.json training.engines." + name);
  p.qlora_dequant_bytes_ =
      data::required_number(tr, "qlora_dequant_bytes_per_param", "speed.json training", 0, 64);
  p.lora_extra_cost_ = data::required_number(tr, "lora_extra_cost", "speed.json training", 0, 1e18);
  if (tr.contains("attention_backward")) {
    const auto& a = tr.at("attention_backward");
    const std::string w = "speed.json training.attention_backward";
    if (!a.is_object()) throw InputError(w, "must be a JSON object", "bad_file");
    for (const auto& [arch, x] : a.items())
      if (!data::is_comment_key(arch))
        p.training_attention_bwd_[arch] = data::required_number(a, arch.c_str(), w, 0.01, 1);
  }
}

// Link figures have no inherited default: each must be in the file.
void SpeedProfile::read_links(const nlohmann::json& doc, SpeedProfile& p) {
  const auto& l = data::required_object(doc, "links", "speed.json");
  LinkProfile& k = p.links_;
  const std::string lw = "speed.json links";
  data::reject_unknown_keys(
      l, lw,
      {"nvlink_eff", "nvlink_latency_us", "pcie_eff", "pcie_latency_us", "network_gbps_per_gpu",
       "network_eff", "network_latency_us", "activation_bytes", "host_memory_gbps_per_gpu",
       "ll_protocol_bandwidth_share", "simple_protocol_extra_latency_us"});
  k.nvlink_eff = data::required_number(l, "nvlink_eff", lw, 0.01, 1);
  k.nvlink_latency_s = data::required_number(l, "nvlink_latency_us", lw, 0, 1e4) * 1e-6;
  k.pcie_eff = data::required_number(l, "pcie_eff", lw, 0.01, 1);
  k.pcie_latency_s = data::required_number(l, "pcie_latency_us", lw, 0, 1e4) * 1e-6;
  k.ll_bandwidth_share = data::required_number(l, "ll_protocol_bandwidth_share", lw, 0.01, 1);
  k.simple_extra_latency_s =
      data::required_number(l, "simple_protocol_extra_latency_us", lw, 0, 1e4) * 1e-6;
  k.network_bytes_per_s = data::required_number(l, "network_gbps_per_gpu", lw, 0.1, 1e5) * 1e9 / 8;
  k.network_eff = data::required_number(l, "network_eff", lw, 0.01, 1);
  k.network_latency_s = data::required_number(l, "network_latency_us", lw, 0, 1e5) * 1e-6;
  k.activation_bytes = data::required_number(l, "activation_bytes", lw, 0.5, 8);
  k.host_memory_bytes_per_s =
      data::required_number(l, "host_memory_gbps_per_gpu", lw, 1, 1e4) * 1e9;
}

// cv: {"eff": {model: fraction}, "step_overhead_ms"}; achievable_matmul: {"default", "gpus",
// "fp8_gpus"}.
void SpeedProfile::read_cv_and_matmul(const nlohmann::json& doc, SpeedProfile& p) {
  const auto& cv = data::required_object(doc, "cv", "speed.json");
  // One figure for each compute dtype CV training runs in (speed/training_speed.h training_dtype).
  const auto& eff = data::required_object(cv, "eff", "speed.json cv");
  for (const char* dtype : {"bf16", "fp16", "fp32", "tf32"})
    data::required_number(eff, dtype, "speed.json cv.eff", 0.01, 1);
  for (const auto& [name, v] : eff.items())
    if (!data::is_comment_key(name))
      p.cv_eff_[name] = data::required_number(eff, name.c_str(), "speed.json cv.eff", 0.01, 1);
  p.cv_step_overhead_s_ =
      data::required_number(cv, "step_overhead_ms", "speed.json cv", 0, 1e18) * 1e-3;
  const auto& m = data::required_object(doc, "achievable_matmul", "speed.json");
  p.matmul_fraction_default_ =
      data::required_number(m, "default", "speed.json achievable_matmul", 0, 1e18);
  const auto read_fractions = [&m](const char* key, const char* where, auto& into) {
    if (m.contains(key))
      for (const auto& [name, v] : m.at(key).items())
        if (!data::is_comment_key(name))
          into[name] = data::required_number(m.at(key), name.c_str(), where, 0.01, 1);
  };
  read_fractions("gpus", "speed.json achievable_matmul.gpus", p.matmul_fraction_);
  read_fractions("fp8_gpus", "speed.json achievable_matmul.fp8_gpus", p.fp8_matmul_fraction_);
}

SpeedProfile SpeedProfile::from_json(const nlohmann::json& doc) {
  if (!doc.is_object()) throw InputError("speed.json", "must be a JSON object", "bad_file");
  data::reject_unknown_keys(doc, "speed.json",
                            {"version", "inference", "training", "weight_kernels", "vendors",
                             "links", "cv", "achievable_matmul", "fp16_accumulate_factor",
                             "calibration", "attention_kernels", "bitsandbytes"});
  SpeedProfile p;
  p.doc_ = doc;
  read_inference_section(doc, p);
  read_training_section(doc, p);
  if (doc.contains("weight_kernels"))
    for (const auto& [name, o] : doc.at("weight_kernels").items())
      if (o.is_object())
        p.kernels_[name] = read_weight_kernel(o, "speed.json weight_kernels." + name);
  if (doc.contains("vendors"))
    for (const auto& [name, o] : doc.at("vendors").items())
      if (o.is_object()) {
        const std::string where = "speed.json vendors." + name;
        data::reject_unknown_keys(o, where, {"bw_scale", "compute_scale"});
        p.vendors_[name] = read_scale(o, where);
      }
  read_links(doc, p);
  read_cv_and_matmul(doc, p);
  read_attention_kernels(doc, p);
  read_bitsandbytes(doc, p);
  if (doc.contains("fp16_accumulate_factor"))
    for (const auto& [name, v] : doc.at("fp16_accumulate_factor").items())
      if (!data::is_comment_key(name))
        p.fp16_acc_factor_[name] =
            data::required_number(doc.at("fp16_accumulate_factor"), name.c_str(),
                                  "speed.json fp16_accumulate_factor", 0.1, 16);
  return p;
}

SpeedProfile SpeedProfile::parse(std::string_view text, const std::string& file) {
  return from_json(data::parse_json(text, file));
}

const InferenceProfile& SpeedProfile::inference(std::string_view engine) const {
  const auto it = inference_.find(engine);
  return it == inference_.end() ? inference_default_ : it->second;
}

const InferenceProfile* SpeedProfile::release(std::string_view engine,
                                              std::string_view version) const {
  std::string key(engine);
  key += ' ';
  key += version;
  const auto it = releases_.find(key);
  return it == releases_.end() ? nullptr : &it->second;
}

const InferenceProfile* SpeedProfile::vendor_build(std::string_view engine,
                                                   std::string_view vendor) const {
  for (const VendorBuild& b : vendor_builds_)
    if (b.engine == engine && b.vendor == vendor) return &b.profile;
  return nullptr;
}

const TrainingProfile& SpeedProfile::training(std::string_view engine) const {
  const auto it = training_.find(engine);
  return it == training_.end() ? training_default_ : it->second;
}

KernelScale SpeedProfile::weight_kernel(std::string_view kind, double bits_per_value) const {
  const auto it = kernels_.find(kind);
  if (it == kernels_.end()) return KernelScale{};
  KernelScale k = it->second.scale;
  // A dequantizing kernel unpacks, converts and scales every weight it reads: ALU work a weight,
  // whatever its bits, which the kernel does not hide behind the memory reads. gpt-fast's
  // weight-only kernels on an A100 show it (README table: 1,397 GB/s for bf16, 1,069 for int8,
  // 863 for int4 with its group scales): the fewer the bytes a weight, the larger the share of
  // time spent on the weight's arithmetic. A weight of b / 8 bytes takes the time of
  // b / 8 + dequant_bytes_per_weight bytes; the bandwidth it achieves on its bytes is that share.
  const double bytes = bits_per_value / 8.0, extra = it->second.dequant_bytes_per_weight;
  if (extra > 0 && bytes > 0) k.bw_scale *= bytes / (bytes + extra);
  return k;
}

KernelScale SpeedProfile::vendor(std::string_view name) const {
  const auto it = vendors_.find(name);
  return it == vendors_.end() ? KernelScale{} : it->second;
}

double SpeedProfile::fp16_accumulate_factor(std::string_view vendor,
                                            std::string_view segment) const {
  // The key "vendor segment" in a buffer on the stack (issue 18: a string allocated a line).
  char text[64];
  std::string key;
  std::string_view joined;
  if (vendor.size() + 1 + segment.size() <= sizeof text) {
    std::memcpy(text, vendor.data(), vendor.size());
    text[vendor.size()] = ' ';
    std::memcpy(text + vendor.size() + 1, segment.data(), segment.size());
    joined = std::string_view(text, vendor.size() + 1 + segment.size());
  } else {
    key.append(vendor).append(" ").append(segment);
    joined = key;
  }
  const auto it = fp16_acc_factor_.find(joined);
  return it == fp16_acc_factor_.end() ? 1.0 : it->second;
}

double SpeedProfile::matmul_fraction(std::string_view gpu_id) const {
  const auto it = matmul_fraction_.find(gpu_id);
  return it == matmul_fraction_.end() ? matmul_fraction_default_ : it->second;
}

double SpeedProfile::fp8_matmul_fraction(std::string_view gpu_id) const {
  const auto it = fp8_matmul_fraction_.find(gpu_id);
  return it == fp8_matmul_fraction_.end() ? matmul_fraction(gpu_id) : it->second;
}

double SpeedProfile::attention_efficiency(std::string_view engine, std::string_view family) const {
  // The engine's kernel family (FlashAttention-3 on Hopper for vLLM/SGLang/TensorRT-LLM,
  // FlashAttention-2 otherwise) at the architecture, else the fallback family's figure there,
  // else its default (the reader checks that the fallback family and its default are there).
  const auto k = attention_kernel_of_.find(engine);
  const std::string& family_name =
      k == attention_kernel_of_.end() ? attention_fallback_ : k->second;
  const auto* table = &attention_eff_.at(family_name);
  auto it = table->find(family);  // one search where it is there (issue 18)
  if (it == table->end()) {
    table = &attention_eff_.at(attention_fallback_);
    it = table->find(family);
  }
  if (it != table->end()) return it->second;
  return table->at("default");
}

double SpeedProfile::training_attention_backward(std::string_view family) const {
  if (const auto it = training_attention_bwd_.find(family); it != training_attention_bwd_.end())
    return it->second;
  const auto d = training_attention_bwd_.find("default");
  return d == training_attention_bwd_.end() ? 0.0 : d->second;
}

const BitsandbytesKernel* SpeedProfile::bitsandbytes(std::string_view engine,
                                                     std::string_view format_id) const {
  if (std::find(bnb_engines_.begin(), bnb_engines_.end(), engine) == bnb_engines_.end())
    return nullptr;
  const auto it = bnb_.find(format_id);
  return it == bnb_.end() ? nullptr : &it->second;
}

double SpeedProfile::cv_eff(std::string_view dtype) const {
  const auto it = cv_eff_.find(dtype);
  if (it == cv_eff_.end())
    throw InputError("speed.json cv.eff." + std::string(dtype), "is missing", "bad_file");
  return it->second;
}

}  // namespace gpusizer
