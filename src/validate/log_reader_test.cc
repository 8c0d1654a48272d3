// The log readers on excerpts quoted from public issues (short log lines, with their sources),
// and on the documented figures formats. Expected values are the numbers printed in the excerpt,
// converted by hand (GiB = 2^30 bytes, MiB = 2^20).
#include "gpusizer/log_reader.h"

#include <gtest/gtest.h>

#include <map>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMiB = 1024.0 * 1024;

std::map<std::string, double> figures(const LogRun& r) {
  std::map<std::string, double> m;
  for (const auto& f : r.figures) m[f.key] = f.value;
  return m;
}

// vLLM 0.6 (V0) start-ups of Llama-3.1-8B-Instruct on an RTX 3090 at --max-model-len 20000 and
// 29000. Source: https://github.com/vllm-project/vllm/issues/10517 (comment of 2024-12-02); the
// issue's markdown ate the "# " before the first "GPU blocks".
const char* kVllmV0 = R"(Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
GPU blocks: 1952, # CPU blocks: 2048
Maximum concurrency for 20000 tokens per request: 1.56x
Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.98GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=2.89GiB gpu_memory_utilization=0.90
# GPU blocks: 1478, # CPU blocks: 2048
Maximum concurrency for 29000 tokens per request: 0.82x
The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
)";

TEST(LogReader, InvalidUtf8InANameBecomesQuestionMarks) {
  // Found by fuzz_log: a llama-bench CSV whose GPU cell holds a NUL-padded byte 0x9C (a lone
  // continuation byte) made the run's scenario unprintable as JSON (nlohmann type_error 316).
  using namespace std::string_literals;
  const std::string csv = "model,gpu,decode_tokens_per_s\nllama5\0"s + "99b,rtx-4\x01"s +
                          std::string(6, '\0') + "\x9c"s + "090,61\n"s;
  const LogReading r = read_log(csv, "bench.csv");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].scenario.dump().find('\x9c'), std::string::npos);
  EXPECT_NE(r.runs[0].scenario.dump().find("?090"), std::string::npos);
  // A well-formed multi-byte name is kept as it is: "4090显卡" (U+663E U+5361, 3 bytes each).
  const LogReading ok = read_log(
      "model,gpu,decode_tokens_per_s\nllama-2-7b,4090\xe6\x98\xbe\xe5\x8d\xa1,61\n", "b.csv");
  ASSERT_EQ(ok.runs.size(), 1u);
  EXPECT_EQ(ok.runs[0].scenario.value("gpu", ""), "4090\xe6\x98\xbe\xe5\x8d\xa1");
}

TEST(LogReader, VllmV0StartupsAreTwoRuns) {
  const LogReading r = read_log(kVllmV0, "log");
  EXPECT_EQ(r.format, "vllm");
  ASSERT_EQ(r.runs.size(), 2u);
  auto a = figures(r.runs[0]);
  EXPECT_DOUBLE_EQ(a["weights_bytes"], 14.9888 * kGiB);  // vLLM's "GB" is bytes / 2^30
  EXPECT_DOUBLE_EQ(a["non_torch_bytes"], 0.35 * kGiB);
  EXPECT_DOUBLE_EQ(a["kv_cache_bytes"], 3.81 * kGiB);
  EXPECT_NEAR(a["activation_peak_bytes"], (17.06 - 14.9888) * kGiB, 1.0);  // peak - weights
  EXPECT_EQ(a["gpu_blocks"], 1952);
  EXPECT_EQ(a["kv_cache_tokens"], 1952 * 16);  // 31,232 tokens
  EXPECT_DOUBLE_EQ(a["max_concurrency"], 1.56);
  EXPECT_EQ(r.runs[0].scenario["seq_len"], 20000);
  EXPECT_EQ(r.runs[0].scenario["engine"], "vllm");
  // No version line: 0.6.4's one-line key=value profiling summary (vLLM PR #9352, replaced in
  // 0.6.5) is 0.6.4's code, so 0.6.4 is inferred from the form of line 2, and said to be.
  EXPECT_EQ(r.runs[0].scenario["engine_version"], "0.6.4");
  EXPECT_EQ(r.runs[0].engine_version_inferred_from.rfind("line 2: ", 0), 0u)
      << r.runs[0].engine_version_inferred_from;
  EXPECT_DOUBLE_EQ(r.runs[0].scenario["gpu_memory_utilization"].get<double>(), 0.90);
  auto b = figures(r.runs[1]);
  // 1,478 blocks x 16 = 23,648 tokens: the number the log's own warning states.
  EXPECT_EQ(b["kv_cache_tokens"], 23648);
  EXPECT_DOUBLE_EQ(b["kv_cache_bytes"], 2.89 * kGiB);
  EXPECT_EQ(r.runs[1].scenario["seq_len"], 29000);
  EXPECT_EQ(r.runs[0].figures[0].line, 1);
  EXPECT_EQ(r.runs[1].figures[0].line, 5);
}

