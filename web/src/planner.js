// The planners in the page: serving traffic and its service level (contract v2 "Replicas, traffic
// and service levels"), the fleet an option describes, and the training layout with its step
// broken into parts (contract v2 "Training layouts"). main.js calls these; they only read the
// answer and write the elements named here.
import {
  Chart, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip,
} from 'chart.js';
import { t } from './i18n.js';
import { fixed, num, rate, usd, duration, toGiB } from './format.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

const $ = (id) => document.getElementById(id);

/** The form fields of the traffic and its service level. */
export const TRAFFIC_FIELDS = ['requests_per_s', 'prompt_len_p90', 'output_len_p90', 'ttft_ms', 'tpot_ms'];
export const PERCENTILES = ['50', '90', '99'];

/** The scenario's `traffic` and `slo` from the form (serving only; none without a request rate).
 *  The mean lengths are the form's prompt and output lengths, as the contract's traffic names them. */
export function trafficOf(state, number) {
  if (state.task !== 'inference' || state.requests_per_s === '') return {};
  const traffic = { requests_per_s: number(state.requests_per_s) };
  for (const key of ['prompt_len', 'output_len', 'prompt_len_p90', 'output_len_p90']) {
    if (state[key] !== '') traffic[key] = number(state[key]);
  }
  const slo = {};
  for (const key of ['ttft_ms', 'tpot_ms']) if (state[key] !== '') slo[key] = number(state[key]);
  if (Object.keys(slo).length || state.percentile !== '90') slo.percentile = number(state.percentile);
  return Object.keys(slo).length ? { traffic, slo } : { traffic };
}

const ms = (x) => (x === null || x === undefined ? t('load_overloaded') : `${rate(x)} ms`);

/** "likely low–high" with its unit (`key`: likely_ms, likely_per_s) for a figure's band
 *  (contract "Bands on speed, time and cost"), or null. */
const likely = (band, key) => (band ? t(key, { low: rate(band.low), high: rate(band.high) }) : null);

/** One load card: the figure at the percentile, the target it is held against, its mean and
 *  its band (the load model at the engine's throughput band's edges). */
function loadCard(id, figure, target, mean, pct, band) {
  const card = $(`card-${id}`);
  $(`${id}-title`).textContent = t(`${id.replace('-', '_')}_title`, { p: pct });
  const over = figure === null || (target !== undefined && figure > target);
  $(id).textContent = ms(figure);
  $(id).dataset.value = String(figure);
  card.className = `card ${target === undefined && figure !== null ? '' : over ? 'bad' : 'ok'}`;
  $(`${id}-sub`).textContent = [
    target !== undefined ? t('load_target', { x: num(target, 1) }) : t('load_no_target'),
    mean !== undefined && mean !== null ? t('load_mean', { x: rate(mean) }) : null,
    likely(band, 'likely_ms'),
  ].filter(Boolean).join(' · ');
}

/** The "Under load" section of an estimate with traffic: TTFT and TPOT at the percentile against
 *  the targets, how busy the fleet is, the highest rate within the targets and what binds it. */
