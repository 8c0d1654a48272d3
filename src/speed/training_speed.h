#pragma once
// Training step time: FLOPs per token by task (6N, 8N with recomputation, 4N + adapters for
// LoRA), at the dense tensor rate of the training precision times a size-dependent efficiency,
// plus data-parallel and tensor-parallel communication and the pipeline bubble.
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/scenario.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer {

struct TrainingSpeed {
  double step_time_s = 0;
  double tokens_per_s = 0;  ///< all GPUs (cv-train: images/s)
  double tokens_per_s_per_gpu = 0;
  double tflops_per_gpu = 0;  ///< model FLOPs (6N + attention, PaLM appendix B) per second
  double mfu = 0;
  std::optional<double> time_to_train_s;
  double hardware_flops_per_token = 0;
  double model_flops_per_token = 0;
  double compute_s = 0, dp_comm_s = 0, tp_comm_s = 0, bubble = 0;
  std::string dtype;
};

/// The compute dtype of a training precision on `gpu`: bf16, fp16, tf32 or fp32.
std::string training_dtype(const std::string& mixed_precision, const Gpu& gpu, bool cv);

/// Trainable LoRA adapter parameters (A: r x in, B: out x r per targeted matrix); `active`
/// counts routed experts at experts_per_token / num_experts.
double lora_params(const Model& model, const TrainingOptions& t, bool active);

/// Hardware FLOPs per trained token for the task (what the GPU executes).
double training_flops_per_token(const Scenario& s);

/// Step time and throughput; nullopt with `why` when the GPU lacks the needed figures.
std::optional<TrainingSpeed> training_speed(const Scenario& s, const SpeedProfile& profile,
                                            std::string& why);

}  // namespace gpusizer