// vLLM V1 and SGLang serving Qwen3-235B-A22B-FP8 with TP 4 on H100s.
// Source: https://github.com/vllm-project/vllm/issues/21348 (description, 2025-07-22).
const char* kVllmV1 = R"(Available KV cache memory: 8.11 GiB
GPU KV cache size: 178,880 tokens
)";
const char* kSglang = "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n";

TEST(LogReader, VllmV1AndSglangKvPools) {
  const LogReading v = read_log(kVllmV1, "log");
  ASSERT_EQ(v.runs.size(), 1u);
  auto a = figures(v.runs[0]);
  EXPECT_DOUBLE_EQ(a["kv_cache_bytes"], 8.11 * kGiB);
  EXPECT_EQ(a["kv_cache_tokens"], 178880);  // thousands separators read
  const LogReading s = read_log(kSglang, "log");
  EXPECT_EQ(s.format, "sglang");
  auto b = figures(s.runs[0]);
  EXPECT_EQ(b["kv_cache_tokens"], 367404);
  EXPECT_DOUBLE_EQ(b["kv_cache_bytes"], (8.23 + 8.23) * kGiB);  // K + V
  EXPECT_EQ(s.runs[0].scenario["engine"], "sglang");
}

// SGLang serving Qwen3-30B-A3B. Source: https://github.com/sgl-project/sglang/pull/18263
// (description). Cross-check of the units: 30.5e9 parameters x 2 bytes = 56.8 GiB against the
// 56.98 "GB" loaded, so SGLang's GB is GiB; KV per token 48 layers x 4 KV heads x 128 x 2 (K, V)
// x 2 bytes = 98,304 bytes, x 1,669,816 tokens = 152.88 GiB = 76.44 + 76.44.
const char* kSglangLoad =
    R"([2026-07-15 13:14:53] Load weight end. elapsed=19.09 s, type=Qwen3MoeForCausalLM, avail mem=230.20 GB, mem usage=56.98 GB.
[2026-07-15 13:14:54] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1669816, K size: 76.44 GB, V size: 76.44 GB
[2026-07-15 13:14:54] Memory pool end. avail mem=74.01 GB
)";

TEST(LogReader, SglangWeightsAndKvPool) {
  const LogReading r = read_log(kSglangLoad, "log");
  ASSERT_EQ(r.runs.size(), 1u);
  auto a = figures(r.runs[0]);
  EXPECT_DOUBLE_EQ(a["weights_bytes"], 56.98 * kGiB);
  EXPECT_EQ(a["kv_cache_tokens"], 1669816);
  EXPECT_DOUBLE_EQ(a["kv_cache_bytes"], 152.88 * kGiB);
  EXPECT_NEAR(1669816.0 * 98304 / kGiB, 152.88, 0.01);  // the cross-check above
}

