#pragma once
// Number formats (data/formats.csv): bits per value including the real overhead of scales and
// zero points, and which tensors each format keeps in higher precision.
#include <memory>
#include <string>
#include <utility>

namespace gpusizer {

/// llama.cpp's integer kernels for a GGUF format as built for compute capability 6.1 (DP4A on the
/// CUDA cores, no tensor cores: the Tesla P40), counted from the kernels' source
/// (data/formats.csv dp4a_*). Cycles are one SM's in 128-lane issue slots (the FP32 rate);
/// 0 = not counted.
struct Dp4aKernelCounts {
  double mmq_dp4a = 0;  ///< MMQ: multiplying __dp4a per thread per tile pass
  double mmq_alu = 0;   ///< MMQ: its ALU cycles per thread per pass (shifts, conversions weighted)
  double mmq_lsu = 0;   ///< MMQ: its LD/ST-unit cycles per thread per pass, same slots
  double mmvq_cycles_per_weight = 0;  ///< MMVQ (batch <= 8): ALU cycles per weight and token
};

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
  Dp4aKernelCounts dp4a;  ///< gguf formats: llama.cpp's DP4A kernels' work

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

/// A number format as a Scenario holds it: shared and immutable. A scenario is copied for every
/// candidate a search tries and its formats are set again on each edit, and a row is eleven
/// strings (issue 18: ~1.4k instructions a JSONL line to copy them). Catalog::format_ref shares
/// the catalog's own row, which then lives as long as any scenario holds it, even past its
/// catalog. Never null: a default one holds NumberFormat{}, the fields a Scenario had before it
/// was parsed. Reads like a pointer; `get()` is the row's identity (edits and memos compare it).
class FormatRef {
 public:
  FormatRef();
  FormatRef(const NumberFormat& row)  // NOLINT(google-explicit-constructor): copies once
      : row_(std::make_shared<const NumberFormat>(row)) {}
  FormatRef(std::shared_ptr<const NumberFormat> row)  // NOLINT(google-explicit-constructor)
      : row_(std::move(row)) {}

  const NumberFormat& operator*() const { return *row_; }
  const NumberFormat* operator->() const { return row_.get(); }
  const NumberFormat* get() const { return row_.get(); }

 private:
  std::shared_ptr<const NumberFormat> row_;
};

}  // namespace gpusizer
