#include "importers/tensor_table.h"

#include <map>
#include <set>

namespace gpusizer {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// Tensors that describe a quantization (scales, zero points, group indices, bitsandbytes quant
// state) rather than hold parameters. Names: AutoGPTQ QuantLinear (qzeros, scales, g_idx),
// AutoAWQ WQLinear (qzeros, scales), bitsandbytes Params4bit.quant_state / Int8Params (SCB),
// transformers fp8 (weight_scale_inv), gpt-oss MXFP4 (*_scales).
bool is_quant_metadata(const std::string& n) {
  return ends_with(n, ".qzeros") || ends_with(n, ".scales") || ends_with(n, ".g_idx") ||
         ends_with(n, "_scales") || ends_with(n, ".absmax") || ends_with(n, ".quant_map") ||
         ends_with(n, ".nested_absmax") || ends_with(n, ".nested_quant_map") ||
         contains(n, ".quant_state.") || ends_with(n, ".SCB") || ends_with(n, ".weight_format") ||
         ends_with(n, "weight_scale_inv") || ends_with(n, ".weight_scale") ||
         ends_with(n, ".input_scale");
}

void add_common(WeightsFile& w, const TensorEntry& t) {
  w.tensors += 1;
  w.total_bytes += static_cast<double>(t.bytes);
  w.bytes_by_dtype[t.dtype] += static_cast<double>(t.bytes);
  if (is_embedding_tensor(t.name)) w.embedding_bytes += static_cast<double>(t.bytes);
  if (is_lm_head_tensor(t.name)) w.lm_head_bytes += static_cast<double>(t.bytes);
}

// Dtype holding most bytes outside the embedding and the head.
std::string dominant_body_dtype(const std::vector<TensorEntry>& tensors) {
  std::map<std::string, uint64_t> body;
  for (const auto& t : tensors)
    if (!is_embedding_tensor(t.name) && !is_lm_head_tensor(t.name) && t.shape.size() >= 2)
      body[t.dtype] += t.bytes;
  std::string best;
  uint64_t most = 0;
  for (const auto& [dtype, bytes] : body)
    if (bytes > most) {
      best = dtype;
      most = bytes;
    }
  return best;
}

}  // namespace

bool is_embedding_tensor(const std::string& n) {
  return ends_with(n, "embed_tokens.weight") || ends_with(n, "wte.weight") ||
         ends_with(n, "word_embeddings.weight") || ends_with(n, "tok_embeddings.weight") ||
         ends_with(n, "embed_in.weight") || n == "token_embd.weight";
}

bool is_lm_head_tensor(const std::string& n) {
  return n == "lm_head.weight" || n == "output.weight" || ends_with(n, ".lm_head.weight") ||
         ends_with(n, "output_layer.weight") || n == "embed_out.weight";
}

WeightsFile summarize_safetensors(const std::vector<TensorEntry>& tensors,
                                  const std::string& path) {
  WeightsFile w;
  w.format = "safetensors";
  w.path = path;
  std::set<std::string> bnb4_weights;
  bool gptq = false, awq_or_gptq = false, mxfp4 = false, nf4 = false, int8 = false;
  for (const auto& t : tensors) {
    const auto q = t.name.find(".quant_state.bitsandbytes__");
    if (q != std::string::npos) {
      bnb4_weights.insert(t.name.substr(0, q));
      nf4 = nf4 || contains(t.name, "__nf4");
    }
    if (ends_with(t.name, ".g_idx")) gptq = true;
    if (ends_with(t.name, ".SCB")) int8 = true;
  }
  for (const auto& t : tensors) {
    add_common(w, t);
    if (is_quant_metadata(t.name)) continue;
    int64_t logical = t.numel;
    if (ends_with(t.name, ".qweight") && t.dtype == "I32") {
      logical = t.numel * 8;  // 4-bit: 8 values per int32 word (AutoGPTQ/AutoAWQ pack_weight)
      awq_or_gptq = true;
    } else if (ends_with(t.name, "_blocks") && t.dtype == "U8") {
      logical = t.numel * 2;  // MXFP4 e2m1: two values a byte (OCP MX spec v1.0 sec. 5.3)
      mxfp4 = true;
    } else if (t.dtype == "U8" && bnb4_weights.count(t.name)) {
      logical = t.numel * 2;  // bitsandbytes 4-bit packs two values a byte
    }
    w.elements += logical;
  }
  if (mxfp4)
    w.weights_format = "mxfp4";
  else if (awq_or_gptq)
    w.weights_format = gptq ? "gptq-int4" : "awq-int4";
  else if (!bnb4_weights.empty())
    w.weights_format = nf4 ? "nf4" : "int4";
  else if (int8)
    w.weights_format = "int8";
  else {
    const std::string d = dominant_body_dtype(tensors);
    if (d == "BF16")
      w.weights_format = "bf16";
    else if (d == "F16")
      w.weights_format = "fp16";
    else if (d == "F32")
      w.weights_format = "fp32";
    else if (d == "F8_E4M3" || d == "F8_E5M2")
      w.weights_format = "fp8";
    else if (d == "I8")
      w.weights_format = "int8";
  }
  return w;
}

WeightsFile summarize_gguf(const std::vector<TensorEntry>& tensors, const std::string& path) {
  WeightsFile w;
  w.format = "gguf";
  w.path = path;
  for (const auto& t : tensors) {
    add_common(w, t);
    w.elements += t.numel;
  }
  return w;
}

}  // namespace gpusizer
