// The OpenAPI 3 description of the HTTP API, served at /api/v1/openapi.json. A test checks that it
// lists exactly the server's routes and that every documented route answers as described.
#include "server/server.h"

namespace gpusizer::server {

const nlohmann::json& openapi_document() {
  static const nlohmann::json doc = nlohmann::json::parse(R"json(
{
  "openapi": "3.0.3",
  "info": {
    "title": "gpusizer",
    "version": "1",
    "description": "Sizes GPUs for serving and training large models: memory, speed, cost and power. Memory is in bytes per GPU. Errors are {\"error\": {\"code\", \"message\", \"field\"}}. Every text of an answer is in the language asked for by ?lang=en|zh or Accept-Language (default English). The server reads no file paths from requests unless started with --allow-paths DIR, and then only regular files inside DIR. Every request needs exactly one Host header naming the server (127.0.0.1, localhost or [::1] with its port, or a name given with --allow-host); JSON bodies need Content-Type: application/json."
  },
  "paths": {
    "/api/v1/estimate": {
      "post": {
        "summary": "Estimate memory, speed, cost and power for one scenario",
        "parameters": [{"name": "lang", "in": "query", "required": false,
                        "schema": {"type": "string", "enum": ["en", "zh"]},
                        "description": "language of every text (else Accept-Language, else en)"}],
        "requestBody": {
          "required": true,
          "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Scenario"},
            "example": {"model": "llama-2-7b", "weights": "bf16", "batch": 1, "seq_len": 2048,
                        "gpu": "a100-sxm4-80gb"}
          }}
        },
        "responses": {
          "200": {"description": "The estimate",
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Estimate"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "415": {"$ref": "#/components/responses/NotJson"},
          "500": {"$ref": "#/components/responses/Internal"}
        }
      }
    },
    "/api/v1/recommend": {
      "post": {
        "summary": "Rank GPU options for a scenario without a fixed GPU",
        "parameters": [{"name": "lang", "in": "query", "required": false,
                        "schema": {"type": "string", "enum": ["en", "zh"]},
                        "description": "language of every text (else Accept-Language, else en)"}],
        "requestBody": {
          "required": true,
          "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Scenario"},
            "example": {"model": "llama-2-7b", "task": "inference", "batch": 8, "seq_len": 4096}
          }}
        },
        "responses": {
          "200": {"description": "Options, best first, and rejected GPUs",
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Recommendation"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "415": {"$ref": "#/components/responses/NotJson"},
          "500": {"$ref": "#/components/responses/Internal"}
        }
      }
    },
    "/api/v1/gpus": {
      "get": {
        "summary": "The GPU catalog",
        "responses": {"200": {"description": "Every GPU with every catalog column",
                              "content": {"application/json": {"schema": {}}}}}
      }
    },
    "/api/v1/models": {
      "get": {
        "summary": "The model catalog",
        "responses": {"200": {"description": "Every model with its architecture and parameter counts",
                              "content": {"application/json": {"schema": {}}}}}
      }
    },
    "/api/v1/openapi.json": {
      "get": {
        "summary": "This document",
        "responses": {"200": {"description": "OpenAPI 3 document",
                              "content": {"application/json": {"schema": {"type": "object"}}}}}
      }
    },
    "/healthz": {
      "get": {
        "summary": "Liveness: the server answers",
        "responses": {"200": {"description": "{\"status\": \"ok\"}",
                              "content": {"application/json": {"schema": {"type": "object",
                                "properties": {"status": {"type": "string", "enum": ["ok"]}}}}}}}
      }
    },
    "/metrics": {
      "get": {
        "summary": "Counters in the Prometheus text format (version 0.0.4): gpusizer_http_requests_total{route,status}, gpusizer_http_request_duration_seconds{route} (histogram), gpusizer_http_requests_in_flight",
        "responses": {"200": {"description": "Prometheus text exposition",
                              "content": {"text/plain": {"schema": {"type": "string"}}}}}
      }
    },
    "/": {
      "get": {
        "summary": "The web page (HTML), with its assets compiled into the binary",
        "responses": {"200": {"description": "HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}}
      }
    }
  },
  "components": {
    "responses": {
      "BadRequest": {
        "description": "Bad input: malformed JSON (bad_json), JSON nested too deep (too_deep), a wrong or unknown value (bad_input, unknown_name, out_of_range, bad_file), a file path the server may not read (path_not_allowed)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "NotJson": {
        "description": "The body's Content-Type is not application/json (code unsupported_media_type)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "TooLarge": {
        "description": "Request body over the server's limit (1 MiB by default)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "Internal": {
        "description": "Internal error",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["code", "message"],
          "properties": {"code": {"type": "string"}, "message": {"type": "string"},
            "field": {"type": "string", "description": "the field the message names; empty when none"},
            "suggestions": {"type": "array", "items": {"type": "string"},
                            "description": "the names the message offers (did you mean ...)"}}}}
      },
      "Scenario": {
        "type": "object",
        "required": ["model"],
        "properties": {
          "model": {"description": "Catalog id or Hugging Face id, {\"hf_config\": {...}} or {\"params\": N}; a file path only on servers started with --allow-paths",
                    "oneOf": [{"type": "string"}, {"type": "object"}]},
          "task": {"type": "string", "enum": ["inference", "lora", "qlora", "full", "freeze", "pretrain", "cv-train"], "default": "inference"},
          "weights": {"type": "string", "default": "bf16"},
          "kv_cache": {"type": "string", "default": "bf16"},
          "batch": {"type": "integer", "minimum": 1, "default": 1},
          "seq_len": {"type": "integer", "minimum": 1, "default": 2048},
          "prompt_len": {"type": "integer"},
          "output_len": {"type": "integer", "default": 512},
          "engine": {"type": "string", "description": "default: vllm for serving on NVIDIA/AMD, llama.cpp on Apple or GGUF weights, hf otherwise and for training"},
          "engine_version": {"type": "string", "description": "engine release whose rules apply; default: the newest modelled"},
          "gpu_memory_utilization": {"type": "number", "default": 0.9},
          "training": {"type": "object", "properties": {
            "optimizer": {"type": "string"}, "mixed_precision": {"type": "string"},
            "gradient_checkpointing": {"oneOf": [{"type": "boolean"}, {"type": "string"}]},
            "flash_attention": {"type": "boolean"}, "lora_rank": {"type": "integer"},
            "lora_targets": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "zero_stage": {"type": "integer", "minimum": 0, "maximum": 3},
            "grad_accum": {"type": "integer"}, "global_batch": {"type": "integer"}, "tokens": {"type": "number"}}},
          "parallel": {"type": "object", "properties": {
            "tp": {"type": "integer"}, "pp": {"type": "integer"}, "dp": {"type": "integer"}, "ep": {"type": "integer"},
            "sequence_parallel": {"type": "boolean"}, "pp_interleave": {"type": "integer"}}},
          "gpu": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
          "gpu_count": {"type": "integer"},
          "gpus_per_node": {"type": "integer", "default": 8},
          "image_size": {"type": "integer"}, "dataset_items": {"type": "integer"}, "epochs": {"type": "integer"}
        }
      },
      "Estimate": {
        "type": "object",
        "required": ["model", "memory"],
        "properties": {
          "model": {"type": "object", "properties": {"id": {"type": "string"}, "params": {"type": "integer"}, "active_params": {"type": "integer"}}},
          "memory": {"type": "object", "description": "Bytes per GPU", "properties": {
            "total_bytes": {"type": "integer"}, "reserved_bytes": {"type": "integer"}, "allocated_bytes": {"type": "integer"},
            "low_bytes": {"type": "integer"}, "high_bytes": {"type": "integer"},
            "weights_bytes": {"type": "integer"}, "kv_cache_bytes": {"type": "integer"}, "activations_bytes": {"type": "integer"},
            "gradients_bytes": {"type": "integer"}, "optimizer_bytes": {"type": "integer"}, "master_weights_bytes": {"type": "integer"},
            "overhead_bytes": {"type": "integer"}, "gpu_capacity_bytes": {"type": "integer"}, "fits": {"type": "boolean"},
            "max_batch": {"type": "integer"}, "kv_cache_capacity_tokens": {"type": "integer"}}},
          "performance": {"type": "object", "properties": {
            "prefill_tokens_per_s": {"type": "number"}, "decode_tokens_per_s": {"type": "number"},
            "ttft_ms": {"type": "number"}, "tpot_ms": {"type": "number"}, "max_output_tokens_per_s": {"type": "number"},
            "step_time_s": {"type": "number"}, "train_tokens_per_s": {"type": "number"},
            "train_tokens_per_s_per_gpu": {"type": "number"}, "tflops_per_gpu": {"type": "number"},
            "mfu": {"type": "number"}, "time_to_train_s": {"type": "number"},
            "step_breakdown_s": {"type": "object", "additionalProperties": {"type": "number"}}}},
          "cost": {"type": "object", "properties": {"usd_per_hour": {"type": "number"}, "usd_per_million_tokens": {"type": "number"}}},
          "power": {"type": "object", "properties": {"gpu_watts": {"type": "number"}, "node_watts": {"type": "number"}, "btu_per_hour": {"type": "number"}}},
          "warnings": {"type": "array", "items": {"type": "string"}},
          "basis": {"type": "object", "additionalProperties": {"type": "string"}}
        }
      },
      "Recommendation": {
        "type": "object",
        "properties": {
          "options": {"type": "array", "items": {"type": "object", "properties": {
            "gpu": {"type": "string"}, "gpu_count": {"type": "integer"}, "weights": {"type": "string"},
            "parallel": {"type": "object"}, "fits": {"type": "boolean"},
            "estimate": {"$ref": "#/components/schemas/Estimate"}, "score": {"type": "number"},
            "reasons": {"type": "array", "items": {"type": "string"}},
            "warnings": {"type": "array", "items": {"type": "string"}}}}},
          "rejected": {"type": "array", "items": {"type": "object", "properties": {
            "gpu": {"type": "string"}, "why": {"type": "string"}}}}
        }
      }
    }
  }
}
)json");
  return doc;
}

}  // namespace gpusizer::server