// The version an SGLang log states, as its dotted numbers: the pip pin "sglang==0.5.4" that
// python -m sglang.check_env prints, an image tag of lmsysorg/sglang (the ".post5-cu124" build
// suffix dropped). The reader keeps no release table: gpusizer check maps these through
// data/engines.json's ranges (log_check_test.cc), 0.5.1 included, which no release covers.
TEST(LogReader, SglangVersionIsTheOneStated) {
  const std::string pool = std::string(kSglang);
  const LogReading a = read_log("sglang==0.5.4\n" + pool, "log");
  EXPECT_EQ(a.runs[0].scenario["engine_version"], "0.5.4");
  EXPECT_TRUE(a.runs[0].engine_version_inferred_from.empty());
  const LogReading b = read_log("docker run lmsysorg/sglang:v0.4.6.post5-cu124\n" + pool, "log");
  EXPECT_EQ(b.runs[0].scenario["engine_version"], "0.4.6");
  const LogReading d = read_log("image lmsysorg/sglang:v0.5.19\n" + pool, "log");
  EXPECT_EQ(d.runs[0].scenario["engine_version"], "0.5.19");
  const LogReading c = read_log("sglang==0.5.1\n" + pool, "log");
  EXPECT_EQ(c.runs[0].scenario["engine_version"], "0.5.1");
  const LogReading none = read_log(pool, "log");  // no version line: none is made up
  EXPECT_FALSE(none.runs[0].scenario.contains("engine_version"));
}

// vLLM 0.8 (V0) with tensor parallelism: each worker prints the same summary.
// Source: https://github.com/vllm-project/vllm/pull/14447 (comment by davidsyoung).
const char* kVllmWorkers =
    R"((VllmWorkerProcess pid=521) INFO 04-12 08:21:19 [worker.py:267] model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.
(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] Memory profiling takes 17.59 seconds
(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] the current vLLM instance can use total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.99) = 23.35GiB
(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.
(VllmWorkerProcess pid=577) INFO 04-12 08:21:19 [worker.py:267] model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.
)";

TEST(LogReader, VllmSummaryLineOncePerWorkerIsOneRun) {
  const LogReading r = read_log(kVllmWorkers, "log");
  ASSERT_EQ(r.runs.size(), 1u);
  auto a = figures(r.runs[0]);
  EXPECT_DOUBLE_EQ(a["weights_bytes"], 21.21 * kGiB);
  EXPECT_DOUBLE_EQ(a["non_torch_bytes"], 0.20 * kGiB);
  EXPECT_DOUBLE_EQ(a["activation_peak_bytes"], 0.37 * kGiB);
  EXPECT_DOUBLE_EQ(a["kv_cache_bytes"], 1.57 * kGiB);
  // No version line: V0 worker.py's "model weights take ..." summary (vLLM PR #12126's
  // memory_profiling, release 0.7) is inferred from the form of line 1.
  EXPECT_EQ(r.runs[0].scenario["engine_version"], "0.7");
  EXPECT_EQ(r.runs[0].engine_version_inferred_from.rfind("line 1: ", 0), 0u);
  EXPECT_EQ(r.runs[0].figures[0].repeats, 3);  // three workers
  EXPECT_DOUBLE_EQ(r.runs[0].scenario["gpu_memory_utilization"].get<double>(), 0.99);
  // 23.58 GiB x 0.99 = 23.34 GiB = 21.21 + 0.20 + 0.37 + 1.57 (= 23.35, the log's rounding).
  EXPECT_NEAR(21.21 + 0.20 + 0.37 + 1.57, 23.58 * 0.99, 0.02);
}

// vLLM V1 serving Llama-3.1-70B w8a8 at --max-model-len 2048.
// Source: https://github.com/vllm-project/vllm/pull/12569 (description).
const char* kVllmV1Blocks =
    R"(INFO 01-30 03:18:12 gpu_model_runner.py:848] Loading model weights took 67.7229 GB
INFO 01-30 03:19:14 kv_cache_utils.py:395] # GPU blocks: 1381
INFO 01-30 03:19:14 kv_cache_utils.py:398] Maximum concurrency for 2048 tokens per request: 10.79x
)";

TEST(LogReader, VllmBlocksAreSixteenTokens) {
  const LogReading r = read_log(kVllmV1Blocks, "log");
  auto a = figures(r.runs.at(0));
  EXPECT_DOUBLE_EQ(a["weights_bytes"], 67.7229 * kGiB);
  // 1,381 blocks x 16 = 22,096 tokens; / 2,048 per request = 10.79, the log's concurrency.
  EXPECT_EQ(a["kv_cache_tokens"], 22096);
  EXPECT_NEAR(a["kv_cache_tokens"] / 2048, a["max_concurrency"], 0.005);
  EXPECT_EQ(r.runs[0].scenario["seq_len"], 2048);
}

