#pragma once
// The Model: a network's architecture and its exact parameter count.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// Multi-head latent attention ranks (DeepSeek-V2 paper, sec. 2.1; HF DeepseekV3Attention).
struct MlaDims {
  int64_t q_lora_rank = 0;  ///< 0: queries projected directly from the hidden state (V2-Lite)
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
};

/// How a layer attends: over the whole context, a sliding/chunked window, or a linear
/// (recurrent) state of constant size.
enum class AttentionSpan { kFull, kWindow, kLinear };

/// Architecture of one network. Fields follow the catalog schema of data/models.jsonl
/// (Hugging Face names normalised as docs/models-catalog-notes.md describes).
struct Model {
  std::string id;    ///< lower-case catalog name, e.g. "llama-2-7b"
  std::string name;  ///< display name, e.g. "Llama-2-7B"
  std::string hf_id;
  std::string family;
  std::string kind = "llm";  ///< "llm" or "cv"
  std::string source;
  /// The weights format the published checkpoint ships in, a formats.csv id ("fp8" for
  /// DeepSeek-V3, "mxfp4" for gpt-oss; empty: 16-bit): what a server loads unless told otherwise.
  std::string checkpoint_format;

  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;  ///< dense FFN width
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;        ///< per-head Q/K width; V width too except for MLA
  std::string attention_type;  ///< MHA, GQA, MQA, MLA, hybrid
  std::optional<MlaDims> mla;

  bool gated_mlp = true;    ///< 3 matrices (SwiGLU/GeGLU) vs 2 (plain GELU)
  bool layer_norm = false;  ///< LayerNorm (weight+bias) vs RMSNorm (weight)
  int64_t norms_per_layer = 2;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool lm_head_bias = false;
  bool tied_embeddings = false;
  bool attention_sinks = false;
  std::string qk_norm;  ///< "", "per_head" or "per_layer"
  int64_t learned_pos_embeddings = 0;
  int64_t extra_embed_norms = 0;
  bool parallel_residual = false;
  int64_t max_position_embeddings = 0;

  // Local / linear attention layers.
  int64_t sliding_window = 0;  ///< window (or chunk) of local layers; 0 = none
  int64_t num_window_layers = 0;
  int64_t num_linear_layers = 0;
  int64_t linear_state_bytes_per_layer = 0;  ///< constant recurrent state per sequence

  // Mixture of experts.
  int64_t num_experts = 0;  ///< routed experts per MoE layer; 0 = dense model
  int64_t experts_per_token = 0;
  int64_t num_shared_experts = 0;
  int64_t moe_intermediate_size = 0;
  int64_t shared_expert_intermediate_size = 0;  ///< total width of the shared expert(s)
  int64_t num_moe_layers = 0;
  int64_t num_dense_layers = 0;  ///< in a MoE model; their FFN width is dense_intermediate_size
  int64_t dense_intermediate_size = 0;
  bool router_bias = false;
  bool expert_bias = false;

  // Counts given as facts where the architecture cannot be counted (hybrid linear attention,
  // CV networks). Empty means the count is computed from the fields above.
  std::optional<int64_t> given_params;
  std::optional<int64_t> given_active_params;

  /// The modeling code upcasts logits to fp32 before the cross-entropy (transformers'
  /// ForCausalLMLoss does; some remote-code models such as Qwen v1 do not).
  bool loss_upcast_fp32 = true;

  // CV networks (cv-train).
  double cv_gflops_per_image = 0;  ///< forward GFLOPs (real FLOPs, 2 per MAC) at cv_resolution
  int64_t cv_resolution = 0;
  int64_t cv_layers = 0;

  bool is_moe() const { return num_experts > 0; }
  bool is_cv() const { return kind == "cv"; }
  int64_t q_width() const { return num_heads * head_dim; }
  int64_t kv_width() const { return num_kv_heads * head_dim; }
};

/// A model as a Scenario holds it: shared and immutable, as FormatRef holds a number format. A
/// Model is eight strings and more, and a scenario is made for every JSONL line and copied for
/// every candidate a search tries (issue 18: ~1k instructions a line to copy the catalog's row in
/// and ~0.6k to free it). Catalog::model_ref shares the catalog's own row, which then lives as
/// long as any scenario holds it, even past its catalog; a model built by hand (an importer's,
/// `{"params": N}`, a test's) is its own row. Never null: a default one holds Model{}, the fields
/// a Scenario had before it was parsed. Reads like a pointer; `get()` is the row's identity
/// (memos compare it). To change the model, `edit()`: copy on write, never the shared row.
class ModelRef {
 public:
  ModelRef();
  ModelRef(const Model& model)  // NOLINT(google-explicit-constructor): copies once
      : ModelRef(Model(model)) {}
  ModelRef(Model&& model);  // NOLINT(google-explicit-constructor): its own row, moved in
  ModelRef(std::shared_ptr<const Model> row)  // NOLINT(google-explicit-constructor): shares
      : row_(std::move(row)) {}

