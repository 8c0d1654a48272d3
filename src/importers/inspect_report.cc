// What `gpusizer inspect` shows: the imported architecture, its exact parameter count and, when
// weight files were read, their exact bytes next to the analytic estimate for the same format.
#include <fmt/format.h>

#include <cmath>

#include "gpusizer/catalog.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"

namespace gpusizer {
namespace {

using nlohmann::json;

const NumberFormat* find_format(const std::string& id, const Catalog& catalog) {
  if (id.empty()) return nullptr;
  for (const auto& f : catalog.formats())
    if (f.id == id) return &f;
  return nullptr;
}

// Bytes of the weights in `format_id` from the parameter count: the embedding and the head in
// the formats the catalog says they keep (data/formats.csv embedding_format/lm_head_format,
// dense_format for the matrices outside the routed experts).
std::optional<double> analytic_bytes(const ParamCounts& c, const std::string& format_id,
                                     const Catalog& catalog) {
  const NumberFormat* f = find_format(format_id, catalog);
  if (!f) return std::nullopt;
  const double head = static_cast<double>(c.lm_head);
  const double emb = static_cast<double>(c.embedding);
  const double experts = static_cast<double>(c.routed_experts);
  const double body = static_cast<double>(c.total) - head - emb - experts;
  return (experts * f->bits_per_value + body * f->dense_bytes_per_value(c.routed_experts > 0) * 8 +
          emb * f->embedding_bytes_per_value() * 8 + head * f->lm_head_bytes_per_value() * 8) /
         8.0;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  for (; b >= 1024 && u < 4; ++u) b /= 1024;
  return fmt::format("{:.2f} {}", b, units[u]);
}

std::string human_count(int64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1e9) return fmt::format("{:.2f}B", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  return std::to_string(n);
}

}  // namespace

std::string imported_weights_format(const ImportedModel& im, const Catalog& catalog) {
  if (!im.weights_format.empty() || !im.weights || im.weights->elements <= 0 ||
      im.weights->format != "gguf")
    return im.weights_format;
  return catalog.closest_format(
      "gguf", im.weights->total_bytes * 8 / static_cast<double>(im.weights->elements));
}

namespace {

// The architecture as config.json names it, with the MLA and MoE dimensions when present.
json architecture_json(const Model& m) {
  json model = {{"id", m.id},
                {"name", m.name},
                {"family", m.family},
                {"source", m.source},
                {"vocab_size", m.vocab_size},
                {"hidden_size", m.hidden_size},
                {"intermediate_size", m.intermediate_size},
                {"num_layers", m.num_layers},
                {"num_attention_heads", m.num_heads},
                {"num_key_value_heads", m.num_kv_heads},
                {"head_dim", m.head_dim},
                {"attention_type", m.attention_type},
                {"mlp_type", m.gated_mlp ? "gated" : "plain"},
                {"norm_type", m.layer_norm ? "LayerNorm" : "RMSNorm"},
                {"norms_per_layer", m.norms_per_layer},
                {"qkv_bias", m.qkv_bias},
                {"o_bias", m.o_bias},
                {"mlp_bias", m.mlp_bias},
                {"tie_word_embeddings", m.tied_embeddings},
                {"qk_norm", m.qk_norm},
                {"max_position_embeddings", m.max_position_embeddings},
                {"sliding_window", m.sliding_window},
                {"num_window_layers", m.num_window_layers},
                {"num_linear_layers", m.num_linear_layers}};
  if (m.mla)
    model["mla"] = {{"q_lora_rank", m.mla->q_lora_rank},
                    {"kv_lora_rank", m.mla->kv_lora_rank},
                    {"qk_nope_head_dim", m.mla->qk_nope_head_dim},
                    {"qk_rope_head_dim", m.mla->qk_rope_head_dim},
                    {"v_head_dim", m.mla->v_head_dim}};
  if (m.is_moe())
    model["moe"] = {{"num_experts", m.num_experts},
                    {"experts_per_token", m.experts_per_token},
                    {"moe_intermediate_size", m.moe_intermediate_size},
                    {"num_shared_experts", m.num_shared_experts},
                    {"shared_expert_intermediate_size", m.shared_expert_intermediate_size},
                    {"num_moe_layers", m.num_moe_layers},
                    {"num_dense_layers", m.num_dense_layers},
                    {"dense_intermediate_size", m.dense_intermediate_size}};
  return model;
}

json params_json(const ParamCounts& c) {
  return {{"total", c.total},
          {"active", c.active},
          {"active_excl_input_embedding", c.active_compute},
          {"embedding", c.embedding},
          {"lm_head", c.lm_head},
          {"attention", c.attention},
          {"dense_mlp", c.dense_mlp},
          {"routed_experts", c.routed_experts},
          {"shared_experts", c.shared_experts},
          {"router", c.router},
          {"norms", c.norms},
          {"computed", c.computed}};
}

// What the weight files hold, exactly.
json weights_file_json(const WeightsFile& w, const std::string& format) {
  json by_dtype = json::object();
  for (const auto& [dtype, bytes] : w.bytes_by_dtype) by_dtype[dtype] = static_cast<int64_t>(bytes);
  return {{"format", w.format},
          {"path", w.path},
          {"files", w.files},
          {"tensors", w.tensors},
          {"elements", w.elements},
          {"total_bytes", static_cast<int64_t>(w.total_bytes)},
          {"embedding_bytes", static_cast<int64_t>(w.embedding_bytes)},
          {"lm_head_bytes", static_cast<int64_t>(w.lm_head_bytes)},
          {"bytes_by_dtype", by_dtype},
          {"weights_format", w.weights_format.empty() ? format : w.weights_format}};
}

// The files' elements and bytes beside the counted parameters and the analytic bytes.
json comparison_json(const WeightsFile& w, const ParamCounts& c, const std::string& format,
                     const Catalog& catalog) {
  json cmp = {{"file_elements", w.elements},
              {"counted_params", c.total},
              {"param_difference", w.elements - c.total},
              {"file_bytes", static_cast<int64_t>(w.total_bytes)}};
  if (auto a = analytic_bytes(c, format, catalog)) {
    cmp["analytic_bytes"] = static_cast<int64_t>(std::llround(*a));
    cmp["analytic_format"] = format;
    cmp["bytes_difference_pct"] =
        w.total_bytes > 0 ? (*a - w.total_bytes) / w.total_bytes * 100 : 0.0;
  }
  return cmp;
}

}  // namespace

json imported_to_json(const ImportedModel& im, const Catalog& catalog) {
  const std::string format = imported_weights_format(im, catalog);
  const ParamCounts c = count_params(im.model);
  json out = {{"model", architecture_json(im.model)},
              {"params", params_json(c)},
              {"weights_format", format},
              {"weights", nullptr},
              {"warnings", im.warnings}};
  if (im.weights) {
    out["weights"] = weights_file_json(*im.weights, format);
    out["comparison"] = comparison_json(*im.weights, c, format, catalog);
  }
  return out;
}

std::string imported_to_text(const ImportedModel& im, const Catalog& catalog) {
  const std::string format = imported_weights_format(im, catalog);
  const Model& m = im.model;
  const ParamCounts c = count_params(m);
  std::string s;
  auto row = [&](std::string_view k, const std::string& v) {
    s += fmt::format("  {:<26} {}\n", k, v);
  };
  s += fmt::format("{} ({}, from {})\n", m.name, m.family.empty() ? "?" : m.family, m.source);
  row("layers", std::to_string(m.num_layers));
  row("hidden size", std::to_string(m.hidden_size));
  row("FFN width", std::to_string(m.intermediate_size) + (m.gated_mlp ? " (gated)" : " (plain)"));
  row("attention", fmt::format("{} heads, {} KV heads, head_dim {} ({})", m.num_heads,
                               m.num_kv_heads, m.head_dim, m.attention_type));
  if (m.mla)
    row("MLA ranks", fmt::format("q {}, kv {}, rope {}, v {}", m.mla->q_lora_rank,
                                 m.mla->kv_lora_rank, m.mla->qk_rope_head_dim, m.mla->v_head_dim));
  if (m.num_window_layers > 0)
    row("sliding window", fmt::format("{} tokens on {} of {} layers", m.sliding_window,
                                      m.num_window_layers, m.num_layers));
  if (m.is_moe())
    row("experts", fmt::format("{} routed ({} active), {} shared, width {}, {} MoE layers",
                               m.num_experts, m.experts_per_token, m.num_shared_experts,
                               m.moe_intermediate_size, m.num_moe_layers));
  row("vocabulary", std::to_string(m.vocab_size) + (m.tied_embeddings ? " (tied head)" : ""));
  row("parameters",
      fmt::format("{} ({}){}", c.total, human_count(c.total), c.computed ? "" : " given"));
  if (m.is_moe()) row("active parameters", fmt::format("{} ({})", c.active, human_count(c.active)));
  row("weights format", format.empty() ? "unknown" : format);
  if (im.weights) {
    const WeightsFile& w = *im.weights;
    row("weight files", fmt::format("{} ({} file{}, {} tensors)", w.format, w.files,
                                    w.files == 1 ? "" : "s", w.tensors));
    row("stored parameters", fmt::format("{} ({})", w.elements, human_count(w.elements)));
    row("weight bytes",
        fmt::format("{} ({})", static_cast<int64_t>(w.total_bytes), human_bytes(w.total_bytes)));
    for (const auto& [dtype, bytes] : w.bytes_by_dtype) row("  " + dtype, human_bytes(bytes));
    if (auto a = analytic_bytes(c, format, catalog))
      row("analytic bytes",
          fmt::format("{} ({:+.2f}% vs file)", human_bytes(*a),
                      w.total_bytes > 0 ? (*a - w.total_bytes) / w.total_bytes * 100 : 0.0));
  }
  for (const auto& warning : im.warnings) s += "  warning: " + warning + "\n";
  return s;
}

}  // namespace gpusizer