// vLLM V1 at 0.24: the version and the path its first line states (gpusizer check then takes
// the rules of release 0.21, whose range is 0.21 to 0.27). The gpu_worker.py lines after it are
// of V1's form too, but a stated version wins over one inferred from a form.
// Source: https://github.com/noonghunna/club-3090/issues/612 (RTX 5090, cut).
const char* kVllmV1Recent =
    R"((EngineCore pid=107) INFO 07-06 22:50:46 [core.py:114] Initializing a V1 LLM engine (v0.24.0) with config: model='~/.cache/huggingface/qwen3.6-35b-a3b-nvfp4'
(EngineCore pid=107) INFO 07-06 22:52:09 [gpu_worker.py:508] Available KV cache memory: 5.98 GiB
(EngineCore pid=107) INFO 07-06 22:52:09 [kv_cache_utils.py:2146] GPU KV cache size: 567,978 tokens
)";

TEST(LogReader, VllmV1StatesItsVersionAndPath) {
  const LogReading r = read_log(kVllmV1Recent, "log");
  auto a = figures(r.runs.at(0));
  EXPECT_EQ(r.runs[0].scenario["engine_version"], "0.24.0");
  EXPECT_EQ(r.runs[0].engine_path, "V1");
  EXPECT_TRUE(r.runs[0].engine_version_inferred_from.empty());
  EXPECT_DOUBLE_EQ(a["kv_cache_bytes"], 5.98 * kGiB);
  EXPECT_EQ(a["kv_cache_tokens"], 567978);
}

// vLLM version lines as public logs print them, each read as its dotted numbers and path:
// V0 0.8.5.post1 (https://github.com/kserve/kserve/pull/4470), a V1 development build of 0.8.5
// (https://github.com/vllm-project/vllm/pull/18224, comment by davidxia), 0.6.1 before the
// "V0"/"V1" words (https://github.com/pytorch/serve/pull/3343), each cut after the model and
// followed by a figure so that the run is kept. A version line after an inferred form still wins.
TEST(LogReader, VllmVersionLinesStateVersionAndPath) {
  struct Case {
    const char* line;
    const char* version;
    const char* path;
  };
  for (const Case& c :
       {Case{"INFO 05-14 17:44:22 [llm_engine.py:240] Initializing a V0 LLM engine (v0.8.5.post1) "
             "with config: model='Qwen/Qwen3-14B'",
             "0.8.5", "V0"},
        Case{"INFO 05-20 12:43:01 [core.py:61] Initializing a V1 LLM engine "
             "(v0.8.5.dev708+g451da4bcb) with config: model='HuggingFaceTB/SmolVLM-256M-Instruct'",
             "0.8.5", "V1"},
        Case{"INFO 10-07 22:54:54 llm_engine.py:226] Initializing an LLM engine "
             "(v0.6.1.dev238+ge2c6e0a82) with config: model='meta-llama/Llama-3.2-3B-Instruct'",
             "0.6.1", ""}}) {
    const LogReading r = read_log(std::string(c.line) + "\nModel loading took 2.3 GiB\n", "log");
    ASSERT_EQ(r.runs.size(), 1u) << c.line;
    EXPECT_EQ(r.runs[0].scenario.value("engine_version", ""), c.version) << c.line;
    EXPECT_EQ(r.runs[0].engine_path, c.path) << c.line;
    EXPECT_TRUE(r.runs[0].engine_version_inferred_from.empty()) << c.line;
  }
  // The V0 summary line first (form: 0.7), then the version line: the stated 0.8.5 is kept.
  const std::string worker_line =
      std::string(kVllmWorkers).substr(0, std::string(kVllmWorkers).find('\n'));
  const LogReading late = read_log(
      worker_line + "\nInitializing a V0 LLM engine (v0.8.5) with config: model='x'\n", "log");
  EXPECT_EQ(late.runs.at(0).scenario["engine_version"], "0.8.5");
  EXPECT_TRUE(late.runs[0].engine_version_inferred_from.empty());
}