export function renderLoad(perf, sent) {
  const section = $('load-section');
  const traffic = sent && sent.traffic;
  if (!traffic || !perf || typeof perf.slo_met !== 'boolean') { section.hidden = true; return; }
  section.hidden = false;
  const slo = sent.slo || {};
  const pct = slo.percentile ?? 90;
  const bands = perf.bands || {};
  loadCard('load-ttft', perf.load_ttft_ms ?? null, slo.ttft_ms, perf.load_ttft_mean_ms, pct, bands.load_ttft_ms);
  loadCard('load-tpot', perf.load_tpot_ms ?? null, slo.tpot_ms, perf.load_tpot_mean_ms, pct, bands.load_tpot_ms);
  const u = perf.load_utilization;
  $('load-util').textContent = u === undefined ? '–' : `${fixed(u * 100, 0)} %`;
  $('load-util').dataset.value = String(u);
  $('load-util-sub').textContent = t('load_util_sub', {
    r: num(traffic.requests_per_s, 2), b: num(perf.load_batch, 1), x: rate(perf.load_output_tokens_per_s),
  });
  $('load-max').textContent = rate(perf.max_requests_per_s);
  $('load-max').dataset.value = String(perf.max_requests_per_s);
  $('load-max-sub').textContent = [
    perf.load_binding ? t('load_bound_by', { x: t(`lbind_${perf.load_binding}`) }) : null,
    perf.load_capacity_requests_per_s !== undefined ? t('load_capacity', { x: rate(perf.load_capacity_requests_per_s) }) : null,
    likely(bands.max_requests_per_s, 'likely_per_s'),
  ].filter(Boolean).join(' · ');
  const verdict = $('load-verdict');
  verdict.textContent = perf.slo_met
    ? t(slo.ttft_ms !== undefined || slo.tpot_ms !== undefined ? 'load_met' : 'load_sustained', { r: num(traffic.requests_per_s, 2), p: pct })
    : t(perf.load_ttft_ms === null ? 'load_over_capacity' : 'load_not_met', { r: num(traffic.requests_per_s, 2), p: pct });
  verdict.className = `verdict ${perf.slo_met ? 'ok' : 'bad'}`;
  verdict.dataset.value = String(perf.slo_met);
}

// --- The training step by part -------------------------------------------------------------

/** The parts of `step_breakdown_s`, in the order of a step (contract v2 "Training layouts"). */
export const STEP_PARTS = ['compute', 'recompute', 'tp_comm', 'pp_bubble', 'dp_comm', 'ep_comm', 'optimizer', 'offload'];
const STEP_COLORS = {
  compute: '#3b6fd8', recompute: '#7aa2f7', tp_comm: '#e08a1e', pp_bubble: '#c0424a',
  dp_comm: '#2f9e6e', ep_comm: '#8a55c9', optimizer: '#b5732f', offload: '#7a8594',
};
const stepCharts = new Map();

/** Draws the step of `perf` (its `step_breakdown_s`) as one stacked bar and a table under
 *  `prefix` ('step' or 'rec-step'); hides the section when there is no breakdown. */
export function renderStep(prefix, perf, caption) {
  const section = $(`${prefix}-section`);
  const parts = perf && perf.step_breakdown_s;
  if (!parts || typeof parts !== 'object') { section.hidden = true; return; }
  section.hidden = false;
  const total = perf.step_time_s ?? STEP_PARTS.reduce((a, k) => a + (Number(parts[k]) || 0), 0);
  const shown = STEP_PARTS.filter((k) => Number(parts[k]) > 0);
  $(`${prefix}-table-caption`).textContent = caption;
  const rows = shown.map((k) => {
    const tr = document.createElement('tr');
    tr.dataset.part = k;
    const th = document.createElement('th');
    th.scope = 'row';
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = STEP_COLORS[k];
    th.append(swatch, t(`step_${k}`));
    const s = document.createElement('td');
    s.className = 'num';
    s.dataset.value = String(parts[k]);
    s.textContent = fixed(parts[k], parts[k] >= 1 ? 2 : 4);
    const share = document.createElement('td');
    share.className = 'num';
    share.textContent = `${fixed((100 * parts[k]) / total, 1)} %`;
    tr.append(th, s, share);
    return tr;
  });
  const sum = document.createElement('tr');
  sum.className = 'total';
  sum.innerHTML = '<th scope="row"></th><td class="num"></td><td class="num"></td>';
  sum.cells[0].textContent = t('step_total');
  sum.cells[1].textContent = fixed(total, total >= 1 ? 2 : 4);
  sum.cells[1].dataset.value = String(total);
  sum.cells[2].textContent = '100 %';
  $(`${prefix}-table`).tBodies[0].replaceChildren(...rows, sum);
  drawStepChart(prefix, parts, shown, total);
}

