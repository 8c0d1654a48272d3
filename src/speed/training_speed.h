#pragma once
// Training step time, stage by stage (docs/speed.md "Training"): the FLOPs of the heaviest
// pipeline stage (transformer layers, plus the LM head and loss on the last one) at the dense
// tensor rate times a saturating GEMM efficiency, the bandwidth-bound non-GEMM kernels (and the
// materialized s x s scores of eager attention), recomputation, tensor-parallel collectives on
// the link the group crosses, the pipeline bubble, exposed data-parallel / ZeRO-3 traffic, the
// optimizer step and CPU offload over PCIe. The exposed parts add up to the step time.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/engine_profile.h"
#include "gpusizer/performance_estimate.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_profile.h"
#include "memory/model_counts.h"
#include "speed/model_costs.h"

namespace gpusizer {

/// Exposed seconds of one optimizer step by cause (contract v2 "Training layouts":
/// performance.step_breakdown_s). The parts add up to the step time.
struct StepBreakdown {
  double compute = 0;    ///< forward + backward GEMMs and non-GEMM kernels, launch overheads
  double recompute = 0;  ///< replayed forward work (activation checkpointing)
  double tp_comm = 0;    ///< tensor/sequence-parallel collectives (not overlapped in Megatron)
  double pp_bubble = 0;  ///< pipeline fill and drain, plus the stage-boundary sends
  double dp_comm = 0;    ///< gradient reduction and ZeRO-3 gathers not hidden behind compute
  double ep_comm = 0;    ///< MoE all-to-all
  double optimizer = 0;  ///< optimizer step on the GPU (bandwidth-bound)
  double offload = 0;    ///< PCIe traffic and CPU optimizer time of offloading
  double total() const {
    return compute + recompute + tp_comm + pp_bubble + dp_comm + ep_comm + optimizer + offload;
  }
  /// The contract's keys and values.
  StepSeconds by_cause() const;
};

struct TrainingSpeed {
  // Provided, so that the optional training_speed makes holding one (std::in_place) is not zeroed
  // whole before the initializers below run (issue 18).
  TrainingSpeed() {}  // NOLINT(modernize-use-equals-default): `= default` would zero it
  double step_time_s = 0;
  double tokens_per_s = 0;  ///< all GPUs (cv-train: images/s)
  double tokens_per_s_per_gpu = 0;
  double tflops_per_gpu = 0;  ///< model FLOPs (6N + attention, PaLM appendix B) per second
  double mfu = 0;
  std::optional<double> time_to_train_s;
  double hardware_flops_per_token = 0;
  double model_flops_per_token = 0;
  double compute_s = 0, dp_comm_s = 0, tp_comm_s = 0, bubble = 0;
  StepBreakdown breakdown;
  std::string_view dtype;  ///< a literal (training_dtype)
  /// QLoRA: the step's seconds spent dequantizing the 4-bit weights to 16-bit copies (inside
  /// compute and recompute).
  double qlora_dequant_s = 0;
  bool compiled_elementwise = false;  ///< the element-wise kernels fused by torch.compile
};

/// Whether the task trains on frozen base weights (LoRA, QLoRA, freeze-tuning), which take no
/// weight gradients.
bool frozen_base(Task task);

/// The compute dtype of a training precision on `gpu`: bf16, fp16, fp8, tf32 or fp32.
std::string_view training_dtype(MixedPrecision mixed_precision, const Gpu& gpu, bool cv);

/// The highest MFU a training step of `s` can reach: the maximum achievable matmul fraction
/// measured on its GPU for its precision's GEMMs (data/speed.json achievable_matmul), 1 for
/// fp32 and tf32 steps, which the tables do not measure.
double mfu_ceiling(const Scenario& s, const SpeedProfile& profile);

/// Trainable LoRA adapter parameters (A: r x in, B: out x r per targeted matrix); `active`
/// counts routed experts at experts_per_token / num_experts.
double lora_params(const Model& model, const TrainingOptions& t, bool active);

/// Hardware FLOPs per trained token for the task (what the GPU executes), LM head included.
double training_flops_per_token(const Scenario& s);
/// The same with the model's costs already computed.
double training_flops_per_token(const Scenario& s, const ModelCosts& costs);

/// Bytes the optimizer step reads and writes per trained parameter (HBM or host memory).
double optimizer_bytes_per_param(const TrainingOptions& t);

/// What the step reads of the model's matrices, in one pass over them (issue 18: three passes
/// before, each testing the LoRA targets or the names again).
struct ModuleSums {
  double lora_bytes = 0;  ///< bytes the adapters move per token (LoRA tasks; else 0)
  double gemm_flops = 0;  ///< the layers' GEMM FLOPs, routed experts at k / E
  double gemm_time = 0;   ///< the same over each GEMM's depth efficiency
};

/// The rates of a language-model step that read only the GPU, the engine (its profile and its
/// speed-profile entries) and the training precision and FlashAttention flag: the compute dtype
/// and its dense peak, the GEMM rate before the depth efficiency, FlashAttention's own rates.
/// Keyed by the rows' addresses, as a search's candidates hold them (training_speed.cc); `engine`
/// is the scenario's engine's profile, whose name the entries are found by.
/// Only `gpu` has an initializer: the other fields are read only once they are set (a key whose
/// GPU matches was set whole; issue 18: an estimate without a memo made one zeroed first).
struct StepRates {
  const Gpu* gpu = nullptr;  ///< nullptr: nothing held
  const EngineProfile* engine;
  const SpeedProfile* profile;
  MixedPrecision mixed_precision;
  bool flash_attention;