// Engine settings stated by the log. Sources: https://github.com/livepeer/ai-runner/pull/230
// (V0 config line, cut) and https://github.com/LMCache/LMCache/pull/2522 (V1 non-default args,
// cut), each followed by a figure so that the run is kept.
TEST(LogReader, VllmSettingsFromTheLog) {
  const LogReading v0 = read_log(
      "INFO 12-20 00:49:35 llm_engine.py:237] Initializing an LLM engine (vdev) with config: "
      "model='/models/models--meta-llama--Meta-Llama-3.1-8B-Instruct/snapshots/"
      "0e9e39f249a16976918f6564b8830bc894c89659', speculative_config=None, dtype=torch.bfloat16, "
      "max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, "
      "pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
      "device_config=cuda\nLoading model weights took 7.5 GB\n",
      "log");
  const auto& s = v0.runs.at(0).scenario;
  EXPECT_EQ(s["model"], "meta-llama/Meta-Llama-3.1-8B-Instruct");  // from the HF cache path
  EXPECT_EQ(s["seq_len"], 8192);
  EXPECT_EQ(s["parallel"]["tp"], 2);
  EXPECT_FALSE(s.contains("weights"));         // bf16 is the default; no quantization
  EXPECT_FALSE(s.contains("engine_version"));  // "(vdev)": a source build states no number
  const LogReading v1 = read_log(
      "(APIServer pid=1) INFO 02-01 23:01:25 [utils.py:250] non-default args: {'model_tag': "
      "'meta-llama/Llama-3.2-1B-Instruct', 'api_server_count': 1, 'model': "
      "'meta-llama/Llama-3.2-1B-Instruct', 'max_model_len': 1024, 'enforce_eager': True, "
      "'load_format': 'dummy', 'gpu_memory_utilization': 0.35, 'max_num_seqs': 64}\nModel "
      "loading took 2.3 GiB\n",
      "log");
  const auto& t = v1.runs.at(0).scenario;
  EXPECT_EQ(t["model"], "meta-llama/Llama-3.2-1B-Instruct");
  EXPECT_EQ(t["seq_len"], 1024);
  EXPECT_EQ(t["max_num_seqs"], 64);                    // the scheduler's limit, given in the log
  EXPECT_FALSE(t.contains("max_num_batched_tokens"));  // not given: the default
  EXPECT_DOUBLE_EQ(t["gpu_memory_utilization"].get<double>(), 0.35);
}

// llama.cpp on an RTX 4070 Ti + RTX 3090 Ti, layers split over both.
// Source: https://github.com/ggml-org/llama.cpp/pull/6122 (comment by Wuzzooy).
const char* kLlamaCpp = R"(  Device 0: NVIDIA GeForce RTX 4070 Ti, compute capability 8.9, VMM: yes
  Device 1: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes
llm_load_tensors: ggml ctx size =    0.37 MiB
llm_load_tensors: offloading 40 repeating layers to GPU
llm_load_tensors: offloaded 41/41 layers to GPU
llm_load_tensors:        CPU buffer size =  1640.62 MiB
llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB
llm_load_tensors:      CUDA1 buffer size = 13989.53 MiB
llama_new_context_with_model: n_ctx      = 4096
llama_new_context_with_model: n_batch    = 2048
llama_kv_cache_init:      CUDA0 KV buffer size =  1536.00 MiB
llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB
llama_new_context_with_model: KV self size  = 5120.00 MiB, K (f16): 2560.00 MiB, V (f16): 2560.00 MiB
llama_new_context_with_model:  CUDA_Host  output buffer size =     1.95 MiB
llama_new_context_with_model:      CUDA0 compute buffer size =   672.01 MiB
)";