function drawStepChart(prefix, parts, shown, total) {
  const canvas = $(`${prefix}-chart`);
  const datasets = shown.map((k) => ({
    label: t(`step_${k}`), data: [parts[k]], backgroundColor: STEP_COLORS[k], stack: 'step', borderWidth: 0,
  }));
  const config = {
    type: 'bar',
    data: { labels: [t('step_one')], datasets },
    options: {
      indexAxis: 'y', responsive: true, maintainAspectRatio: false, animation: false,
      scales: { x: { stacked: true, beginAtZero: true, title: { display: true, text: t('step_axis') } }, y: { stacked: true } },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 12 } },
        tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${fixed(ctx.parsed.x, 4)} s` } },
      },
    },
  };
  if (stepCharts.has(prefix)) stepCharts.get(prefix).destroy();
  stepCharts.set(prefix, new Chart(canvas, config));
  canvas.setAttribute('aria-label', t('step_chart_label', { s: fixed(total, 3), n: shown.length }));
}

// --- The columns of the recommendation --------------------------------------------------------

const P = (o) => o.parallel || {};
const T = (o) => o.training || {};
const perfOf = (o) => o.estimate?.performance || {};
const gib1 = (o) => toGiB(o.estimate?.memory?.total_bytes ?? NaN);

/** The fleet of a serving option: "4 × TP 2", the machines it is rented or bought as. */
export function machinesOf(o) {
  if (o.instance && o.instance.name) return `${o.instance.count ?? 1} × ${o.instance.name}`;
  if (o.nodes !== undefined) return t(o.nodes === 1 ? 'servers_one' : 'servers_n', { n: num(o.nodes, 0) });
  return '–';
}

/** A load figure at the percentile (ms), or "overloaded" past the capacity. */
function againstTarget(x) {
  if (x === undefined) return '–';
  if (x === null) return t('load_overloaded');
  return rate(x);
}

/** The targets for a column header: "targets 1,000 · 50", or nothing when none is set. */
function targetsOf(slo) {
  if (slo.ttft_ms === undefined && slo.tpot_ms === undefined) return '';
  return t('load_targets', { a: slo.ttft_ms === undefined ? '–' : num(slo.ttft_ms, 1), b: slo.tpot_ms === undefined ? '–' : num(slo.tpot_ms, 1) });
}

/** Columns for serving at a request rate: the fleet answer as a person reads it. */
export function fleetColumns(layoutOf, slo) {
  return [
    { key: 'rank', label: 'rank', num: true, get: (o) => o.rank },
    { key: 'gpu', fold: true, label: 'gpu', get: (o) => o.gpu_name || o.gpu, cls: 'gpu-name' },
    { key: 'fleet', label: 'fleet', get: (o) => o.gpu_count ?? 1, show: (o) => `${o.replicas ?? 1} × ${layoutOf(o)}\n${t('gpus_n', { n: num(o.gpu_count ?? 1, 0) })}`, cls: 'lines' },
    { key: 'machines', label: 'machines', get: machinesOf, cls: 'machines' },
    { key: 'weights', fold: true, label: 'weights', get: (o) => o.weights || '' },
    { key: 'usd_h', label: 'fleet_usd_h', num: true, get: (o) => o.fleet_usd_per_hour ?? NaN, show: (o) => usd(o.fleet_usd_per_hour) },
    { key: 'usd_mreq', label: 'usd_mreq', num: true, get: (o) => o.usd_per_million_requests ?? NaN, show: (o) => usd(o.usd_per_million_requests) },
    { key: 'ttft', label: 'load_latency', num: true, get: (o) => o.load_ttft_ms ?? Infinity, show: (o) => `${againstTarget(o.load_ttft_ms)} · ${againstTarget(o.load_tpot_ms)}`, vars: { p: slo.percentile ?? 90, targets: targetsOf(slo) } },
    { key: 'util', label: 'load_util', num: true, get: (o) => o.load_utilization ?? NaN, show: (o) => (o.load_utilization === undefined ? '–' : `${fixed(o.load_utilization * 100, 0)} %`) },
    { key: 'binding', fold: true, label: 'binding', get: (o) => (o.binding ? t(`binding_${o.binding}`) : '–') },
    { key: 'racks', label: 'racks', num: true, get: (o) => o.racks ?? o.estimate?.power?.racks ?? NaN, show: (o) => num(o.racks ?? o.estimate?.power?.racks, 0) },
  ];
}

/** Columns for a training recommendation: the whole layout, its step and the run. */
export function trainColumns() {
  const n = (get) => (o) => get(o) ?? 1;
  return [
    { key: 'rank', label: 'rank', num: true, get: (o) => o.rank },
    { key: 'gpu', fold: true, label: 'gpu', get: (o) => o.gpu_name || o.gpu, cls: 'gpu-name' },
    { key: 'gpu_count', fold: true, label: 'gpu_count', num: true, get: (o) => o.gpu_count ?? 1 },
    // A request that names no engine is planned under several (docs/advisor.md): each layout says which.
    { key: 'engine', fold: true, label: 'engine', get: (o) => o.estimate?.scenario?.engine || '–' },
    { key: 'tp', label: 'tp_pp_dp', num: true, get: (o) => n((x) => P(x).tp)(o) * 1e6 + n((x) => P(x).pp)(o) * 1e3 + n((x) => P(x).dp)(o), show: (o) => [P(o).tp, P(o).pp, P(o).dp].map((v) => v ?? 1).join(' · ') },
    { key: 'more', fold: true, label: 'more_layout', get: moreLayout, cls: 'nowrap' },
    { key: 'zero', fold: true, label: 'zero', num: true, get: (o) => T(o).zero_stage ?? P(o).zero_stage ?? 0 },
    { key: 'mb', fold: true, label: 'micro_accum', num: true, get: (o) => T(o).global_batch ?? NaN, show: (o) => `${T(o).batch ?? '–'} × ${T(o).grad_accum ?? '–'}` },
    { key: 'rc', fold: true, label: 'recompute', get: (o) => t(`ckpt_${ckptId(T(o).gradient_checkpointing)}`) },
    { key: 'off', fold: true, label: 'offload', get: (o) => t(`offload_${T(o).offload || 'none'}`) },
    { key: 'step', label: 'step_s', num: true, get: (o) => perfOf(o).step_time_s ?? NaN, show: (o) => rate(perfOf(o).step_time_s) },
    { key: 'tok', label: 'train_tok_s', num: true, get: (o) => perfOf(o).train_tokens_per_s ?? NaN, show: (o) => rate(perfOf(o).train_tokens_per_s) },
    { key: 'mfu', label: 'mfu', num: true, get: (o) => perfOf(o).mfu ?? NaN, show: (o) => (perfOf(o).mfu === undefined ? '–' : `${fixed(perfOf(o).mfu * 100, 1)} %`) },
    { key: 'memory', label: 'gib_per_gpu', num: true, get: gib1, show: (o) => fixed(gib1(o), 1) },
    { key: 'ttt', label: 'time_to_train', num: true, get: (o) => perfOf(o).time_to_train_s ?? NaN, show: (o) => duration(perfOf(o).time_to_train_s) },
    { key: 'run', label: 'run_cost', num: true, get: (o) => o.estimate?.cost?.usd_total ?? NaN, show: (o) => usd(o.estimate?.cost?.usd_total) },
  ];
}

/** The layout's other dimensions where they are not the default: "VPP 2 · EP 4 · CP 2 · SP". */
function moreLayout(o) {
  const p = P(o);
  const parts = [];
  if ((p.pp_interleave ?? 1) > 1) parts.push(`VPP ${p.pp_interleave}`);
  if ((p.ep ?? 1) > 1) parts.push(`EP ${p.ep}`);
  if ((p.cp ?? 1) > 1) parts.push(`CP ${p.cp}`);
  if (p.sequence_parallel) parts.push('SP');
  return parts.length ? parts.join(' · ') : '–';
}

/** The recompute setting as the form's checkpointing ids: none/false -> 'false'. */
function ckptId(v) {
  if (v === true || v === 'full') return 'full';
  if (v === 'selective') return 'selective';
  return 'false';
}