  /// The engine's training entry: the lookups' (a copy in the catalog's index) or the profile's
  /// by the engine's name, the same figures. Not a key: a candidate whose lookups do not hold
  /// (another weight format) finds the profile's, at another address (training_speed.cc).
  const TrainingProfile* training;
  std::string_view dtype;  ///< training_dtype (a literal): the layers' GEMMs' dtype
  double peak;             ///< the dtype's dense FLOP/s; 0 when the GPU row lacks it
  double base;             ///< peak x MAMF x the engine's eff_max x the vendor's compute scale
  /// The same two for the 16-bit matmuls of an FP8 recipe (attention, the head); peak and base
  /// where the layers run in the one dtype.
  double peak16, base16;
  /// The GEMMs' depth efficiency constant in the dtype's reduction depth (training.eff_k_hidden;
  /// twice it for FP8, whose MMA reduces twice as deep a step: training_speed.cc).
  double k_half;
  bool flash_rates;  ///< FlashAttention timed at its own rates (else with the GEMMs)
  double attn_s_per_flop, attn_replay_s_per_flop;  ///< with flash_rates
};

/// Forward FLOPs per token, by part (Kaplan et al. 2020 sec. 2.1: 2 FLOPs per weight and token).
struct ForwardFlops {
  double layers = 0;  ///< transformer-layer GEMMs (active experts only)
  double head = 0;    ///< LM head: 2 x vocab x hidden, tied or not (it is a GEMM either way)
  double attn = 0;    ///< attention core (QK^T and PV), as the kernel executes it
  double lora = 0;    ///< adapters: 2 x adapter parameters
  /// GEMMs of Megatron-Core's selective recompute_modules, replayed once (module_replay_flops).
  double modules = 0;
};

/// One micro-batch's seconds on the slowest pipeline stage, by part of the step
/// (training_speed.cc micro_batch): what the stage's work and its model-parallel traffic come
/// to, which the data-parallel count, ZeRO stage, offload, optimizer and GPU count do not move.
struct MicroBatchSeconds {
  double compute;  ///< forward, LM head, loss and the engine's overhead a micro-batch
  double replay;   ///< recomputation
  double tp;       ///< tensor-, sequence- and context-parallel collectives
  double ep;       ///< MoE all-to-all
  double body;     ///< a body stage's micro-batch (the pipeline's fill and drain)
  double last;     ///< the last stage's micro-batch (what data-parallel traffic hides behind)
};

/// A search's ModuleSums by the fields they read: the model and its counts (by address: a search
/// keeps both while its candidates change other fields), the tensor-parallel width and the
/// engine's adapter bytes and GEMM depth figure. A candidate with a slot's fields takes its sums
/// (~250 instructions of each kept change, issue 18). The model and counts a slot names must
/// not change, nor be destroyed, while the memo is used.
struct ModuleSumsMemo {
  struct Slot {
    const Model* model = nullptr;
    const ModelCounts* counts = nullptr;
    double tp = 0, lora_in = 0, lora_out = 0, k_half = 0;
    ModuleSums sums;
  };
  std::array<Slot, 4> slots{};
  size_t next = 0;  ///< the slot the next new key takes
  /// model_flop_costs of the model and counts last asked for, by the same addresses (they read
  /// nothing else; ~90 instructions of each kept change, issue 18).
  const Model* costs_model = nullptr;
  const ModelCounts* costs_counts = nullptr;
  ModelCosts costs;
  /// The same counts' layer matrix parameters, which QLoRA dequantizes each pass; below 0 until a
  /// QLoRA candidate first asks (~50 instructions of each).
  double matrix_params = -1;
  /// The forward FLOPs per token (forward_flops) of the same costs for the last sequence length,
  /// attention kind (FlashAttention's causal saving or eager) and task kind (adapters or none)
  /// asked for, the other fields forward_flops reads; the length below 0 until set and again
  /// when the costs are made anew (a search's candidates mostly keep the base's three: ~60
  /// instructions of each kept change, issue 18).
  int64_t flops_seq_len = -1;
  bool flops_flash = false, flops_lora = false;
  uint8_t flops_modules = 0;  ///< the selective recompute_modules the FLOPs were made for
  ForwardFlops flops;
  /// The step's rates of the last GPU, engine and precision asked for (a search's candidates
  /// keep the base's GPU and mostly its engine: ~100 instructions of each kept change, issue 18).
  StepRates rates;
  /// optimizer_bytes_per_param of the last optimizer and precision asked for, the two fields it
  /// reads (a search's kept changes alternate two optimizers at most: ~40 instructions of each).
  Optimizer bytes_optimizer{};
  MixedPrecision bytes_precision{};
  double optimizer_bytes = -1;  ///< below 0 until made
  /// How many times `rates` were made: a micro-batch slot names the rates it was made with.
  uint64_t rates_made = 0;
  /// A micro-batch's seconds by the fields its work reads besides the rates (training_speed.cc
  /// same_micro_batch): the model and counts (by address, as the sums), the rates made, the
  /// task, batch, length, tensor, pipeline, context and expert widths, the node's size and the
  /// recomputation, compile, sequence-parallel and TP-overlap settings. A search's levers that
  /// change only the data-parallel layout, the ZeRO stage, the offload or the optimizer (ZeRO-3
  /// over more GPUs, 8-bit AdamW) keep the base's (issue 18: the stage's work, ~400 instructions of
  /// each such kept change). Training_speed with the memo keeps its step's (the base's, for the
  /// answer's search). The first `micro_batches_held` slots are read; not zeroed.
  struct MicroBatchSlot {
    const Model* model;
    const ModelCounts* counts;
    uint64_t rates_made;
    int64_t batch, seq_len, tp, pp, cp, ep, gpus_per_node;
    Task task;
    Recompute recompute;
    uint8_t recompute_modules;
    bool compile, sequence_parallel, tp_comm_overlap;
    MicroBatchSeconds seconds;
  };
  std::array<MicroBatchSlot, 4> micro_batches;
  size_t micro_batches_held = 0;
  size_t next_micro_batch = 0;  ///< the slot a new key takes once all are held
};

/// Step time and throughput under `engine` (the scenario's engine profile); nullopt with `why`
/// when the GPU lacks the needed figures.
std::optional<TrainingSpeed> training_speed(const Scenario& s, const EngineProfile& engine,
                                            const SpeedProfile& profile, std::string& why);
/// The same with the model already counted (`counts` = count_model(s), or its params and
/// modules).
/// With `memo`, the matrices' sums are taken from it when it holds them (ModuleSumsMemo).
std::optional<TrainingSpeed> training_speed(const Scenario& s, const EngineProfile& engine,
                                            const SpeedProfile& profile, const ModelCounts& counts,
                                            std::string& why, ModuleSumsMemo* memo = nullptr);
/// training_speed(s, engine, profile, counts, why, &memo)->tokens_per_s, the same double, for a
/// search that reads no other figure of a candidate's step (its speed factor): the step's time
/// made, not the figures only the answer reads. nullopt where training_speed gives none.
std::optional<double> training_tokens_per_s(const Scenario& s, const EngineProfile& engine,
                                            const SpeedProfile& profile, const ModelCounts& counts,
                                            ModuleSumsMemo& memo);

}  // namespace gpusizer