// trtllm-bench 0.16 throughput on 8 H100 (Llama-3.1-70B-Instruct FP8, one line of each kind
// kept, and two ranks' engine sizes). Source: shaamil101-etched/trtllm-benchmarks,
// results/result_128_8192_750.txt at aeec9f2.
const char* kTrtllm = R"([TensorRT-LLM] TensorRT-LLM version: 0.16.0
[TensorRT-LLM][INFO] TRTGptModel maxNumSequences: 2048
[TensorRT-LLM][INFO] TRTGptModel maxSequenceLen: 25000
[TensorRT-LLM][INFO] TRTGptModel maxNumTokens: 8192
[TensorRT-LLM][INFO] Loaded engine size: 8925 MiB
[TensorRT-LLM][INFO] Loaded engine size: 8939 MiB
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 1013.01 MiB for execution context memory.
[TensorRT-LLM][INFO] Number of tokens per block: 64.
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 52.08 GiB for max tokens in paged KV cache (2730752).
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 52.08 GiB for max tokens in paged KV cache (2730752).
Model:			meta-llama/Llama-3.1-70B-Instruct
KV Cache Dtype:		FP8
Quantization:		FP8
TP Size:		8
PP Size:		1
KV Memory Percentage:	90.00%
Number of requests:		750
Average Input Length (tokens):	128.0000
Average Output Length (tokens):	8192.0000
Token Throughput (tokens/sec):	7944.3036
)";

TEST(LogReader, TrtllmBenchEngineAndRun) {
  const LogReading log = read_log(kTrtllm, "log");
  EXPECT_EQ(log.format, "trtllm");
  ASSERT_EQ(log.runs.size(), 1u);
  const auto& s = log.runs[0].scenario;
  EXPECT_EQ(s["engine"], "trtllm");
  EXPECT_EQ(s["engine_version"], "0.16.0");  // as stated; release 0.8 covers it
  EXPECT_EQ(s["max_num_seqs"], 2048);
  EXPECT_EQ(s["max_model_len"], 25000);
  EXPECT_EQ(s["max_num_batched_tokens"], 8192);
  EXPECT_EQ(s["model"], "meta-llama/Llama-3.1-70B-Instruct");
  EXPECT_EQ(s["weights"], "fp8");
  EXPECT_EQ(s["kv_cache"], "fp8");
  EXPECT_EQ(s["parallel"]["tp"], 8);
  EXPECT_DOUBLE_EQ(s["gpu_memory_utilization"].get<double>(), 0.9);
  EXPECT_EQ(s["offline_requests"], 750);
  EXPECT_EQ(s["prompt_len"], 128);
  EXPECT_EQ(s["output_len"], 8192);
  EXPECT_EQ(s["seq_len"], 8320);  // 128 + 8192
  const auto f = figures(log.runs[0]);
  EXPECT_DOUBLE_EQ(f.at("weights_bytes"), 8925 * kMiB);  // the first rank's engine
  EXPECT_DOUBLE_EQ(f.at("kv_cache_bytes"), 52.08 * kGiB);
  EXPECT_DOUBLE_EQ(f.at("kv_cache_tokens"), 2730752);
  EXPECT_DOUBLE_EQ(f.at("offline_output_tokens_per_s"), 7944.3036);
}

// trtllm-bench 1.0 (PyTorch backend) with Llama-3.1-8B FP8 on an H100. Source:
// https://github.com/NVIDIA/TensorRT-LLM/issues/6294 (2025-07-23), three lines kept.
TEST(LogReader, TrtllmPytorchBackendLimitsAndPool) {
  const LogReading log = read_log(
      "[TensorRT-LLM] TensorRT-LLM version: 1.0.0rc4\n"
      "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 52.51 GiB for max tokens in paged KV "
      "cache (860320).\n"
      "[07/23/2025-09:16:03] [TRT-LLM] [I] max_seq_len=157, max_num_requests=4096, "
      "max_num_tokens=23552\n",
      "log");
  ASSERT_EQ(log.runs.size(), 1u);
  const auto& s = log.runs[0].scenario;
  EXPECT_EQ(s["engine_version"], "1.0.0");  // "1.0.0rc4": the candidate of 1.0.0
  EXPECT_EQ(s["max_num_seqs"], 4096);
  EXPECT_EQ(s["max_model_len"], 157);
  EXPECT_EQ(s["max_num_batched_tokens"], 23552);
  EXPECT_EQ(s["seq_len"], 157);  // no report: as long as the engine allows
  const auto f = figures(log.runs[0]);
  EXPECT_DOUBLE_EQ(f.at("kv_cache_tokens"), 860320);
  EXPECT_DOUBLE_EQ(f.at("kv_cache_bytes"), 52.51 * kGiB);
}

