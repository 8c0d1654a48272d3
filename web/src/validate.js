// Field-level checks of the form's numbers, before anything is sent, and the mapping of a server
// error ("training.lora_rank: must be ...") to the field it names. Messages are i18n keys.

/** The numeric fields: whole numbers from `min`, or decimals in [min, max]. Empty = the default. */
export const NUMERIC = {
  batch: { int: true, min: 1 },
  seq_len: { int: true, min: 1 },
  prompt_len: { int: true, min: 1 },
  output_len: { int: true, min: 1 },
  gpu_memory_utilization: { min: 0.05, max: 1 },
  max_num_seqs: { int: true, min: 1 },
  max_model_len: { int: true, min: 1 },
  lora_rank: { int: true, min: 1 },
  grad_accum: { int: true, min: 1 },
  tokens: { min: 0 },
  tp: { int: true, min: 1 },
  pp: { int: true, min: 1 },
  dp: { int: true, min: 1 },
  gpu_count: { int: true, min: 1 },
  image_size: { int: true, min: 32, max: 8192 },
  dataset_items: { int: true, min: 1 },
  epochs: { min: 0.01 },
  max_gpus: { int: true, min: 1 },
  min_tokens_per_s: { min: 0 },
  max_ttft_ms: { min: 0.001 },
  budget_usd: { min: 0.01 },
  requests_per_s: { min: 0.001 },
  prompt_len_p90: { int: true, min: 1 },
  output_len_p90: { int: true, min: 1 },
  ttft_ms: { min: 0.001 },
  tpot_ms: { min: 0.001 },
  rack_budget_watts: { min: 1 },
  headroom: { min: 0, max: 90 },
  max_days: { min: 0.001 },
};

/** Parses what a person types: "8", "2048", "1e9", "1,000", "0.9". NaN when it is not a number. */
export function parseNumber(text) {
  const s = String(text).trim().replace(/[\s,_]/g, '');
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return NaN;
  return Number(s);
}

/** {key, vars} describing what is wrong with `text` for field `id`, or null when it is fine. */
export function checkField(id, text) {
  const rule = NUMERIC[id];
  if (!rule || String(text).trim() === '') return null;
  const n = parseNumber(text);
  if (Number.isNaN(n)) return { key: 'err_not_number', vars: { x: String(text).trim() } };
  if (rule.int && !Number.isInteger(n)) return { key: 'err_whole', vars: { x: String(text).trim(), min: rule.min } };
  if (rule.max !== undefined && (n < rule.min || n > rule.max)) return { key: 'err_between', vars: { min: rule.min, max: rule.max } };
  if (n < rule.min) return { key: rule.int ? 'err_min_int' : 'err_min', vars: { min: rule.min } };
  return null;
}

/** The form control a server message names: "batch: ...", "training.lora_rank: ...",
 *  "parallel.tp: ...", "model: ...", "model.hf_config: ..."; null when it names none. */
export function fieldOfMessage(message, has) {
  const m = /^([A-Za-z_][\w.[\]]*):\s/.exec(String(message || ''));
  if (!m) return null;
  const path = m[1].replace(/\[\d+\]/g, '').split('.');
  if (path[0] === 'model' && path.length > 1) return has('hf_config') ? 'hf_config' : 'model';
  for (let i = path.length - 1; i >= 0; --i) if (has(path[i])) return path[i];
  return null;
}