  const Model& operator*() const { return *row_; }
  const Model* operator->() const { return row_.get(); }
  const Model* get() const { return row_.get(); }

  /// The model to change: first a copy of its own, unless this ref already holds one that no
  /// other ref shares, so that the row it shared (the catalog's, a cached import's, another
  /// scenario's) stays as it was. The copy is a new row, with an identity (get()) of its own.
  Model& edit();

 private:
  std::shared_ptr<const Model> row_;
  // The row when this ref made it (edit, or a Model given by value): the same object as row_'s,
  // writable. Copied with row_, so that a copy edits only once use_count() says it is alone.
  Model* own_ = nullptr;
};

/// How tensor parallelism splits a matrix, and which matrix routes tokens to experts. Megatron-LM
/// splits attention's output projection and the MLP's down projection by their input features
/// (RowParallelLinear, megatron/core/tensor_parallel/layers.py) and the others by their outputs
/// (ColumnParallelLinear). The MoE router is small and kept whole, and lora_target_matches leaves
/// it out of "all-linear". Listed once with the module, so that searches never compare names.
enum class MatrixRole : uint8_t { kColumn, kRow, kRouter };

/// One kind of linear (matrix) module, as LoRA and quantization see it.
struct LinearModule {
  std::string_view
      name;         ///< HF module name (a literal): q_proj, k_proj, ..., experts.gate_proj, lm_head
  int64_t in = 0;   ///< input features
  int64_t out = 0;  ///< output features
  int64_t count = 0;    ///< instances in the whole model (layers x experts)
  bool expert = false;  ///< a routed expert matrix (only experts_per_token of them run)
  bool attention = false;
  MatrixRole role = MatrixRole::kColumn;  ///< set where the module is listed, read by the searches
};

/// The model's matrices as linear_modules lists them, held in place: no layout has more than 15
/// kinds, and searches list them several times per estimate, so the list never allocates.
class LinearModules {
 public:
  static constexpr size_t kCapacity = 16;
  LinearModules() {}  // NOLINT: the storage past size() is never read
  void push_back(const LinearModule& m) { items_[size_++] = m; }
  const LinearModule* begin() const { return items_; }
  const LinearModule* end() const { return items_ + size_; }
  const LinearModule& operator[](size_t i) const { return items_[i]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  union {
    LinearModule items_[kCapacity];
  };
  size_t size_ = 0;
};

/// The model's matrices, layer by layer summed by kind. Does not include the embedding.
LinearModules linear_modules(const Model& model);

/// Parameter counts by component; totals follow the HF module layout
/// (docs/models-catalog-notes.md sec. 3, checked against published exact counts).
struct ParamCounts {
  int64_t embedding = 0;  ///< input token embedding (+ learned positions)
  int64_t lm_head = 0;    ///< output projection, 0 when tied
  int64_t attention = 0;  ///< all layers: projections, biases, qk-norms, sinks
  int64_t dense_mlp = 0;  ///< FFNs of dense layers
  int64_t routed_experts = 0;
  int64_t shared_experts = 0;
  int64_t router = 0;
  int64_t norms = 0;  ///< per-layer, final and embedding norms
  int64_t other = 0;  ///< given counts that cannot be split (hybrid or CV models)
  int64_t total = 0;
  int64_t active = 0;          ///< touched per token, incl. the input embedding table
  int64_t active_compute = 0;  ///< active minus the input embedding (the FLOP-relevant count)
  bool computed = true;        ///< false where the totals are given facts
};

/// Counts the parameters of `model` from its architecture.
ParamCounts count_params(const Model& model);

/// How layer `layer` (0-based) attends. Window and linear layers are spread as the catalog says.
AttentionSpan layer_span(const Model& model, int64_t layer);

/// Layers of each span: layer_span counted over all layers, in closed form.
struct LayerSpans {
  int64_t full = 0, window = 0, linear = 0;
};
LayerSpans layer_spans(const Model& model);

}  // namespace gpusizer