TEST(LogReader, LlamaCppBuffersAddUpOverDevices) {
  const LogReading r = read_log(kLlamaCpp, "log");
  EXPECT_EQ(r.format, "llama.cpp");
  ASSERT_EQ(r.runs.size(), 1u);
  auto a = figures(r.runs[0]);
  EXPECT_NEAR(a["weights_bytes"], (5434.38 + 13989.53) * kMiB, 1.0);  // GPUs only
  EXPECT_NEAR(a["weights_cpu_bytes"], 1640.62 * kMiB, 1.0);
  EXPECT_DOUBLE_EQ(a["kv_cache_bytes"], 5120.0 * kMiB);  // the total, not the buffers again
  EXPECT_NEAR(a["activation_peak_bytes"], 672.01 * kMiB, 1.0);
  EXPECT_EQ(r.runs[0].scenario["seq_len"], 4096);
  EXPECT_EQ(r.runs[0].scenario["gpu_count"], 2);
  EXPECT_EQ(r.runs[0].scenario["gpu"], "RTX 4070 Ti");  // vendor words dropped
}

// llama-bench on an RTX 4090. Source: https://github.com/ggml-org/llama.cpp/pull/4766 (comment by
// ggerganov, 2024-01-10).
const char* kBenchMd = R"(ggml_init_cublas: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes
| model                          |       size |     params | backend    | ngl | test       |              t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ---------- | ---------------: |
| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | pp 512     | 11048.22 ± 269.74 |
| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | tg 128     |     61.03 ± 0.07 |
| llama 7B Q8_0                  |   6.67 GiB |     6.74 B | CUDA       |  99 | pp 512     | 7664.00 ± 108.83 |
| llama 7B Q8_0                  |   6.67 GiB |     6.74 B | CUDA       |  99 | tg 128     |     98.13 ± 0.07 |
| llama 7B Q4_0                  |   3.56 GiB |     6.74 B | CUDA       |  99 | pp 512     | 7979.85 ± 114.18 |
)";

TEST(LogReader, LlamaBenchMarkdownRowsAreRuns) {
  const LogReading r = read_log(kBenchMd, "bench.md");
  EXPECT_EQ(r.format, "llama-bench-markdown");
  ASSERT_EQ(r.runs.size(), 5u);
  EXPECT_EQ(r.runs[0].figures.at(0).key, "prefill_tokens_per_s");
  EXPECT_DOUBLE_EQ(r.runs[0].figures[0].value, 11048.22);
  EXPECT_EQ(r.runs[0].scenario["prompt_len"], 512);
  EXPECT_EQ(r.runs[0].scenario["weights"], "fp16");
  EXPECT_EQ(r.runs[1].figures[0].key, "decode_tokens_per_s");
  EXPECT_DOUBLE_EQ(r.runs[1].figures[0].value, 61.03);
  EXPECT_EQ(r.runs[1].scenario["output_len"], 128);
  EXPECT_EQ(r.runs[3].scenario["weights"], "q8_0");
  EXPECT_EQ(r.runs[4].scenario["weights"], "q4_0");
  EXPECT_EQ(r.runs[4].scenario["gpu"], "RTX 4090");
  EXPECT_EQ(r.runs[2].figures[0].line, 7);
}

// The legacy block formats by their llama-bench model names (a table laid out as PR #4766's; only
// the names are checked).
TEST(LogReader, LlamaBenchLegacyBlockFormats) {
  const LogReading r = read_log(R"(| model | size | params | backend | ngl | test | t/s |
| --- | ---: | ---: | --- | --: | --- | ---: |
| llama 7B Q4_1 | 3.95 GiB | 6.74 B | CUDA | 99 | tg 128 | 55.41 ± 0.02 |
| llama 7B Q5_0 | 4.33 GiB | 6.74 B | CUDA | 99 | tg 128 | 48.14 ± 0.01 |
| llama 7B Q5_1 | 4.72 GiB | 6.74 B | CUDA | 99 | tg 128 | 47.51 ± 0.01 |
)",
                                "bench.md");
  ASSERT_EQ(r.runs.size(), 3u);
  EXPECT_EQ(r.runs[0].scenario["weights"], "q4_1");
  EXPECT_EQ(r.runs[1].scenario["weights"], "q5_0");
  EXPECT_EQ(r.runs[2].scenario["weights"], "q5_1");
}

