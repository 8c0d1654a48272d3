// The gpusizer page: a form that becomes the contract's scenario JSON, sent to the server the page
// came from (/api/v1/...), and the answer drawn as cards, a stacked memory bar, a batch sweep and
// tables. The form's state lives in the URL's query string, so a result can be shared as a link.
import {
  Chart, BarController, BarElement, LineController, LineElement, PointElement,
  CategoryScale, LinearScale, LogarithmicScale, Legend, Tooltip,
} from 'chart.js';
import './style.css';
import { initialLanguage, setLanguage, t, language } from './i18n.js';
import { gib, gb, toGiB, rate, usd, money, duration, num, fixed, unit as timeUnit } from './format.js';
import { NUMERIC, parseNumber, checkField, fieldOfMessage } from './validate.js';
import {
  trafficOf, renderLoad, renderStep, fleetColumns, trainColumns, PERCENTILES,
} from './planner.js';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement,
  CategoryScale, LinearScale, LogarithmicScale, Legend, Tooltip);

const TASKS = ['inference', 'lora', 'qlora', 'full', 'freeze', 'pretrain', 'cv-train'];
// '' = the server's default engine for the GPU and task (vLLM on NVIDIA and AMD, llama.cpp on Apple).
const INFER_ENGINES = ['', 'hf', 'vllm', 'sglang', 'trtllm', 'llama.cpp'];
const TRAIN_ENGINES = ['', 'hf', 'deepspeed', 'fsdp', 'megatron'];
const PREALLOC = new Set(['vllm', 'sglang', 'trtllm']);
// '' = the task's default format, which the server resolves (bf16, or nf4 for QLoRA).
const WEIGHTS = ['', 'fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4', 'int4-g32', 'nf4', 'gptq-int4', 'awq-int4',
  'q8_0', 'q6_k', 'q5_1', 'q5_k_m', 'q5_0', 'q4_1', 'q4_k_m', 'q4_0', 'q3_k_m', 'q2_k'];
const KV = ['fp32', 'bf16', 'fp16', 'fp8', 'q8_0', 'q5_1', 'q5_0', 'q4_1', 'q4_0'];
const OPTIMIZERS = ['adamw', 'adamw-8bit', 'paged-adamw-8bit', 'sgd', 'sgd-momentum', 'adafactor', 'lion'];
const PRECISIONS = ['bf16', 'fp16', 'pure-bf16', 'fp32', 'fp8', 'mxfp8'];
const CHECKPOINTING = ['false', 'full', 'selective'];
const ZERO = ['0', '1', '2', '3'];
const COMPONENTS = ['weights', 'kv_cache', 'activations', 'gradients', 'optimizer', 'master_weights', 'overhead'];
const COLORS = {
  weights: '#3b6fd8', kv_cache: '#e08a1e', activations: '#2f9e6e', gradients: '#c0424a',
  optimizer: '#8a55c9', master_weights: '#b5732f', overhead: '#7a8594', other: '#c3cad3', capacity: '#1f2933',
};
const SWEEP_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Defaults shown in the form; only values that differ go into the URL. */
const DEFAULTS = {
  model: 'llama-2-7b', hf_config: '', task: 'inference', engine: '', weights: '', kv_cache: 'bf16',
  batch: '1', seq_len: '2048', prompt_len: '', output_len: '512', gpu_memory_utilization: '',
  engine_version: '', max_num_seqs: '', max_model_len: '',
  optimizer: 'adamw', mixed_precision: 'bf16', gradient_checkpointing: 'false', zero_stage: '0',
  lora_rank: '8', lora_targets: 'all-linear', grad_accum: '1', tokens: '', flash_attention: true,
  image_size: '', dataset_items: '', epochs: '',
  tp: '1', pp: '1', dp: '1', recommend: false, gpu: 'a100-sxm4-80gb', gpu_count: '',
  objective: 'cost', allow_quantization: false, deployment: 'any', region: 'any', max_gpus: '',
  min_tokens_per_s: '', max_ttft_ms: '', budget_usd: '',
  requests_per_s: '', prompt_len_p90: '', output_len_p90: '', ttft_ms: '', tpot_ms: '', percentile: '90',
  rack_budget_watts: '', only_gpu: false,
  vendor: 'any', segment: 'any', headroom: '', max_days: '', production: false, allow_offload: false,
  extra: '',  // an applied change's scenario keys that no control holds, as merge-patch JSON
};
/** Where a change's patch keys land in the form: top-level keys, and those inside training/parallel. */
const PATCH_FIELDS = {
  '': ['task', 'engine', 'weights', 'kv_cache', 'batch', 'seq_len', 'prompt_len', 'output_len',
    'gpu_memory_utilization', 'gpu', 'gpu_count'],
  training: ['optimizer', 'mixed_precision', 'gradient_checkpointing', 'flash_attention', 'zero_stage',
    'grad_accum', 'tokens', 'lora_rank', 'lora_targets'],
  parallel: ['tp', 'pp', 'dp'],
};

const $ = (id) => document.getElementById(id);
const form = $('form');
let gpus = [];
const catalogModels = new Map();  // id -> the models API's entry
let generation = 0;
let controller = null;
let lastRender = null;  // re-rendered on language change
let memoryChart = null;
let sweepChart = null;
let optionsSort = { key: 'rank', dir: 1 };
let extraPatch = null;  // the form's 'extra' state, parsed
let resolvedWeights = '';  // what the server made of weights '' (the task's default), for the label

function autoWeightsLabel() {
  return resolvedWeights ? t('weights_auto_is', { x: resolvedWeights }) : t('weights_auto');
}

let resolvedEngine = '';  // what the server chose for engine '' (its default), for the label
function autoEngineLabel() {
  return resolvedEngine ? t('engine_auto_is', { x: resolvedEngine }) : t('engine_auto');
}

// ---------------------------------------------------------------------------------------------
// Form <-> state <-> URL

function fillSelect(id, values, labelKey) {
  const select = $(id);
  const keep = select.value;
  select.replaceChildren(...values.map((v) => {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = labelKey ? t(`${labelKey}_${v}`) : v;
    if (v === '' && id === 'weights') o.textContent = autoWeightsLabel();
    if (v === '' && id === 'engine') o.textContent = autoEngineLabel();
    return o;
  }));
  if (values.includes(keep)) select.value = keep;
}

function fillStaticSelects() {
  fillSelect('task', TASKS, 'task');
  fillSelect('weights', WEIGHTS);
  fillSelect('kv_cache', KV);
  fillSelect('optimizer', OPTIMIZERS);
  fillSelect('mixed_precision', PRECISIONS);
  fillSelect('gradient_checkpointing', CHECKPOINTING, 'ckpt');
  fillSelect('zero_stage', ZERO);
  fillSelect('objective', ['cost', 'speed', 'power'], 'objective');
  fillSelect('deployment', ['any', 'cloud', 'on_prem'], 'deployment');
  fillSelect('region', ['any', 'cn'], 'region');
  fillSelect('percentile', PERCENTILES, 'pct');
  fillSelect('segment', ['any', 'datacenter', 'workstation', 'consumer'], 'segment');
  fillSelect('vendor', ['any'], 'vendor');
  fillEngines();
}

function fillEngines() {
  const training = $('task').value && $('task').value !== 'inference';
  fillSelect('engine', training ? TRAIN_ENGINES : INFER_ENGINES);
}

function readForm() {
  const state = {};
  for (const key of Object.keys(DEFAULTS)) {
    const el = form.elements[key];
    if (!el) continue;
    state[key] = el.type === 'checkbox' ? el.checked : el.value.trim();
  }
  state.extra = extraPatch && Object.keys(extraPatch).length ? JSON.stringify(extraPatch) : '';
  return state;
}

function writeForm(state) {
  for (const [key, value] of Object.entries(state)) {
    if (key === 'extra') {
      try { extraPatch = value ? JSON.parse(value) : null; } catch { extraPatch = null; }
      if (!extraPatch || typeof extraPatch !== 'object' || Array.isArray(extraPatch)) extraPatch = null;
      continue;
    }
    const el = form.elements[key];
    if (!el) continue;
    if (el.type === 'checkbox') el.checked = value === true || value === 'true' || value === '1';
    else if (key === 'gpu') setGpu(value);
    else el.value = value;
    if (key === 'task') fillEngines();
  }
}

/** Selects GPU `value`: a catalog id, else the same id in another case, else (an alias such as
 *  "h100" that only the server resolves) an extra option holding it until the answer names the id. */
function setGpu(value) {
  const select = $('gpu');
  for (const o of [...select.querySelectorAll('option[data-pending]')]) o.remove();
  if (!value) { select.value = ''; return; }
  const ids = [...select.options].map((o) => o.value);
  const same = ids.find((id) => id.toLowerCase() === String(value).toLowerCase());
  if (same) { select.value = same; return; }
  if (!ids.length) return;  // the catalog is not loaded yet; main() sets it again
  const o = document.createElement('option');
  o.value = value;
  o.textContent = value;
  o.dataset.pending = '1';
  select.prepend(o);
  select.value = value;
}

function stateFromUrl() {
  const params = new URLSearchParams(location.search);
  const state = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS)) {
    if (!params.has(key)) continue;
    const v = params.get(key);
    state[key] = typeof DEFAULTS[key] === 'boolean' ? (v === '1' || v === 'true') : v;
  }
  return state;
}

let pushNext = false;   // the next URL change is a step the user can undo with Back (Apply, Use)
let focusNext = false;  // after that step's answer, focus goes to the results

function stateToUrl(state) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) {
    if (value === DEFAULTS[key]) continue;
    params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : value);
  }
  const query = params.toString();
  const url = `${location.pathname}${query ? `?${query}` : ''}`;
  if (url === `${location.pathname}${location.search}`) return;
  if (pushNext) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
  pushNext = false;
}

