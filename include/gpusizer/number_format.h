#pragma once
// Number formats (data/formats.csv): bits per value including the real overhead of scales and
// zero points, and which tensors each format keeps in higher precision.
#include <string>

namespace gpusizer {

struct NumberFormat {
  std::string id;    ///< fp32, bf16, fp8, nf4, gptq-int4, q4_k_m, ...
  std::string kind;  ///< float, int, quant, gguf
  double bits_per_value = 16;
  std::string embedding_format;  ///< format of the token embedding; empty = same as this
  std::string lm_head_format;    ///< format of the output head; empty = same as this
  double embedding_bits = 0;     ///< bits of embedding_format, resolved by the catalog; 0 = same
  double lm_head_bits = 0;       ///< bits of lm_head_format, likewise
  /// Format of a mixture-of-experts model's matrices outside the routed experts (attention,
  /// dense MLP, shared experts); empty = same as this. gpt-oss's mxfp4 quantizes only the
  /// experts; a dense model in the format takes it for every matrix.
  std::string dense_format;
  double dense_bits = 0;      ///< bits of dense_format, resolved by the catalog; 0 = same
  std::string usable_for;     ///< ;-separated: weights, kv, activations, optimizer
  std::string compute_dtype;  ///< what the matmuls run in (weight-only formats dequantize)
  std::string needs;          ///< hardware feature needed to run it natively
  std::string source;
  std::string notes;

  /// Bytes per value of the token embedding and of the output head in this format.
  double embedding_bytes_per_value() const {
    return (embedding_bits > 0 ? embedding_bits : bits_per_value) / 8.0;
  }
  double lm_head_bytes_per_value() const {
    return (lm_head_bits > 0 ? lm_head_bits : bits_per_value) / 8.0;
  }
  double bytes_per_value() const { return bits_per_value / 8.0; }
  /// Bytes per value of the matrices outside the routed experts: dense_format's for a model
  /// with routed experts (`moe`), this format's for a dense one.
  double dense_bytes_per_value(bool moe) const {
    return (moe && dense_bits > 0 ? dense_bits : bits_per_value) / 8.0;
  }
  bool usable_for_role(const std::string& role) const;
};

}  // namespace gpusizer