// The same two F16 rows as llama-bench -o json and -o csv write them (field names from
// tools/llama-bench/llama-bench.cpp; values from the markdown above).
TEST(LogReader, LlamaBenchJsonAndCsv) {
  const char* json_text = R"([
    {"model_type": "llama 7B F16", "n_prompt": 512, "n_gen": 0, "n_gpu_layers": 99,
     "avg_ts": 11048.22, "gpu_info": "NVIDIA GeForce RTX 4090"},
    {"model_type": "llama 7B F16", "n_prompt": 0, "n_gen": 128, "n_gpu_layers": 99,
     "avg_ts": 61.03, "gpu_info": "NVIDIA GeForce RTX 4090"}])";
  const LogReading j = read_log(json_text, "b.json");
  EXPECT_EQ(j.format, "llama-bench-json");
  ASSERT_EQ(j.runs.size(), 2u);
  EXPECT_EQ(j.runs[1].figures[0].key, "decode_tokens_per_s");
  EXPECT_EQ(j.runs[1].scenario["gpu"], "RTX 4090");
  const char* csv =
      "\"model_type\",\"n_gpu_layers\",\"n_prompt\",\"n_gen\",\"avg_ts\"\n"
      "\"llama 7B F16\",\"99\",\"512\",\"0\",\"11048.22\"\n"
      "\"llama 7B F16\",\"99\",\"0\",\"128\",\"61.03\"\n";
  const LogReading c = read_log(csv, "b.csv");
  EXPECT_EQ(c.format, "llama-bench-csv");
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_DOUBLE_EQ(c.runs[0].figures[0].value, 11048.22);
  EXPECT_EQ(c.runs[1].figures[0].line, 3);
}

TEST(LogReader, FiguresJsonAndCsv) {
  const LogReading j = read_log(R"({"scenario": {"model": "llama-3.1-8b", "gpu": "rtx-3090"},
    "measured": {"weights_bytes": 16094511104, "decode_tokens_per_s": 52.5}})",
                                "mine.json");
  EXPECT_EQ(j.format, "figures-json");
  ASSERT_EQ(j.runs.size(), 1u);
  EXPECT_EQ(j.runs[0].figures.size(), 2u);
  EXPECT_EQ(j.runs[0].scenario["gpu"], "rtx-3090");
  const LogReading c = read_log(
      "model,gpu,engine,seq_len,tp,kv_cache_tokens,decode_tokens_per_s\n"
      "llama-3.1-8b,rtx-3090,vllm,20000,1,31232,\n"
      "llama-3.1-8b,a100-80g,vllm,8192,2,,1520.5\n",
      "mine.csv");
  EXPECT_EQ(c.format, "figures-csv");
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(figures(c.runs[0])["kv_cache_tokens"], 31232);
  EXPECT_EQ(c.runs[0].figures.size(), 1u);  // the empty cell is not a figure
  EXPECT_EQ(c.runs[1].scenario["parallel"]["tp"], 2);
  EXPECT_EQ(c.runs[1].scenario["seq_len"], 8192);
}

TEST(LogReader, UnknownOrBadInputNamesWhere) {
  auto message = [](const std::string& text) {
    try {
      read_log(text, "f");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"measured": {"weight_bytes": 1}})").find("measured.weight_bytes"),
            std::string::npos);
  EXPECT_NE(message(R"({"measured": {"weights_bytes": -1}})").find("positive"), std::string::npos);
  EXPECT_NE(message("model,gpu,speed\nx,y,1\n").find("column speed"), std::string::npos);
  EXPECT_NE(message("model,decode_tokens_per_s\nx,fast\n").find("line 2"), std::string::npos);
  EXPECT_NE(message("hello\nworld\n").find("no figure"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_NE(message("[1, 2").find("f"), std::string::npos);
  EXPECT_NE(message(std::string(10000, '[')).find("f"), std::string::npos);  // too deep
}

}  // namespace
}  // namespace gpusizer