/** RFC 7386 JSON merge patch: `patch` over `target`, as a new value (null removes a key). */
function mergePatch(target, patch) {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** The form value for a patch's `value` of control `key`, or undefined when no control can hold it. */
function formValueOf(key, value) {
  const el = form.elements[key];
  if (!el) return undefined;
  if (value === null) return DEFAULTS[key];
  if (el.type === 'checkbox') return typeof value === 'boolean' ? value : undefined;
  let v;
  if (key === 'gradient_checkpointing' && typeof value === 'boolean') v = value ? 'full' : 'false';
  else if (key === 'lora_targets' && Array.isArray(value)) v = value.join(', ');
  else if (typeof value === 'string' || typeof value === 'number') v = String(value);
  else return undefined;
  // A select takes only its own options (the engines follow the task, so any engine goes).
  if (el.tagName === 'SELECT' && key !== 'engine' && ![...el.options].some((o) => o.value === v)) return undefined;
  return v;
}

/** A change's merge patch split into form fields and the scenario keys no control holds. */
function splitPatch(patch) {
  const fields = {};
  const rest = {};
  for (const [k, v] of Object.entries(patch || {})) {
    const nested = PATCH_FIELDS[k] && v && typeof v === 'object' && !Array.isArray(v);
    const entries = nested ? Object.entries(v) : [[k, v]];
    const names = PATCH_FIELDS[nested ? k : ''];
    for (const [key, value] of entries) {
      const f = names.includes(key) ? formValueOf(key, value) : undefined;
      if (f !== undefined) fields[key] = f;
      else if (nested) rest[k] = { ...(rest[k] || {}), [key]: value };
      else rest[key] = value;
    }
  }
  return { fields, rest };
}

/** Applies a change as if the user had set its fields; the rest rides along in the 'extra' state. */
function applyChange(patch) {
  const { fields, rest } = splitPatch(patch);
  const ordered = 'task' in fields ? { task: fields.task, ...fields } : fields;  // engines follow the task
  writeForm(ordered);
  if (Object.keys(rest).length) extraPatch = mergePatch(extraPatch || {}, rest);
  pushNext = true;
  focusNext = true;
  schedule(0);
}

function intOf(value) {
  const n = parseNumber(value);
  return Number.isFinite(n) ? n : value;  // a non-number goes through, and the server names it
}

/** A training recommend searches the layout (contract v2 "Training layouts": fields given are kept),
 *  so the form's defaults for micro-batch, ZeRO, checkpointing and accumulation are left out. */
function leaveToSearch(request, state) {
  if (!TRAIN_TASKS.has(state.task) || !request.training) return request;
  const out = { ...request, training: { ...request.training } };
  if (state.batch === DEFAULTS.batch) delete out.batch;
  if (state.zero_stage === DEFAULTS.zero_stage) delete out.training.zero_stage;
  if (state.gradient_checkpointing === DEFAULTS.gradient_checkpointing) delete out.training.gradient_checkpointing;
  if (state.grad_accum === DEFAULTS.grad_accum) delete out.training.grad_accum;
  return out;
}

/** The recommend request's constraints (the CLI's recommend flags) from the form. */
function constraintsOf(state) {
  const c = { objective: state.objective };
  if (state.allow_quantization) c.allow_quantization = true;
  if (state.production) c.production = true;
  if (state.allow_offload && TRAIN_TASKS.has(state.task)) c.allow_offload = true;
  for (const key of ['vendor', 'segment']) if (state[key] !== 'any') c[key] = state[key];
  if (state.headroom !== '') c.headroom = parseNumber(state.headroom) / 100;  // the form says percent
  if (state.max_days !== '' && TRAIN_TASKS.has(state.task)) c.max_days = intOf(state.max_days);
  if (state.deployment !== 'any') c.deployment = state.deployment;
  if (state.region !== 'any') c.region = state.region;
  for (const key of ['max_gpus', 'min_tokens_per_s', 'max_ttft_ms', 'budget_usd']) if (state[key] !== '') c[key] = intOf(state[key]);
  return c;
}

/** The contract's scenario JSON for the form's state; throws Error with a message to show. */
function scenarioOf(state) {
  const s = {};
  if (state.hf_config) {
    let config;
    try { config = JSON.parse(state.hf_config); } catch (e) { throw new Error(t('bad_config', { why: e.message })); }
    s.model = config && typeof config === 'object' && ('hf_config' in config || 'params' in config) ? config : { hf_config: config };
  } else {
    s.model = state.model;
  }
  s.task = state.task;
  const cv = state.task === 'cv-train';
  if (!cv) {
    if (state.engine) s.engine = state.engine;
    if (state.weights) s.weights = state.weights;
    s.kv_cache = state.kv_cache;
  }
  for (const key of cv ? ['batch', 'image_size', 'dataset_items', 'epochs'] : ['batch', 'seq_len']) if (state[key] !== '') s[key] = intOf(state[key]);
  const training = state.task !== 'inference';
  if (!training) {
    for (const key of ['prompt_len', 'output_len']) if (state[key] !== '') s[key] = intOf(state[key]);
    if (PREALLOC.has(state.engine || resolvedEngine)) {
      // A release's rules (contract: engine_version); the server names the versions it knows.
      if (state.engine_version !== '') s.engine_version = state.engine_version;
      if (state.gpu_memory_utilization !== '') s.gpu_memory_utilization = intOf(state.gpu_memory_utilization);
      for (const key of ['max_num_seqs', 'max_model_len']) if (state[key] !== '') s[key] = intOf(state[key]);
    }
    Object.assign(s, trafficOf(state, intOf));  // serving at a request rate, within targets
  } else {
    const tr = {
      optimizer: state.optimizer,
      mixed_precision: state.mixed_precision,
      gradient_checkpointing: state.gradient_checkpointing === 'false' ? false : state.gradient_checkpointing,
      zero_stage: intOf(state.zero_stage),
    };
    if (!cv) tr.flash_attention = state.flash_attention;
    if (state.grad_accum !== '') tr.grad_accum = intOf(state.grad_accum);
    if (state.tokens !== '' && !cv) tr.tokens = intOf(state.tokens);
    if (state.task === 'lora' || state.task === 'qlora') {
      if (state.lora_rank !== '') tr.lora_rank = intOf(state.lora_rank);
      const targets = state.lora_targets.split(',').map((x) => x.trim()).filter(Boolean);
      if (targets.length) tr.lora_targets = targets.length === 1 ? targets[0] : targets;
    }
    s.training = tr;
  }
  const parallel = {};
  for (const key of cv ? ['dp'] : ['tp', 'pp', 'dp']) if (state[key] !== '' && state[key] !== '1') parallel[key] = intOf(state[key]);
  if (Object.keys(parallel).length) s.parallel = parallel;
  if (!state.recommend || state.only_gpu) {
    if (state.gpu) s.gpu = state.gpu;
    if (state.gpu_count !== '') s.gpu_count = intOf(state.gpu_count);
  }
  if (state.rack_budget_watts !== '') s.facility = { rack_budget_watts: intOf(state.rack_budget_watts) };
  return state.extra ? mergePatch(s, JSON.parse(state.extra)) : s;
}

function showSections(state) {
  const training = state.task !== 'inference';
  for (const el of document.querySelectorAll('.train-only')) el.hidden = !training;
  for (const el of document.querySelectorAll('.infer-only')) el.hidden = training;
  for (const el of document.querySelectorAll('.prealloc-only')) el.hidden = training || !PREALLOC.has(state.engine || resolvedEngine);
  for (const el of document.querySelectorAll('.lora-only')) el.hidden = !(state.task === 'lora' || state.task === 'qlora');
  // Vision training has no tokens, context, KV cache or LLM engine: those fields go, image size comes.
  const cv = state.task === 'cv-train';
  for (const el of document.querySelectorAll('.llm-only')) el.hidden = cv;
  for (const el of document.querySelectorAll('.cv-only')) el.hidden = !cv;
  if (cv) {
    const m = catalogModel(state.model);
    $('image_size').placeholder = m && m.resolution ? String(m.resolution) : '';
    $('image_size-help').textContent = m && m.resolution ? t('image_size_help', { n: m.resolution }) : '';
  }
  for (const el of document.querySelectorAll('.gpu-only')) el.hidden = state.recommend && !state.only_gpu;
  for (const el of document.querySelectorAll('.rec-only')) el.hidden = !state.recommend;
  $('estimate-view').hidden = state.recommend;
  $('recommend-view').hidden = !state.recommend;
}

// ---------------------------------------------------------------------------------------------
// Field-level messages: a red border, the message under the field, aria-invalid and
// aria-describedby pointing at it. Warnings (a context past the model's maximum) are amber and
// leave aria-invalid off.

function describedBy(el, id, on) {
  const ids = new Set((el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean));
  if (on) ids.add(id); else ids.delete(id);
  if (ids.size) el.setAttribute('aria-describedby', [...ids].join(' '));
  else el.removeAttribute('aria-describedby');
}

/** The names a server error offers ("did you mean ..."), as buttons under the field: choosing one
 *  puts it in the field and asks again. Nothing is swapped in without the person choosing it. */
function offerNames(id, names) {
  const msg = $(`${id}-msg`);
  if (!msg) return;
  const line = document.createElement('span');
  line.className = 'suggestions';
  line.lang = language() === 'zh' ? 'zh-CN' : 'en';
  line.append(t('did_you_mean'), ' ');
  names.slice(0, 5).forEach((name, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'link suggestion';
    b.textContent = name;
    b.lang = 'en';
    b.addEventListener('click', () => {
      $(id).value = name;
      focusNext = false;
      $(id).focus();
      schedule(0);
    });
    if (i) line.append(' ');
    line.append(b);
  });
  msg.append(document.createElement('br'), line);
}

function setFieldMessage(id, text, kind = 'error') {
  const el = $(id);
  if (!el) return;
  const box = el.closest('.field, details') || el.parentElement;
  const msgId = `${id}-msg`;
  let msg = $(msgId);
  box.classList.remove('invalid', 'warned');
  if (!text) {
    if (msg) msg.remove();
    el.removeAttribute('aria-invalid');
    describedBy(el, msgId, false);
    return;
  }
  if (!msg) {
    msg = document.createElement('small');
    msg.id = msgId;
    box.append(msg);
  }
  msg.className = `field-msg ${kind}`;
  msg.textContent = text;
  box.classList.add(kind === 'error' ? 'invalid' : 'warned');
  if (kind === 'error') el.setAttribute('aria-invalid', 'true'); else el.removeAttribute('aria-invalid');
  describedBy(el, msgId, true);
}

function clearFieldMessages() {
  for (const msg of [...document.querySelectorAll('.field-msg')]) setFieldMessage(msg.id.replace(/-msg$/, ''), '');
}

const isShown = (el) => el && !el.closest('[hidden]');
const labelOf = (id) => (document.querySelector(`label[for="${id}"]`) || {}).textContent || id;

/** The numeric fields in view that hold something the server cannot take, marked at the field. */
function validateFields() {
  const bad = [];
  for (const id of Object.keys(NUMERIC)) {
    const el = $(id);
    if (!isShown(el)) continue;
    const problem = checkField(id, el.value);
    if (problem) {
      setFieldMessage(id, t(problem.key, problem.vars));
      bad.push(id);
    }
  }
  return bad;
}

/** The vendor select: any, then the catalog's vendors as the data writes them. */
function fillVendors() {
  const select = $('vendor');
  const keep = select.value || stateFromUrl().vendor;
  const names = [...new Set(gpus.map((g) => g.vendor).filter(Boolean))];
  select.replaceChildren(...['any', ...names].map((v) => {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = v === 'any' ? t('vendor_any') : v;
    if (v !== 'any') o.lang = 'en';
    return o;
  }));
  if (['any', ...names].includes(keep)) select.value = keep;
}

/** The catalog entry for a model name as typed (id or Hugging Face id, any case). */
function catalogModel(name) {
  const n = String(name || '').toLowerCase();
  if (!n) return null;
  for (const m of catalogModels.values()) if (m.id === n || String(m.hf_id || '').toLowerCase() === n) return m;
  return null;
}

/** The model's maximum context, from the pasted config or the models API, or null. */
function maxContext(state, resolvedId) {
  if (state.hf_config) {
    try {
      const c = JSON.parse(state.hf_config);
      const cfg = c && c.hf_config ? c.hf_config : c;
      return Number(cfg.max_position_embeddings) || null;
    } catch { return null; }
  }
  const m = catalogModel(resolvedId) || catalogModel(state.model);
  return m && m.architecture ? Number(m.architecture.max_position_embeddings) || null : null;
}

/** "Model maximum: 4,096 tokens" beside the context field, and a warning at it when exceeded. */
function showContextLimit(state, resolvedId) {
  const max = maxContext(state, resolvedId);
  $('seq_len-max').textContent = max ? t('seq_max', { n: num(max, 0) }) : '';
  const seq = parseNumber(state.seq_len);
  if ($('seq_len').getAttribute('aria-invalid') === 'true') return;
  if (max && Number.isFinite(seq) && seq > max) {
    setFieldMessage('seq_len', t('seq_over_max', { x: num(seq, 0), n: num(max, 0), r: num(seq / max, seq / max >= 10 ? 0 : 1) }), 'warn');
  } else {
    setFieldMessage('seq_len', '');
  }
}

/** The phone's summary bar: the answer (or the error) stays in view while the form is edited. */
function setSummary(text, kind) {
  const el = $('summary');
  el.replaceChildren(...withServerText(text));
  el.className = `summary ${kind || ''}`;
  el.hidden = !text || (Array.isArray(text) && !text.length);
}

// ---------------------------------------------------------------------------------------------
// Server calls

class ApiError extends Error {
  /** `field` and `suggestions` are the error object's (contract v2): the field the message names
   *  and the names it offers ("did you mean ..."). */
  constructor(status, code, message, field = '', suggestions = []) {
    super(message); this.status = status; this.code = code; this.field = field || ''; this.suggestions = suggestions || [];
  }
}

/** The language the server's texts came back in (the page's language when it asked): their
 *  elements carry it, so screen readers read them right and the Chinese check sees them. */
let answerLang = 'en';
const serverLang = () => (answerLang === 'zh' ? 'zh-CN' : 'en');

/** Names the server's texts quote as the data files write them (GPU and model names, cloud
 *  instances and their price sources): inside a translated text they are marked lang="en". */
let quotedNames = [];
function learnQuotedNames(answer) {
  const names = new Set();
  for (const g of gpus) if (g.name) names.add(g.name);
  for (const m of catalogModels.values()) if (m.name) names.add(m.name);
  const walk = (v, key) => {
    if (typeof v === 'string') { if (['instance', 'price_date', 'gpu_name', 'provider'].includes(key) && v.length > 2) names.add(v); return; }
    if (Array.isArray(v)) { v.forEach((x) => walk(x, key)); return; }
    if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(answer, '');
  quotedNames = [...names].filter((n) => /[A-Za-z]{2}/.test(n)).sort((a, b) => b.length - a.length);
}

/** `el` shows the server's `text`: in the answer's language, with quoted names marked English. */
function setServerText(el, text) {
  el.lang = serverLang();
  const s = String(text ?? '');
  if (answerLang === 'en' || !quotedNames.length) { el.textContent = s; return; }
  const parts = [];
  let rest = s;
  while (rest) {
    let at = -1; let name = '';
    for (const n of quotedNames) {
      const i = rest.indexOf(n);
      if (i >= 0 && (at < 0 || i < at || (i === at && n.length > name.length))) { at = i; name = n; }
    }
    if (at < 0) { parts.push(rest); break; }
    if (at > 0) parts.push(rest.slice(0, at));
    const span = document.createElement('span');
    span.lang = 'en';
    span.textContent = name;
    parts.push(span);
    rest = rest.slice(at + name.length);
  }
  el.replaceChildren(...parts);
}

/** The page's language, asked of the server both ways contract v2 names (?lang= and
 *  Accept-Language), so its texts come back in Chinese once the library translates them. */
function withLang(path) { return `${path}${path.includes('?') ? '&' : '?'}lang=${language()}`; }
const langHeaders = () => ({ 'Accept-Language': language() === 'zh' ? 'zh-CN,zh;q=0.9' : 'en' });

async function post(path, body, signal) {
  const res = await fetch(withLang(path), {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...langHeaders() }, body: JSON.stringify(body), signal,
  });
  const asked = language();
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  answerLang = asked;
  if (data && !data.error) learnQuotedNames(data);
  if (!res.ok) {
    const err = data && data.error ? data.error : { code: `http_${res.status}`, message: res.statusText };
    throw new ApiError(res.status, err.code, err.message, err.field, err.suggestions);
  }
  return data;
}

async function getJson(path) {
  const res = await fetch(withLang(path), { headers: langHeaders() });
  if (!res.ok) throw new ApiError(res.status, `http_${res.status}`, res.statusText);
  return res.json();
}

function listOf(data, key) {
  if (Array.isArray(data)) return data;
  if (data && Array.isArray(data[key])) return data[key];
  return [];
}

async function loadCatalogs() {
  const [gpuData, modelData] = await Promise.all([
    getJson('api/v1/gpus').catch(() => []),
    getJson('api/v1/models').catch(() => []),
  ]);
  gpus = listOf(gpuData, 'gpus').filter((g) => g && g.id);
  const select = $('gpu');
  const keep = select.value || DEFAULTS.gpu;
  const groups = new Map();
  for (const g of gpus) {
    const vendor = g.vendor || '';
    if (!groups.has(vendor)) groups.set(vendor, []);
    groups.get(vendor).push(g);
  }
  select.replaceChildren(...[...groups].map(([vendor, list]) => {
    const group = document.createElement('optgroup');
    group.label = vendor;
    for (const g of list) {
      const o = document.createElement('option');
      o.value = g.id;
      o.textContent = `${g.name || g.id}${g.memory_gb ? ` · ${num(g.memory_gb, 0)} GB` : ''}`;
      o.lang = 'en';  // a product name from the catalog
      group.append(o);
    }
    return group;
  }));
  setGpu(keep);
  fillVendors();

  const models = listOf(modelData, 'models');
  for (const m of models) if (m && m.id) catalogModels.set(m.id, m);
  const seen = new Set();
  const options = [];
  for (const m of models) {
    for (const name of [m.id || (m.name && String(m.name).toLowerCase()), m.hf_id]) {
      if (!name || seen.has(name)) continue;
      seen.add(name);
      const o = document.createElement('option');
      o.value = name;
      if (m.name && m.name !== name) o.label = m.name;
      options.push(o);
    }
  }
  $('model-list').replaceChildren(...options);
}

// ---------------------------------------------------------------------------------------------
// Rendering

function setStatus(text, kind = '') {
  const el = $('status');
  el.replaceChildren(...withServerText(text));
  el.className = `status ${kind}`;
}

/** Text the server wrote (English until it translates: contract v2 'Language') in a span marked
 *  lang="en", so screen readers pronounce it right and the Chinese check can tell it apart. */
const SERVER = Symbol('server text');
const serverText = (text) => ({ [SERVER]: String(text) });
function withServerText(text) {
  const parts = Array.isArray(text) ? text : [text];
  return parts.map((p) => {
    if (p && typeof p === 'object' && SERVER in p) {
      const span = document.createElement('span');
      // A name or source quoted from the data files stays as they write it (English).
      span.lang = quotedNames.includes(p[SERVER]) ? 'en' : serverLang();
      span.textContent = p[SERVER];
      return span;
    }
    return document.createTextNode(String(p ?? ''));
  });
}
/** t() with some variables marked as server text: returns parts for withServerText. */
function tParts(key, vars) {
  const out = [];
  const s = t(key, Object.fromEntries(Object.keys(vars).map((k) => [k, `\u0000${k}\u0000`])));
  for (const [i, piece] of s.split('\u0000').entries()) {
    if (i % 2 === 0) { if (piece) out.push(piece); } else out.push(vars[piece]);
  }
  return out;
}

function errorText(err) {
  if (err instanceof ApiError) return tParts('error_from_server', { code: err.code, message: serverText(err.message) });
  return err.message || String(err);
}

function setText(id, text, value) {
  const el = $(id);
  el.textContent = text;
  if (value !== undefined) el.dataset.value = String(value);
  else delete el.dataset.value;
}

function gpuCapacity(estimate) {
  return estimate.memory && estimate.memory.gpu_capacity_bytes ? estimate.memory.gpu_capacity_bytes : null;
}

/** Left empty, the KV-pool fraction is the release's default (vLLM 0.92 from 0.21, TensorRT-LLM 0.9; SGLang
 *  from 0.5.3 derives it from the GPU's memory): the answer's scenario names the figure applied. */
function showUtilizationDefault(sc, state) {
  const given = state.gpu_memory_utilization !== '';
  const value = sc.gpu_memory_utilization;
  const known = !given && typeof value === 'number';
  $('gpu_memory_utilization').placeholder = known ? fmtFraction(value) : '';
  $('gpu_memory_utilization-help').textContent = known ? t('gpu_memory_utilization_default', { x: fmtFraction(value) }) : '';
}

const fmtFraction = (v) => String(Math.round(v * 1000) / 1000);

const gpuName = (id) => (gpus.find((g) => g.id === id) || {}).name || id;

/** "TP 2 · DP 4": the dimensions among `keys` above 1 of a parallel object, or ''. */
const splitText = (parallel, keys = ['tp', 'pp', 'dp', 'ep', 'cp']) => {
  const p = parallel || {};
  return keys.filter((k) => (p[k] || 1) > 1).map((k) => `${k.toUpperCase()} ${p[k]}`).join(' · ');
};

/** What the server computed, in words ("the basis of these figures"), and the form brought in
 *  line with it: an alias becomes the GPU's id, the task's default format is named. */
function renderResolved(estimate, state) {
  const sc = estimate.scenario || {};
  const model = estimate.model || {};
  const parts = [];
  if (sc.model || model.id) parts.push(t('resolved_model', { x: sc.model || model.id }));
  if (sc.task !== 'cv-train') {  // a vision model has no weights format or LLM engine to choose
    if (sc.weights) parts.push(t('resolved_weights', { x: sc.weights }));
    // The release whose rules were applied ('all' where the engine has one set of rules).
    const release = sc.engine_version && sc.engine_version !== 'all' ? ` ${sc.engine_version}` : '';
    if (sc.engine) parts.push(t('resolved_engine', { x: sc.engine + release }));
  }
  if (sc.gpu) parts.push(t('resolved_gpu', { n: sc.gpu_count ?? 1, x: gpuName(sc.gpu) }));
  // The layout the server resolved (a training job spreads its GPUs over data parallelism when
  // the form leaves DP at 1), which the form's own fields, being what was asked, do not show.
  const split = splitText(sc.parallel);
  if (split) parts.push(split);
  $('resolved').textContent = parts.length ? `${t('resolved')} ${parts.join(' · ')}` : '';
  // The weights select: '' is the task's default; say which format that was.
  resolvedWeights = state.weights === '' ? sc.weights || '' : '';
  const auto = $('weights').querySelector('option[value=""]');
  if (auto) auto.textContent = autoWeightsLabel();
  const engineBefore = resolvedEngine;
  resolvedEngine = state.engine === '' ? sc.engine || '' : '';
  const autoEngine = $('engine').querySelector('option[value=""]');
  if (autoEngine) autoEngine.textContent = autoEngineLabel();
  // The engine's own fields follow the engine the server chose for 'automatic' too.
  if (resolvedEngine !== engineBefore) showSections(state);
  showUtilizationDefault(sc, state);
  // The GPU select: an alias the server resolved becomes the catalog id, in the URL too.
  if (sc.gpu && !state.recommend && $('gpu').value !== sc.gpu && gpus.some((g) => g.id === sc.gpu)) {
    setGpu(sc.gpu);
    stateToUrl(readForm());
  }
  // A model estimated under another name (an HF id mapped to a catalog entry, a near match).
  const typed = String(state.model || '').toLowerCase();
  const known = [sc.model, model.id, (catalogModels.get(sc.model) || {}).hf_id].filter(Boolean).map((x) => String(x).toLowerCase());
  showContextLimit(state, sc.model);
  const note = $('model-resolved');
  if (!state.hf_config && sc.model && typed && !known.includes(typed)) {
    note.textContent = t('model_resolved_as', { x: sc.model, typed: state.model });
    note.hidden = false;
  } else {
    note.textContent = '';
    note.hidden = true;
  }
}

function renderSummary(estimate) {
  const m = estimate.memory || {};
  const fit = typeof m.fits === 'boolean' ? (m.fits ? t('fits') : t('does_not_fit')) : null;
  setSummary([fit, t('summary_total', { x: gib(m.total_bytes) })].filter(Boolean).join(' · '), m.fits === false ? 'bad' : 'ok');
}

/** "6.74 B parameters", "25.9 M parameters" (a vision model), with the active count for MoE. */
function paramsText(model) {
  const count = (n) => (n >= 1e9 ? `${num(n / 1e9, 2)} B` : `${num(n / 1e6, 1)} M`);
  const p = model.params;
  const a = model.active_params || p;
  return a !== p ? t('params_active', { p: count(p), a: count(a) }) : t('params_n', { p: count(p) });
}

function renderEstimate(estimate, scenario) {
  const m = estimate.memory || {};
  const cap = gpuCapacity(estimate);
  setText('total', gib(m.total_bytes), m.total_bytes);
  $('total-sub').textContent = [
    `= ${gb(m.total_bytes)}`,
    m.low_bytes !== undefined && m.high_bytes !== undefined ? t('range', { low: fixed(toGiB(m.low_bytes), 1), high: fixed(toGiB(m.high_bytes), 1) }) : null,
    m.allocated_bytes !== undefined ? t('alloc_reserved', { a: fixed(toGiB(m.allocated_bytes), 2), r: fixed(toGiB(m.reserved_bytes), 2) }) : null,
    estimate.model && estimate.model.params ? paramsText(estimate.model) : null,
  ].filter(Boolean).join(' · ');

  const fitCard = $('card-fit');
  if (typeof m.fits === 'boolean') {
    setText('fit', m.fits ? t('fits') : t('does_not_fit'), m.fits);
    fitCard.className = `card ${m.fits ? 'ok' : 'bad'}`;
    const headroom = cap - m.total_bytes;
    // An engine that preallocates takes its share of the GPU whatever fits in it: "free" memory
    // beside "Does not fit" means the KV pool is too small for one sequence, so say that.
    const kvShort = !m.fits && headroom >= 0;
    $('fit-sub').textContent = [
      kvShort
        ? t('kv_pool_short', { n: num(m.kv_cache_capacity_tokens ?? 0, 0), seq: num(scenario.seq_len ?? (estimate.scenario || {}).seq_len, 0), b: num(m.max_batch ?? 0, 0) })
        : t(headroom >= 0 ? 'headroom' : 'short_by', { x: fixed(Math.abs(toGiB(headroom)), 2), cap: fixed(toGiB(cap), 2), capgb: num(cap / 1e9, 0) }),
      m.max_batch !== undefined && m.fits ? t('max_batch', { n: num(m.max_batch, 0) }) : null,
      m.kv_cache_capacity_tokens !== undefined && !kvShort ? t('kv_capacity', { n: num(m.kv_cache_capacity_tokens, 0) }) : null,
    ].filter(Boolean).join(' · ');
  } else {
    setText('fit', '–');
    fitCard.className = 'card';
    $('fit-sub').textContent = t('no_gpu');
  }

  // A setup that does not fit has no speed, cost or rent-or-buy figures: they would describe a
  // machine that cannot run it (contract v2 omits them; a v1 server still sends them).
  const fits = m.fits !== false;
  const p = fits ? estimate.performance || {} : {};
  const training = scenario.task && scenario.task !== 'inference';
  const unit = scenario.task === 'cv-train' ? t('img_s') : t('tok_s');
  if (!fits) {
    $('speed-title').textContent = training ? t('train_speed') : t('speed');
    setText('speed', '–');
    $('speed-sub').textContent = t('no_figures_no_fit');
  } else if (training && p.train_tokens_per_s !== undefined) {
    $('speed-title').textContent = t('train_speed');
    setText('speed', `${rate(p.train_tokens_per_s)} ${unit}`, p.train_tokens_per_s);
    $('speed-sub').textContent = [
      p.step_time_s !== undefined ? t('step_time', { s: rate(p.step_time_s) }) : null,
      p.mfu !== undefined ? `MFU ${fixed(p.mfu * 100, 1)}%` : null,
      p.time_to_train_s !== undefined ? t('time_to_train', { d: duration(p.time_to_train_s) }) : null,
    ].filter(Boolean).join(' · ');
  } else if (p.decode_tokens_per_s !== undefined) {
    $('speed-title').textContent = t('speed');
    setText('speed', `${rate(p.decode_tokens_per_s)} ${t('tok_s')}`, p.decode_tokens_per_s);
    $('speed-sub').textContent = [
      p.ttft_ms !== undefined ? `TTFT ${rate(p.ttft_ms)} ms` : null,
      p.tpot_ms !== undefined ? `TPOT ${rate(p.tpot_ms)} ms` : null,
    ].filter(Boolean).join(' · ');
  } else {
    $('speed-title').textContent = t('speed');
    setText('speed', '–');
    $('speed-sub').textContent = scenario.gpu ? t('no_speed') : t('no_gpu');
  }

  const c = fits ? estimate.cost || {} : {};
  const w = fits ? estimate.power || {} : {};
  if (c.usd_per_hour !== undefined) {
    setText('cost', `${usd(c.usd_per_hour)} ${t('per_h')}`, c.usd_per_hour);
  } else {
    setText('cost', '–');
  }
  $('cost-sub').textContent = [
    c.usd_per_million_tokens !== undefined ? t('per_mtok', { x: usd(c.usd_per_million_tokens) }) : null,
    c.usd_total !== undefined ? t('run_cost', { x: usd(c.usd_total) }) : null,
    w.gpu_watts !== undefined ? t('gpu_watts', { w: num(w.gpu_watts, 0) }) : null,
    w.node_watts !== undefined ? t('node_watts', { w: num(w.node_watts, 0) }) : null,
    w.btu_per_hour !== undefined ? `${num(w.btu_per_hour, 0)} BTU/h` : null,
  ].filter(Boolean).join(' · ') || (!fits ? t('no_figures_no_fit') : c.usd_per_hour === undefined ? t('no_gpu') : '');

  renderChanges(estimate.changes);
  renderOwnership(c.ownership);
  renderMemory(estimate);
  renderPerformance(p, scenario.task === 'cv-train');
  renderLoad(p, scenario);
  renderStep('step', p, t('step_caption_estimate', { s: fixed(p.step_time_s, 3) }));
  renderWarnings(estimate.warnings || []);
  renderBasis(estimate.basis || {});
}

function renderChanges(changes) {
  const list = Array.isArray(changes) ? changes : [];
  $('changes').replaceChildren(...list.map((c) => {
    const li = document.createElement('li');
    li.className = `change ${c.fits ? 'ok' : 'bad'}`;
    li.dataset.fits = String(Boolean(c.fits));
    const head = document.createElement('p');
    head.className = 'change-head';
    const mark = document.createElement('span');
    mark.className = 'mark';
    mark.textContent = c.fits ? '✓' : '✗';
    mark.setAttribute('aria-hidden', 'true');
    const name = document.createElement('strong');
    name.textContent = c.change;
    name.lang = serverLang();
    const fit = document.createElement('span');
    fit.className = 'fit-word';
    fit.textContent = c.fits ? t('change_fits') : t('change_not_enough');
    head.append(mark, name, ' ', fit);
    const figures = document.createElement('p');
    figures.className = 'sub';
    figures.textContent = [
      t('change_needs', { x: gib(c.needed_bytes) }),
      t('change_saves', { x: gib(c.saves_bytes) }),
      c.speed_factor !== undefined && c.speed_factor !== null ? t('change_speed', { x: fixed(c.speed_factor, 2) }) : null,
    ].filter(Boolean).join(' · ');
    figures.dataset.value = String(c.needed_bytes);
    const cost = document.createElement('p');
    cost.className = 'sub';
    cost.replaceChildren(...withServerText(c.cost ? tParts('change_cost', { x: serverText(c.cost) }) : ''));
    const apply = document.createElement('button');
    apply.type = 'button';
    apply.className = 'secondary small apply';
    apply.textContent = t('apply');
    apply.setAttribute('aria-label', t('apply_label', { change: c.change }));
    apply.addEventListener('click', () => applyChange(c.patch));
    const text = document.createElement('div');
    text.append(head, figures, cost);
    li.append(text, apply);
    return li;
  }));
  $('changes-section').hidden = list.length === 0;
  const noneFits = list.length > 0 && !list.some((c) => c.fits);
  $('changes-none').hidden = !noneFits;
}

function recommendInstead() {
  writeForm({ recommend: true });
  pushNext = true;
  focusNext = true;
  schedule(0);
}

const percent = (x) => `${fixed(x * 100, 0)} %`;

function renderOwnership(own) {
  const section = $('ownership-section');
  if (!own || typeof own !== 'object' || (!own.cloud && !own.on_prem)) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const { cloud, on_prem: prem } = own;
  const be = own.break_even || {};
  const a = own.assumptions || {};
  $('card-cloud').hidden = !cloud;
  if (cloud) {
    setText('own-cloud', `${usd(cloud.usd_per_hour)} ${t('per_h')}`, cloud.usd_per_hour);
    const cloudSub = [
      cloud.usd_per_million_tokens !== undefined ? t('per_mtok', { x: usd(cloud.usd_per_million_tokens) }) : null,
      cloud.instance ? tParts('own_instance', { x: serverText(cloud.instance) }) : null,
      cloud.price_date ? tParts('own_price_date', { x: serverText(cloud.price_date) }) : null,
    ].filter(Boolean).flatMap((x, i) => (i ? [' · '] : []).concat(x));
    $('own-cloud-sub').replaceChildren(...withServerText(cloudSub));
  }
  $('card-onprem').hidden = !prem;
  if (prem) {
    setText('own-capex', money(prem.capex_usd, 'USD'), prem.capex_usd);
    $('own-onprem-sub').textContent = [
      t('own_capex', { cny: money(prem.capex_cny, 'CNY') }),
      t('own_per_hour', { usd: usd(prem.usd_per_hour), cny: money(prem.cny_per_hour, 'CNY'), u: percent(a.utilization) }),
      prem.energy_usd_per_hour !== undefined ? t('own_energy', { x: usd(prem.energy_usd_per_hour) }) : null,
    ].filter(Boolean).join(' · ');
  }
  // A break-even above 100% utilization is never reached, and one past the amortization period
  // never pays back; with only one side priced there is nothing to break even with.
  const life = Number(a.amortization_years) * 12;
  if (!cloud || !prem) {
    setText('own-break-even', '–');
    $('own-break-even-sub').textContent = t(cloud ? 'own_no_buy_price' : 'own_no_cloud_price');
  } else if (be.utilization !== undefined && be.utilization > 1) {
    setText('own-break-even', t('own_never'), be.utilization);
    $('own-break-even-sub').textContent = t('own_never_sub', { u: percent(be.utilization) });
  } else {
    if (be.utilization !== undefined) setText('own-break-even', percent(be.utilization), be.utilization);
    else setText('own-break-even', '–');
    $('own-break-even-sub').textContent = be.months === undefined
      ? t('own_no_months')
      : be.months > life
        ? t('own_months_past', { m: num(be.months, 0), u: percent(a.utilization), y: num(a.amortization_years, 0) })
        : t('own_months', { m: num(be.months, 1), u: percent(a.utilization) });
  }
  setServerText($('own-verdict'), be.verdict || '');
  $('own-assumptions').textContent = t('own_assumptions', {
    years: num(a.amortization_years, 1), u: percent(a.utilization), pue: num(a.pue, 2),
    kwh: usd(a.electricity_usd_per_kwh), fx: num(a.usd_to_cny, 2), date: a.date || '–',
  });
  const basis = Array.isArray(own.basis) ? own.basis : [];
  $('own-basis').replaceChildren(...basis.map((b) => {
    const li = document.createElement('li');
    setServerText(li, b);
    return li;
  }));
}

function renderMemory(estimate) {
  const m = estimate.memory || {};
  const basis = estimate.basis || {};
  const cap = gpuCapacity(estimate);
  const parts = COMPONENTS.map((k) => ({ key: k, bytes: Number(m[`${k}_bytes`]) || 0 }));
  const sum = parts.reduce((a, x) => a + x.bytes, 0);
  const other = Math.max(0, (Number(m.total_bytes) || 0) - sum);
  if (other > 0) parts.push({ key: 'other', bytes: other });
  // Components that do not apply (0 bytes) stay out of the table and the bar.
  const shown = parts.filter((part) => part.bytes > 0 || part.key === 'weights');

  const tbody = $('memory-table').tBodies[0];
  tbody.replaceChildren(...shown.map((part) => {
    const tr = document.createElement('tr');
    tr.dataset.component = part.key;
    const name = document.createElement('th');
    name.scope = 'row';
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = COLORS[part.key];
    name.append(swatch, t(`c_${part.key}`));
    const cells = [fixed(toGiB(part.bytes), 2), fixed(part.bytes / 1e9, 2)].map((v) => {
      const td = document.createElement('td');
      td.className = 'num';
      td.textContent = v;
      return td;
    });
    cells[0].dataset.value = String(part.bytes);
    const b = document.createElement('td');
    b.className = 'basis';
    if (basis[`${part.key}_bytes`]) setServerText(b, basis[`${part.key}_bytes`]);
    else b.textContent = part.key === 'other' ? t('other_basis') : '';
    tr.append(name, ...cells, b);
    return tr;
  }));
  const totalRow = document.createElement('tr');
  totalRow.className = 'total';
  totalRow.innerHTML = '<th scope="row"></th><td class="num"></td><td class="num"></td><td class="basis"></td>';
  totalRow.cells[0].textContent = t('c_total');
  totalRow.cells[1].textContent = fixed(toGiB(m.total_bytes), 2);
  totalRow.cells[2].textContent = fixed(m.total_bytes / 1e9, 2);
  setServerText(totalRow.cells[3], basis.total_bytes || '');
  tbody.append(totalRow);
  if (cap) {
    const capRow = document.createElement('tr');
    capRow.innerHTML = '<th scope="row"></th><td class="num"></td><td class="num"></td><td class="basis"></td>';
    capRow.cells[0].textContent = t('c_capacity');
    capRow.cells[1].textContent = fixed(toGiB(cap), 2);
    capRow.cells[2].textContent = fixed(cap / 1e9, 2);
    tbody.append(capRow);
  }

  const labels = cap ? [t('needed'), t('capacity')] : [t('needed')];
  const datasets = shown.map((part) => ({
    label: t(`c_${part.key}`), data: cap ? [toGiB(part.bytes), 0] : [toGiB(part.bytes)],
    backgroundColor: COLORS[part.key], stack: 'mem', borderWidth: 0,
  }));
  if (cap) datasets.push({ label: t('c_capacity'), data: [0, toGiB(cap)], backgroundColor: COLORS.capacity, stack: 'mem' });
  const config = {
    type: 'bar',
    data: { labels, datasets },
    options: {
      indexAxis: 'y', responsive: true, maintainAspectRatio: false, animation: false,
      scales: {
        x: { stacked: true, beginAtZero: true, title: { display: true, text: t('axis_gib') } },
        y: { stacked: true },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 12, filter: (item, data) => data.datasets[item.datasetIndex].data.some((v) => v > 0) } },
        tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${fixed(ctx.parsed.x, 2)} GiB` } },
      },
    },
  };
  if (memoryChart) memoryChart.destroy();
  memoryChart = new Chart($('memory-chart'), config);
  $('memory-chart').setAttribute('aria-label', t('memory_chart_label', { total: gib(m.total_bytes), cap: cap ? gib(cap) : '–' }));
}

const PERF_KEYS = [
  ['prefill_tokens_per_s', 'tok_s'], ['decode_tokens_per_s', 'tok_s'], ['ttft_ms', 'ms'], ['tpot_ms', 'ms'],
  ['max_output_tokens_per_s', 'tok_s'], ['step_time_s', 's'], ['train_tokens_per_s', 'tok_s'],
  ['train_tokens_per_s_per_gpu', 'tok_s'], ['tflops_per_gpu', 'TFLOPS'], ['mfu', '%'], ['time_to_train_s', ''],
];

function renderPerformance(p, cv) {
  const rows = PERF_KEYS.filter(([k]) => p[k] !== undefined && p[k] !== null).map(([k, unit]) => {
    const tr = document.createElement('tr');
    tr.dataset.key = k;
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = cv && k.startsWith('train_tokens') ? t(`p_${k.replace('tokens', 'images')}`) : t(`p_${k}`);
    const td = document.createElement('td');
    td.className = 'num';
    td.dataset.value = String(p[k]);
    if (k === 'mfu') td.textContent = `${fixed(p[k] * 100, 1)} %`;
    else if (k === 'time_to_train_s') td.textContent = duration(p[k]);
    else td.textContent = `${rate(p[k])} ${unit === 'tok_s' ? t(cv ? 'img_s' : 'tok_s') : unit === 's' ? timeUnit('s') : unit}`;
    // The figure's band (where about 90% of published measurements of its kind fell), under it.
    const band = p.bands && p.bands[k];
    if (band && k !== 'mfu' && k !== 'time_to_train_s') {
      const small = document.createElement('span');
      small.className = 'band';
      small.textContent = t('likely', { low: rate(band.low), high: rate(band.high) });
      td.append(small);
    }
    tr.append(th, td);
    return tr;
  });
  $('perf-table').tBodies[0].replaceChildren(...rows);
  $('perf-section').hidden = rows.length === 0;
}

function renderWarnings(list) {
  $('warnings').replaceChildren(...list.map((w) => {
    const li = document.createElement('li');
    setServerText(li, w);
    return li;
  }));
  $('warnings-section').hidden = list.length === 0;
}

function renderBasis(basis) {
  const items = [];
  for (const [k, v] of Object.entries(basis)) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    setServerText(dd, typeof v === 'string' ? v : JSON.stringify(v));
    items.push(dt, dd);
  }
  $('basis').replaceChildren(...items);
  $('basis-section').hidden = items.length === 0;
}

let sweepPoints = null;  // drawn again on a language change

async function runSweep(scenario, gen, signal, fits) {
  const section = $('sweep-section');
  if (scenario.task !== 'inference' || !scenario.gpu || !fits) {
    section.hidden = true;
    sweepPoints = null;
    return;
  }
  const results = await Promise.all(SWEEP_BATCHES.map((b) =>
    post('api/v1/estimate', { ...scenario, batch: b }, signal).catch(() => null)));
  if (gen !== generation) return;
  sweepPoints = SWEEP_BATCHES.map((b, i) => ({ b, e: results[i] })).filter((x) => x.e && x.e.memory);
  drawSweep();
}

function drawSweep() {
  const section = $('sweep-section');
  const all = sweepPoints || [];
  // Only the batches that fit are drawn, so the axes are scaled to them; the others are named
  // under the chart (their figures describe a machine that cannot hold the batch).
  const points = all.filter((x) => x.e.memory && x.e.memory.fits !== false && x.e.performance);
  const left = all.filter((x) => !(x.e.memory && x.e.memory.fits !== false));
  section.hidden = points.length === 0;
  $('sweep-note').textContent = left.length ? t('sweep_left_out', { list: left.map((x) => num(x.b, 0)).join(', ') }) : '';
  if (!points.length) return;
  const dataset = (label, key, color, axis) => ({
    label, yAxisID: axis, borderColor: color, backgroundColor: color, tension: 0.2, pointRadius: 3,
    data: points.map((x) => x.e.performance[key] ?? null),
  });
  const config = {
    type: 'line',
    data: {
      labels: points.map((x) => String(x.b)),
      datasets: [
        dataset(`${t('p_decode_tokens_per_s')} (${t('tok_s')})`, 'decode_tokens_per_s', '#3b6fd8', 'y'),
        dataset(`${t('p_tpot_ms')} (ms)`, 'tpot_ms', '#e08a1e', 'y1'),
        dataset(`${t('p_ttft_ms')} (ms)`, 'ttft_ms', '#2f9e6e', 'y1'),
      ],
    },
    options: {
      responsive: true, maintainAspectRatio: false, animation: false,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { title: { display: true, text: t('batch') } },
        y: { type: 'linear', position: 'left', beginAtZero: true, title: { display: true, text: t('tok_s') } },
        y1: { type: 'logarithmic', position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'ms' } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
  if (sweepChart) sweepChart.destroy();
  sweepChart = new Chart($('sweep-chart'), config);
  const canvas = $('sweep-chart');
  canvas.dataset.yMax = String(sweepChart.scales.y.max);
  canvas.dataset.batches = points.map((x) => x.b).join(',');
  const best = points[points.length - 1];
  canvas.setAttribute('aria-label', t('sweep_label', { b: best.b, x: rate(best.e.performance.decode_tokens_per_s) }));
}

// --- Recommendation ------------------------------------------------------------------------

// Per replica: the data-parallel copies are counted apart (replicasOf).
const layoutOf = (o) => splitText(o.parallel, ['tp', 'pp', 'ep']) || t('layout_single');
const replicasOf = (o) => o.replicas ?? (o.parallel && o.parallel.dp) ?? 1;
const throughputOf = (o) => {
  const p = o.estimate?.performance || {};
  return p.max_output_tokens_per_s ?? p.train_tokens_per_s ?? NaN;
};

/** The table's columns; `show` is the text, `get` the sort key. */
const OPTION_COLUMNS = [
  { key: 'rank', label: 'rank', num: true, get: (o) => o.rank },
  { key: 'gpu', label: 'gpu', get: (o) => o.gpu_name || gpuName(o.gpu), cls: 'gpu-name' },
  { key: 'gpu_count', label: 'gpu_count', num: true, get: (o) => o.gpu_count ?? 1 },
  { key: 'layout', label: 'layout', get: (o) => layoutOf(o) },
  { key: 'replicas', label: 'replicas', num: true, get: (o) => replicasOf(o) },
  { key: 'weights', label: 'weights', get: (o) => o.weights || '' },
  { key: 'memory', label: 'mem_gib', num: true, get: (o) => toGiB(o.estimate?.memory?.total_bytes ?? NaN), show: (o) => fixed(toGiB(o.estimate?.memory?.total_bytes ?? NaN), 1) },
  { key: 'speed', label: 'throughput', num: true, get: throughputOf, show: (o) => rate(throughputOf(o)) },
  { key: 'usd_h', label: 'usd_h', num: true, get: (o) => o.fleet_usd_per_hour ?? o.estimate?.cost?.usd_per_hour ?? NaN, show: (o) => usd(o.fleet_usd_per_hour ?? o.estimate?.cost?.usd_per_hour) },
  { key: 'metric', label: 'metric', num: true, get: (o) => o.objective_value ?? NaN, show: (o) => metricText(o.objective_value) },
];

let lastRecommendation = null;
let lastRequest = null;  // the recommend request the table answers (traffic, task)
let columns = OPTION_COLUMNS;  // the table's columns for that request
const TRAIN_TASKS = new Set(['lora', 'qlora', 'full', 'freeze', 'pretrain']);
const METRIC_COLUMN = { key: 'metric', label: 'metric', num: true, get: (o) => o.objective_value ?? NaN, show: (o) => metricText(o.objective_value) };
/** The ranking metric's value: money for the cost objective, a plain figure for speed or power. */
const metricText = (x) => ((lastRecommendation?.objective || 'cost') === 'cost' ? usd(x) : rate(x));

/** The columns for a request: the fleet at a request rate, the training layout, or the plain set. */
function columnsFor(request, options) {
  if (request && request.traffic) {
    // Racks only where the answer counts them (a rack budget).
    const racked = options.some((o) => Number.isFinite(o.racks ?? o.estimate?.power?.racks));
    const fleet = fleetColumns(layoutOf, request.slo || {}).filter((c) => c.key !== 'racks' || racked);
    return request.objective && request.objective !== 'cost' ? [...fleet, METRIC_COLUMN] : fleet;
  }
  // Training: the run cost ranks as the cost metric does (same tokens), so the metric shows only for speed or power.
  if (request && TRAIN_TASKS.has(request.task)) return request.objective && request.objective !== 'cost' ? [...trainColumns(), METRIC_COLUMN] : trainColumns();
  return OPTION_COLUMNS;
}

const cellText = (c, o) => (c.show ? c.show(o) : String(c.get(o) ?? ''));

/** The columns marked `fold` that read the same on every option leave the table and are said once
 *  above it ("Same for every option: ZeRO 0; offload none"), so the table fits beside the form. */
function foldColumns(cols, options) {
  const same = options.length > 1 ? cols.filter((c) => c.fold && new Set(options.map((o) => cellText(c, o))).size === 1) : [];
  $('options-same').textContent = same.length
    ? t('options_same', { list: same.map((c) => `${t(`col_${c.label}`, c.vars)}: ${cellText(c, options[0])}`).join('; ') })
    : '';
  $('options-same').hidden = same.length === 0;
  return cols.filter((c) => !same.includes(c));
}

/** The name of the ranking metric: per million requests at a rate, training tokens when training. */
function metricLabel(objective) {
  if (objective === 'cost' && lastRequest && lastRequest.traffic) return t('metric_cost_requests');
  if (objective === 'cost' && lastRequest && TRAIN_TASKS.has(lastRequest.task)) return t('metric_cost_train');
  return t(`metric_${objective}`);
}
let userGpuPlace = null;  // {option} or {why} for the user's own GPU, from a second request

function optionRows(o, recommendation) {
  const tr = document.createElement('tr');
  tr.dataset.gpu = o.gpu;
  tr.dataset.rank = String(o.rank);
  // Your GPU is marked among others (not when every option is on it: "Only this GPU").
  const mine = o.gpu === userGpu() && new Set((recommendation.options || []).map((x) => x.gpu)).size > 1;
  if (mine) tr.classList.add('mine');
  for (const c of columns) {
    const td = document.createElement('td');
    if (c.num) td.className = 'num';
    if (c.cls) td.classList.add(c.cls);
    td.dataset.label = c.key === 'metric' ? metricLabel(recommendation.objective || 'cost') : t(`col_${c.label}`, c.vars);
    td.textContent = c.show ? c.show(o) : String(c.get(o) ?? '');
    if (c.key === 'gpu' && mine) {
      const badge = document.createElement('span');
      badge.className = 'badge';
      badge.textContent = t('your_gpu');
      td.append(' ', badge);
    }
    tr.append(td);
  }
  const actions = document.createElement('td');
  actions.className = 'actions';
  const why = document.createElement('button');
  why.type = 'button';
  why.className = 'secondary small why';
  why.textContent = t('why');
  why.setAttribute('aria-expanded', 'false');
  const detailId = `why-${o.rank}`;
  why.setAttribute('aria-controls', detailId);
  why.setAttribute('aria-label', t('why_label', { gpu: o.gpu_name || gpuName(o.gpu), n: o.gpu_count ?? 1 }));
  const use = document.createElement('button');
  use.type = 'button';
  use.className = 'secondary small use';
  use.textContent = t('use_option');
  use.setAttribute('aria-label', t('use_option_label', { gpu: o.gpu_name || gpuName(o.gpu), n: o.gpu_count ?? 1 }));
  use.addEventListener('click', () => useOption(o));
  actions.append(why, ' ', use);
  if (o.estimate?.performance?.step_breakdown_s) {
    // A training layout: its step by part is drawn under the table.
    const step = document.createElement('button');
    step.type = 'button';
    step.className = 'secondary small step';
    step.textContent = t('show_step');
    step.setAttribute('aria-label', t('show_step_label', { gpu: o.gpu_name || gpuName(o.gpu), n: o.gpu_count ?? 1, rank: o.rank }));
    step.setAttribute('aria-controls', 'rec-step-section');
    step.addEventListener('click', () => { showOptionStep(o); $('rec-step-title').focus(); });
    actions.append(' ', step);
  }
  tr.append(actions);
  const detail = document.createElement('tr');
  detail.className = 'why-row';
  detail.id = detailId;
  detail.hidden = true;
  const cell = document.createElement('td');
  cell.colSpan = columns.length + 1;
  const list = document.createElement('ul');
  list.lang = serverLang();  // the server's reasons, in the language it answered in
  for (const r of [...(o.reasons || []), ...(o.warnings || [])]) {
    const li = document.createElement('li');
    setServerText(li, r);
    list.append(li);
  }
  const meta = document.createElement('p');
  meta.className = 'note';
  meta.textContent = `${o.gpu} · ${o.objective_basis || ''}`;
  meta.lang = serverLang();
  cell.append(list, meta);
  detail.append(cell);
  why.addEventListener('click', () => {
    detail.hidden = !detail.hidden;
    why.setAttribute('aria-expanded', String(!detail.hidden));
  });
  return [tr, detail];
}

function useOption(o) {
  const patch = { recommend: false, gpu: o.gpu, gpu_count: o.gpu_count ? String(o.gpu_count) : '' };
  if (o.weights) patch.weights = o.weights;
  if (o.parallel) for (const k of ['tp', 'pp', 'dp']) if (o.parallel[k]) patch[k] = String(o.parallel[k]);
  if (o.training && TRAIN_TASKS.has($('task').value)) {
    // The layout's training settings the form holds; the rest (cp, offload, ...) ride in 'extra'.
    // Its engine too: a TP or interleaved layout is one only that engine runs.
    const engine = o.estimate?.scenario?.engine;
    if (engine && engine !== ($('engine').value || resolvedEngine)) patch.engine = engine;
    const tr = o.training;
    if (tr.batch) patch.batch = String(tr.batch);
    if (tr.grad_accum) patch.grad_accum = String(tr.grad_accum);
    if (tr.zero_stage !== undefined) patch.zero_stage = String(tr.zero_stage);
    if (tr.gradient_checkpointing !== undefined) patch.gradient_checkpointing = tr.gradient_checkpointing === 'none' || tr.gradient_checkpointing === false ? 'false' : tr.gradient_checkpointing === true ? 'full' : String(tr.gradient_checkpointing);
    const rest = {};
    for (const k of ['cp', 'ep', 'pp_interleave', 'sequence_parallel']) if (o.parallel && o.parallel[k] !== undefined && o.parallel[k] !== 1 && o.parallel[k] !== false) rest[k] = o.parallel[k];
    const extra = Object.keys(rest).length ? { parallel: rest } : {};
    if (tr.offload && tr.offload !== 'none') extra.training = { offload: tr.offload };
    if (Object.keys(extra).length) extraPatch = mergePatch(extraPatch || {}, extra);
  }
  writeForm(patch);
  pushNext = true;
  focusNext = true;
  schedule(0);
}

const userGpu = () => $('gpu').value;

/** The step of a training option by part, under the table (the first option's until one is chosen). */
function showOptionStep(o) {
  const title = $('rec-step-title');
  title.textContent = t('rec_step_title', { rank: o.rank, n: o.gpu_count ?? 1, gpu: o.gpu_name || gpuName(o.gpu) });
  title.tabIndex = -1;
  renderStep('rec-step', o.estimate?.performance, t('step_caption_option', { rank: o.rank, s: fixed(o.estimate?.performance?.step_time_s, 3) }));
  for (const b of document.querySelectorAll('#options-table button.step')) b.setAttribute('aria-pressed', 'false');
  const row = [...document.querySelectorAll('#options-table tbody tr:not(.why-row)')].find((tr) => tr.dataset.rank === String(o.rank));
  if (row && row.querySelector('button.step')) row.querySelector('button.step').setAttribute('aria-pressed', 'true');
}

function renderOptions(recommendation, request = lastRequest) {
  lastRecommendation = recommendation;
  lastRequest = request;
  const options = (recommendation.options || []).map((o, i) => ({ ...o, rank: i + 1 }));
  columns = foldColumns(columnsFor(request, options), options);
  const col = columns.find((c) => c.key === optionsSort.key) || columns[0];
  options.sort((a, b) => {
    const x = col.get(a);
    const y = col.get(b);
    if (col.num) return ((Number.isNaN(x) ? Infinity : x) - (Number.isNaN(y) ? Infinity : y)) * optionsSort.dir;
    return String(x).localeCompare(String(y)) * optionsSort.dir;
  });
  const table = $('options-table');
  table.classList.toggle('train', Boolean(request && TRAIN_TASKS.has(request.task)));
  table.classList.toggle('fleet', Boolean(request && request.traffic));
  const objective = recommendation.objective || 'cost';
  table.tHead.rows[0].replaceChildren(...columns.map((c) => {
    const th = document.createElement('th');
    th.scope = 'col';
    if (c.num) th.className = 'num';
    th.setAttribute('aria-sort', c.key === optionsSort.key ? (optionsSort.dir > 0 ? 'ascending' : 'descending') : 'none');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sort';
    const label = c.key === 'metric' ? metricLabel(objective) : c.key === 'speed' && options[0] && options[0].estimate?.performance?.train_tokens_per_s !== undefined ? t('col_train_throughput') : t(`col_${c.label}`, c.vars);
    button.textContent = label + (c.key === optionsSort.key ? (optionsSort.dir > 0 ? ' ▲' : ' ▼') : '');
    button.addEventListener('click', () => {
      optionsSort = { key: c.key, dir: optionsSort.key === c.key ? -optionsSort.dir : 1 };
      renderOptions(recommendation);
      table.querySelector(`th:nth-child(${columns.indexOf(c) + 1}) button`).focus();
    });
    th.append(button);
    return th;
  }), Object.assign(document.createElement('th'), { scope: 'col', textContent: t('col_actions') }));
  table.tBodies[0].replaceChildren(...options.flatMap((o) => optionRows(o, recommendation)));
  table.closest('.table-wrap').hidden = options.length === 0;
  const best = options.find((o) => o.rank === 1);
  if (best && best.estimate?.performance?.step_breakdown_s) showOptionStep(best);
  else $('rec-step-section').hidden = true;
  const basis = options.length ? options.find((o) => o.rank === 1)?.objective_basis : '';
  $('recommend-note').textContent = options.length
    ? t('options_ranked', { n: options.length, metric: metricLabel(objective), lower: t('lower_better') })
    : t('no_options');
  $('recommend-basis').textContent = basis ? t('metric_basis', { x: basis }) : '';
  if (request && TRAIN_TASKS.has(request.task) && !(request.training && request.training.tokens)) $('recommend-basis').textContent += ` ${t('train_no_tokens')}`;
  $('recommend-basis').lang = serverLang();
  renderUserGpu(options, recommendation.rejected || []);
  const rejected = recommendation.rejected || [];
  $('rejected').replaceChildren(...rejected.map((r) => {
    const li = document.createElement('li');
    li.lang = serverLang();
    const name = document.createElement('strong');
    name.textContent = gpuName(r.gpu);
    const why = document.createElement('span');
    setServerText(why, `: ${withoutGpuName(r.why, r.gpu)}`);
    li.append(name, why);
    return li;
  }));
  $('rejected-section').hidden = rejected.length === 0;
  // Advice on the request as a whole (a parallel engine for a split training job).
  const notes = recommendation.notes || [];
  $('recommend-notes').replaceChildren(...notes.map((n) => {
    const li = document.createElement('li');
    setServerText(li, n);
    return li;
  }));
  $('recommend-notes').hidden = notes.length === 0;
}

/** A rejection's reason without the GPU name it starts with (the name is said beside it). */
function withoutGpuName(why, gpu) {
  const name = (gpuName(gpu) || '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return String(why || '').replace(new RegExp(`^${name}[:：]\\s*`), '');
}

/** Where the user's own GPU stands: one of the options, rejected (why), or below the list. */
function renderUserGpu(options, rejected) {
  const id = userGpu();
  const el = $('your-gpu');
  el.replaceChildren();
  if (!id) { el.hidden = true; return; }
  el.hidden = false;
  const name = gpuName(id);
  const listed = options.find((o) => o.gpu === id);
  const gone = rejected.find((r) => r.gpu === id) || (userGpuPlace && userGpuPlace.gpu === id && userGpuPlace.why ? userGpuPlace : null);
  if (listed) {
    el.textContent = t('your_gpu_ranked', { gpu: name, rank: listed.rank });
  } else if (gone) {
    const why = document.createElement('span');
    setServerText(why, withoutGpuName(gone.why, id));
    el.append(t('your_gpu_rejected', { gpu: name }), ' ', why);
  } else if (userGpuPlace && userGpuPlace.gpu === id && userGpuPlace.option) {
    const o = { ...userGpuPlace.option, rank: '–' };
    el.append(t('your_gpu_below', { gpu: name, n: o.gpu_count ?? 1, layout: layoutOf(o), metric: metricText(o.objective_value), m: metricLabel(lastRecommendation?.objective || 'cost') }), ' ');
    const use = document.createElement('button');
    use.type = 'button';
    use.className = 'secondary small use';
    use.textContent = t('use_option');
    use.setAttribute('aria-label', t('use_option_label', { gpu: name, n: o.gpu_count ?? 1 }));
    use.addEventListener('click', () => useOption(o));
    el.append(use);
  } else {
    el.textContent = t('your_gpu_checking', { gpu: name });
  }
}

// ---------------------------------------------------------------------------------------------
// The update loop

let timer = null;
function schedule(delay = 300) {
  clearTimeout(timer);
  timer = setTimeout(update, delay);
}

/** Shows why nothing was computed: the old answer is hidden, the message is at the top (and at
 *  the field when one is named), and the phone's summary bar carries it. */
function showFailure(text) {
  setStatus(text, 'error');
  $('resolved').textContent = '';
  setSummary(text, 'error');
  $('estimate-view').classList.add('stale');
  $('recommend-view').classList.add('stale');
}

async function update() {
  const state = readForm();
  showSections(state);
  stateToUrl(state);
  clearFieldMessages();
  showContextLimit(state);
  let scenario;
  try {
    const bad = validateFields();
    if (bad.length) throw new Error(t('fix_fields', { fields: bad.map(labelOf).join(', ') }));
    scenario = scenarioOf(state);
  } catch (e) {
    // Nothing to send (a field the server cannot take, a pasted config that is not JSON): say so,
    // and drop any answer in flight.
    const gen = ++generation;
    if (controller) controller.abort();
    if (state.hf_config && /config\.json|JSON/.test(e.message) && !$('hf_config').getAttribute('aria-invalid')) setFieldMessage('hf_config', e.message);
    showFailure(e.message);
    document.body.classList.remove('busy');
    document.body.dataset.ready = String(gen);
    return;
  }
  const gen = ++generation;
  if (controller) controller.abort();
  controller = new AbortController();
  const { signal } = controller;
  setStatus(t('computing'), 'busy');
  document.body.classList.add('busy');
  try {
    if (state.recommend) {
      const request = leaveToSearch({ ...scenario, ...constraintsOf(state) }, state);
      // "Only this GPU" ranks the layouts of that GPU (of its count when given); else every GPU.
      if (state.only_gpu && state.gpu) request.gpus = [state.gpu];
      else {
        delete request.gpu;
        delete request.gpu_count;
      }
      try {
        const recommendation = await post('api/v1/recommend', request, signal);
        if (gen !== generation) return;
        userGpuPlace = null;
        lastRender = () => renderOptions(recommendation, request);
        lastRender();
        const mine = userGpu();
        const placed = state.only_gpu || (recommendation.options || []).some((o) => o.gpu === mine) || (recommendation.rejected || []).some((r) => r.gpu === mine);
        if (mine && !placed) {
          // Not among the best: ask for the best option on the user's GPU alone.
          const alone = await post('api/v1/recommend', { ...request, gpus: [mine], limit: 1 }, signal).catch(() => null);
          if (gen !== generation) return;
          const o = alone && alone.options && alone.options[0];
          const r = alone && alone.rejected && alone.rejected.find((x) => x.gpu === mine);
          userGpuPlace = o ? { gpu: mine, option: o } : { gpu: mine, why: r ? r.why : t('your_gpu_no_answer') };
          renderUserGpu((recommendation.options || []).map((x, i) => ({ ...x, rank: i + 1 })), recommendation.rejected || []);
        }
        setStatus('', '');
        setSummary(t('summary_options', { n: (recommendation.options || []).length }), '');
        $('recommend-view').classList.remove('stale');
      } catch (e) {
        if (gen !== generation || e.name === 'AbortError') return;
        if (e instanceof ApiError && e.status === 501) {
          lastRender = null;
          $('options-table').tBodies[0].replaceChildren();
          $('options-table').tHead.rows[0].replaceChildren();
          $('rejected-section').hidden = true;
          $('recommend-note').textContent = t('advisor_missing');
          setStatus('', '');
        } else {
          throw e;
        }
      }
      return;
    }
    const estimate = await post('api/v1/estimate', scenario, signal);
    if (gen !== generation) return;
    lastRender = () => { renderEstimate(estimate, scenario); renderResolved(estimate, state); renderSummary(estimate); };
    lastRender();
    setStatus('', '');
    $('estimate-view').classList.remove('stale');
    sweepPoints = null;
    await runSweep(scenario, gen, signal, !(estimate.memory && estimate.memory.fits === false));
    if (gen !== generation) return;
    const rerender = lastRender;
    lastRender = () => { rerender(); drawSweep(); };
  } catch (e) {
    if (gen !== generation || e.name === 'AbortError') return;
    // The error object names its field (contract v2); older servers only say it in the message.
    const has = (id) => isShown($(id)) && !!form.elements[id];
    const field = e instanceof ApiError ? fieldOfMessage(e.field ? `${e.field}: ` : e.message, has) : null;
    if (field) {
      setFieldMessage(field, e.message);
      $(`${field}-msg`).lang = serverLang();
      if (e.suggestions.length) offerNames(field, e.suggestions);
    }
    showFailure(errorText(e));
  } finally {
    if (gen === generation) {
      // After Apply or Use the button is gone (the list is redrawn): focus the results, whose
      // heading is read out, rather than letting focus fall to <body>.
      if (focusNext) { focusNext = false; $('results').focus(); }
      document.body.classList.remove('busy');
      document.body.dataset.ready = String(gen);
    }
  }
}

function applyLanguage(lang) {
  setLanguage(lang);
  $('lang').value = language();
  fillSelect('task', TASKS, 'task');
  fillSelect('gradient_checkpointing', CHECKPOINTING, 'ckpt');
  fillSelect('objective', ['cost', 'speed', 'power'], 'objective');
  fillSelect('deployment', ['any', 'cloud', 'on_prem'], 'deployment');
  fillSelect('region', ['any', 'cn'], 'region');
  fillSelect('percentile', PERCENTILES, 'pct');
  fillSelect('segment', ['any', 'datacenter', 'workstation', 'consumer'], 'segment');
  fillVendors();
  const auto = $('weights').querySelector('option[value=""]');
  if (auto) auto.textContent = autoWeightsLabel();
  if (lastRender) lastRender();
  schedule(0);  // the server's texts in the new language
}

async function share() {
  const url = location.href;
  try {
    await navigator.clipboard.writeText(url);
    setStatus(t('link_copied'), '');
  } catch {
    window.prompt(t('copy_this_link'), url);
  }
}

async function main() {
  setLanguage(initialLanguage());
  $('lang').value = language();
  fillStaticSelects();
  writeForm(stateFromUrl());
  showSections(readForm());
  await loadCatalogs();
  writeForm({ gpu: stateFromUrl().gpu });

  form.addEventListener('input', (e) => {
    if (e.target.id === 'task') {
      fillEngines();
      // QLoRA needs quantized weights: a 16-bit choice goes back to the task's default (nf4), which
      // the next task's default replaces again, so no format outlives the task that needed it.
      if (e.target.value === 'qlora' && ['bf16', 'fp16', 'fp32'].includes($('weights').value)) $('weights').value = '';
    }
    // A version names one engine's release: another engine starts from its own newest.
    if (e.target.id === 'engine') $('engine_version').value = '';
    schedule();
  });
  form.addEventListener('change', () => schedule());
  form.addEventListener('submit', (e) => { e.preventDefault(); schedule(0); });
  form.addEventListener('reset', (e) => {
    e.preventDefault();
    writeForm(DEFAULTS);
    schedule(0);
  });
  $('lang').addEventListener('change', (e) => applyLanguage(e.target.value));
  $('share').addEventListener('click', share);
  $('changes-recommend').addEventListener('click', recommendInstead);
  window.addEventListener('popstate', () => { writeForm(stateFromUrl()); schedule(0); });
  await update();
}

main();
