// Weights, gradients, optimizer states and master weights: the "model states" of ZeRO
// (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", sec. 3.1: mixed-precision Adam keeps 2 + 2 + 12 bytes per parameter).
#include <fmt/format.h>

#include <cmath>

#include "memory/memory_parts.h"
#include "memory/sharding.h"

namespace gpusizer::memory {
namespace {

const NumberFormat* find_format(const std::string& id) {
  for (const auto& f : Catalog::builtin().formats())
    if (f.id == id) return &f;
  return nullptr;
}

double bytes_of(const std::string& format_id, double fallback) {
  if (format_id.empty()) return fallback;
  const NumberFormat* f = find_format(format_id);
  return f ? f->bytes_per_value() : fallback;
}

bool full_training(const Scenario& s) {
  return s.task == Task::kFull || s.task == Task::kPretrain || s.task == Task::kCvTrain;
}
bool adapter_training(const Scenario& s) {
  return s.task == Task::kLora || s.task == Task::kQlora;
}

// Bytes of the working copy of trainable weights in full training.
double working_bytes(const Scenario& s) {
  return s.training.mixed_precision == "fp32" ? 4 : 2;
}

// Parameters of each place in the model (router, norms, biases and sinks count as layers).
ModelBytes param_split(const Scenario& s) {
  const ParamCounts c = count_params(s.model);
  ModelBytes p;
  p.embedding = static_cast<double>(c.embedding);
  p.lm_head = static_cast<double>(c.lm_head);
  p.experts = static_cast<double>(c.routed_experts);
  p.layers = static_cast<double>(c.total) - p.embedding - p.lm_head - p.experts;
  return p;
}

double lora_params(const Scenario& s) {
  double n = 0;
  for (const auto& m : linear_modules(s.model)) {
    bool targeted = false;
    for (const auto& t : s.training.lora_targets) targeted |= lora_target_matches(t, m.name);
    if (targeted)
      n += static_cast<double>(m.count) * static_cast<double>(s.training.lora_rank) *
           static_cast<double>(m.in + m.out);
  }
  return n;
}

double saved_module_params(const Scenario& s) {
  const ParamCounts c = count_params(s.model);
  double n = 0;
  for (const auto& m : s.training.modules_to_save) {
    if (m == "embed_tokens") n += static_cast<double>(c.embedding);
    // A tied head is the embedding itself; PEFT still saves a separate trainable copy.
    if (m == "lm_head")
      n += static_cast<double>(c.lm_head ? c.lm_head : s.model.vocab_size * s.model.hidden_size);
  }
  return n;
}

// Trainable parameters by place, so that they shard as the model does.
ModelBytes trainable_split(const Scenario& s) {
  ModelBytes t;
  if (full_training(s)) return param_split(s);
  if (s.task == Task::kFreeze) {
    const ModelBytes p = param_split(s);
    const double share = std::min(1.0, static_cast<double>(s.training.trainable_layers) /
                                           static_cast<double>(s.model.num_layers));
    t.layers = p.layers * share;
    t.experts = p.experts * share;
    return t;
  }
  if (adapter_training(s)) {
    t.layers = lora_params(s);
    t.embedding = saved_module_params(s);
  }
  return t;
}

ModelBytes scaled(ModelBytes b, double factor) {
  b.layers *= factor;
  b.experts *= factor;
  b.embedding *= factor;
  b.lm_head *= factor;
  return b;
}

// Optimizer state bytes per trainable parameter (PyTorch torch.optim and bitsandbytes).
double optimizer_bytes_per_param(const Scenario& s, double state_bytes) {
  const std::string& o = s.training.optimizer;
  // bitsandbytes 8-bit blockwise states: 1 byte + one fp32 absmax per block of 256
  // (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
  if (o == "adamw-8bit" || o == "paged-adamw-8bit") return 2.0 * (1.0 + 4.0 / 256.0);
  if (o == "adamw" || o == "paged-adamw") return 2.0 * state_bytes;  // exp_avg, exp_avg_sq
  if (o == "sgd-momentum" || o == "lion") return state_bytes;        // one momentum buffer
  if (o == "sgd") return 0.0;
  return 0.0;  // adafactor: factored, computed separately
}

}  // namespace

double usable_capacity(const Gpu& gpu, const Catalog& catalog) {
  const auto& device = catalog.engines().at("device");
  // Vendors market HBM and GDDR capacity in binary units ("80GB" A100 = 80 GiB).
  double bytes = gpu.memory_gb * 1024.0 * 1024.0 * 1024.0;
  if (gpu.segment == "apple-soc") return bytes * device.value("apple_wired_fraction", 0.7);
  const bool gddr = gpu.memory_type.rfind("GDDR", 0) == 0;
  // Datacenter GDDR cards ship with ECC on, which takes capacity in-band.
  if (gddr && gpu.has_ecc() && gpu.segment == "datacenter")
    bytes *= 1.0 - device.value("gddr_ecc_fraction", 0.0625);
  return bytes * (1.0 - device.value("driver_reserved_fraction", 0.0106));
}

double trainable_params(const Scenario& s) {
  if (!is_training(s.task)) return 0;
  return trainable_split(s).total();
}

Part weights(const Scenario& s) {
  const ModelBytes p = param_split(s);
  ModelBytes b;
  std::string basis;
  if (full_training(s)) {
    b = scaled(p, working_bytes(s));
    basis = fmt::format("params x {:g} B ({} working copy)", working_bytes(s),
                        s.training.mixed_precision == "fp32" ? "fp32" : "16-bit");
  } else {
    const NumberFormat& f = s.weights;
    const double small = 2.0;  // norms, biases, routers stay 16-bit in every quantized format
    std::vector<LinearModule> mods = linear_modules(s.model);
    double matrix = 0, router = 0;
    for (const auto& m : mods) {
      const double n = static_cast<double>(m.in * m.out * m.count);
      if (m.name == "router")
        router += n;
      else if (!m.expert)
        matrix += n;
    }
    const double other = std::max(0.0, p.layers - matrix - router);
    const double layer_bytes = f.kind == "float"
                                   ? p.layers * f.bytes_per_value()
                                   : matrix * f.bytes_per_value() + (other + router) * small;
    // Where the count is a given fact (hybrid or CV networks), the layers' split into matrices
    // is unknown: all of it takes the format.
    b.layers = mods.empty() || !count_params(s.model).computed ? p.layers * f.bytes_per_value()
                                                               : layer_bytes;
    b.experts = p.experts * f.bytes_per_value();
    b.embedding = p.embedding * bytes_of(f.embedding_format, f.bytes_per_value());
    b.lm_head = p.lm_head * bytes_of(f.lm_head_format, f.bytes_per_value());
    basis = fmt::format("params x {:g} bits ({}: {})", f.bits_per_value, f.id, f.source);
    if (!f.embedding_format.empty())
      basis += fmt::format("; embedding {} and head {}", f.embedding_format, f.lm_head_format);
    if (s.weights_file && s.weights_file->weights_format == f.id &&
        s.weights_file->total_bytes > 0) {
      b = scaled(b, s.weights_file->total_bytes / b.total());
      basis = fmt::format("exact tensor bytes read from {} ({})", s.weights_file->format,
                          s.weights_file->path);
    }
    // Trainable copies: LoRA adapters in fp32 (PEFT autocast_adapter_dtype=True), freeze-tuned
    // layers upcast to fp32 (LLaMA-Factory upcast_trainable_params), modules_to_save copies.
    const ModelBytes t = trainable_split(s);
    if (adapter_training(s)) {
      b.layers += t.layers * 4.0;
      // modules_to_save copies keep the module's 16-bit dtype (PEFT ModulesToSaveWrapper).
      b.embedding += t.embedding * 2.0;
      basis += "; + LoRA adapters in fp32";
      if (t.embedding > 0) basis += " and 16-bit trainable copies of the saved modules";
    } else if (s.task == Task::kFreeze) {
      b.layers += t.layers * 2.0;
      b.experts += t.experts * 2.0;
      basis += "; + trainable layers upcast to fp32";
    }
  }
  const bool zero3 = is_training(s.task) && s.training.zero_stage >= 3;
  Part part{per_gpu(b, s, zero3), basis};
  if (zero3) {
    // ZeRO-3/FSDP gather whole layers before use; the prefetch keeps about two in flight.
    const double layer = (b.layers + b.experts) / static_cast<double>(s.model.num_layers);
    part.bytes += 2.0 * layer / static_cast<double>(s.parallel.tp);
    part.basis += "; ZeRO-3: sharded over dp + 2 gathered layers";
  }
  if (s.training.offload == "optimizer+params" && is_training(s.task)) {
    part.bytes = 2.0 * (b.layers + b.experts) / static_cast<double>(s.model.num_layers);
    part.basis += "; parameters offloaded to host: 2 layers resident";
  }
  return part;
}

Part gradients(const Scenario& s) {
  if (!is_training(s.task)) return {0, "inference keeps no gradients"};
  // Mixed precision keeps 16-bit gradients (ZeRO sec. 3.1); fp32 training and the fp32 trainable
  // copies of adapter and freeze tuning keep fp32 ones.
  const double bytes = full_training(s) ? working_bytes(s) : 4.0;
  ModelBytes t = scaled(trainable_split(s), bytes);
  if (adapter_training(s)) t.embedding *= 2.0 / bytes;  // saved modules: 16-bit gradients
  Part part{per_gpu(t, s, s.training.zero_stage >= 2),
            fmt::format("trainable params x {:g} B", bytes)};
  if (s.training.zero_stage >= 2) part.basis += "; ZeRO-2/3: sharded over dp";
  if (s.training.optimizer_in_backward) {
    // Each gradient is applied and freed as soon as it exists (torchtune optimizer_in_bwd):
    // about one layer's worth is alive at a time.
    part.bytes /= static_cast<double>(std::max<int64_t>(1, s.model.num_layers));
    part.basis += "; optimizer in backward: one layer alive";
  }
  return part;
}

Part optimizer_states(const Scenario& s) {
  if (!is_training(s.task)) return {0, "inference keeps no optimizer states"};
  // States follow the trainable parameters' dtype: fp32 with a master copy or fp32 adapters,
  // bf16 in pure-bf16 training (torch.optim creates states like the parameter).
  const double state_bytes = full_training(s) && s.training.mixed_precision == "pure-bf16" ? 2 : 4;
  const ModelBytes t = trainable_split(s);
  double per_param = optimizer_bytes_per_param(s, state_bytes);
  std::string basis =
      fmt::format("trainable params x {:.3g} B ({})", per_param, s.training.optimizer);
  ModelBytes b = scaled(t, per_param);
  if (s.training.optimizer == "adafactor") {
    // Adafactor (Shazeer & Stern 2018) factors the second moment of each matrix into a row and
    // a column vector; no first moment by default.
    double factored = 0;
    for (const auto& m : linear_modules(s.model))
      factored += static_cast<double>(m.count * (m.in + m.out)) * state_bytes;
    const double share =
        t.total() / std::max(1.0, static_cast<double>(count_params(s.model).total));
    b = scaled(param_split(s), 0);
    b.layers = factored * std::min(1.0, share) + std::max(0.0, t.total() - t.layers) * state_bytes;
    basis = "adafactor: factored second moments (rows + columns) x 4 B";
  }
  Part part{per_gpu(b, s, s.training.zero_stage >= 1), basis};
  if (s.training.zero_stage >= 1) part.basis += "; ZeRO-1+: sharded over dp";
  if (s.training.optimizer.rfind("paged-", 0) == 0)
    part.basis += "; paged: can spill to host memory under pressure";
  if (s.training.offload != "none") {
    part.bytes = 0;
    part.basis = "offloaded to host memory (ZeRO-Offload)";
  }
  return part;
}

Part master_weights(const Scenario& s) {
  const bool amp = s.training.mixed_precision == "bf16" || s.training.mixed_precision == "fp16";
  if (!full_training(s) || !amp) return {0, "no separate fp32 master copy"};
  const ModelBytes t = scaled(trainable_split(s), 4.0);
  Part part{per_gpu(t, s, s.training.zero_stage >= 1),
            "trainable params x 4 B (fp32 master, mixed precision; ZeRO sec. 3.1)"};
  if (s.training.offload != "none") part = {0, "offloaded to host memory with the optimizer"};
  return part;
}

}  // namespace gpusizer::memory
