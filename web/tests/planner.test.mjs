// Browser tests of the planners in the page: serving traffic and its service level (contract v2
// "Replicas, traffic and service levels") and the training layout with its step by part
// (contract v2 "Training layouts"). Each compares what the page shows with what the API answers
// for the same request, in both languages and at phone size.
import {
  api, check, launch, PHONE, setField, settled, shotPath, startServer,
} from './lib.mjs';

const filter = process.env.WEB_TEST_FILTER ? new RegExp(process.env.WEB_TEST_FILTER) : null;

/** The figures as the page writes them in English (format.js: rate, usd). */
const en = (x, digits) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(x);
const usd = (x) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: x < 10 ? 3 : 2 }).format(x);
const rate = (x) => en(x, Math.abs(x) >= 1000 ? 0 : Math.abs(x) >= 10 ? 1 : Math.abs(x) >= 1 ? 2 : 3);

export async function run(report) {
  const { child, base } = await startServer();
  const browser = await launch('en-US');
  const errors = [];
  const open = async (query, { viewport, lang = 'en' } = {}) => {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    if (viewport) await page.setViewportSize(viewport);
    await page.addInitScript((l) => localStorage.setItem('gpusizer.lang', l), lang);
    await page.goto(new URL(query, base).href);
    await settled(page);
    return page;
  };
  /** The JSON bodies the page posts to `route` (estimate or recommend). */
  const watch = (page, route) => {
    const sent = [];
    page.on('request', (req) => { if (req.url().includes(`api/v1/${route}`)) sent.push(req.postDataJSON()); });
    return sent;
  };
  const rows = (page) => page.$$eval('#options-table tbody tr:not(.why-row)', (trs) => trs.map((tr) => Object.fromEntries([...tr.cells].map((td) => [td.dataset.label || 'actions', td.textContent.trim()]))));
  const test = async (name, fn) => {
    if (filter && !filter.test(name)) return;
    try { await fn(); report(name, null); } catch (e) { report(name, e); }
  };

  try {
    await test('serving: traffic and SLO typed in the form reach the server, and the load is shown against them', async () => {
      const page = await open('?model=llama-2-7b&gpu=h100-sxm5-80gb&gpu_count=2');
      check(await page.isHidden('#load-section'), 'a load section without a request rate');
      const sent = watch(page, 'estimate');
      await setField(page, 'requests_per_s', 5);
      await setField(page, 'prompt_len_p90', 3000);
      await setField(page, 'ttft_ms', 500);
      await setField(page, 'tpot_ms', 30);
      await setField(page, 'percentile', '99');
      const body = sent.filter((b) => b.batch === undefined || b.batch === 1).pop();
      check(body.traffic && body.traffic.requests_per_s === 5 && body.traffic.prompt_len_p90 === 3000, `traffic sent: ${JSON.stringify(body.traffic)}`);
      check(JSON.stringify(body.slo) === JSON.stringify({ ttft_ms: 500, tpot_ms: 30, percentile: 99 }), `slo sent: ${JSON.stringify(body.slo)}`);
      const expected = (await api(base, 'api/v1/estimate', body)).body.performance;
      check(typeof expected.slo_met === 'boolean', 'the API gives no load figures for this request');
      check(await page.isVisible('#load-section'), 'no load section');
      check(Number(await page.getAttribute('#load-ttft', 'data-value')) === expected.load_ttft_ms, 'load TTFT differs from the API');
      check(Number(await page.getAttribute('#load-tpot', 'data-value')) === expected.load_tpot_ms, 'load TPOT differs from the API');
      check(Number(await page.getAttribute('#load-max', 'data-value')) === expected.max_requests_per_s, 'max requests/s differs from the API');
      check((await page.getAttribute('#load-verdict', 'data-value')) === String(expected.slo_met), 'the verdict is not the API\'s slo_met');
      check(/p99/.test(await page.textContent('#load-ttft-title')), 'the TTFT card does not name the percentile');
      check((await page.textContent('#load-ttft-sub')).includes('500'), 'the TTFT target is not beside the figure');
      // Each load figure's band (the load model at the throughput band's edges) is beside it, and
      // the performance table's figures carry theirs.
      const tpotBand = expected.bands && expected.bands.load_tpot_ms;
      const tpotSub = await page.textContent('#load-tpot-sub');
      check(tpotBand && tpotSub.includes(`likely ${rate(tpotBand.low)}–${rate(tpotBand.high)} ms`), `the TPOT band is not shown: ${tpotSub}`);
      const decodeBand = expected.bands && expected.bands.decode_tokens_per_s;
      const decodeCell = await page.textContent('#perf-table tr[data-key="decode_tokens_per_s"] .band');
      check(decodeBand && decodeCell === `likely ${rate(decodeBand.low)}–${rate(decodeBand.high)}`, `the decode band is not shown: ${decodeCell}`);
      // 5,000 requests/s is far past two H100s: no TTFT (queues grow), and it says so.
      await setField(page, 'requests_per_s', 5000);
      check(/overloaded/.test(await page.textContent('#load-ttft')) && /past this fleet's capacity/.test(await page.textContent('#load-verdict')), `past capacity: ${await page.textContent('#load-verdict')}`);
      // A letter in the rate is reported at the field.
      await setField(page, 'requests_per_s', 'x');
      check((await page.getAttribute('#requests_per_s', 'aria-invalid')) === 'true', 'a bad rate is not marked at its field');
      await page.close();
    });

    await test('serving: recommend at a rate shows the fleet as a person reads it (replicas x layout, machines, $/h, $ per million requests, latency, binding, racks)', async () => {
      const query = '?model=llama-3.1-70b&recommend=1&requests_per_s=20&prompt_len=1000&output_len=200&ttft_ms=1000&tpot_ms=50&rack_budget_watts=10000';
      const page = await open(query);
      const sent = watch(page, 'recommend');
      await page.reload();
      await settled(page);
      const body = sent[0];
      check(body.traffic.requests_per_s === 20 && body.slo.ttft_ms === 1000 && body.facility.rack_budget_watts === 10000, `sent ${JSON.stringify(body).slice(0, 300)}`);
      const expected = (await api(base, 'api/v1/recommend', body)).body;
      const first = expected.options[0];
      const shown = await rows(page);
      check(shown.length === expected.options.length, `${shown.length} rows, the API has ${expected.options.length}`);
      const row = shown[0];
      check(row.GPU.startsWith(first.gpu_name), `first row ${row.GPU}, API ${first.gpu_name}`);
      const fleet = row['Replicas × layout (GPUs)'];
      check(fleet.startsWith(`${first.replicas} × `) && fleet.includes(`(${first.gpu_count} GPUs)`), `fleet cell "${fleet}" for ${first.replicas} replicas, ${first.gpu_count} GPUs`);
      const machines = row['Cloud instances or servers'];
      check(first.instance ? machines.includes(first.instance.name) : machines.includes(`${first.nodes} server`), `machines "${machines}"`);
      check(row['Fleet USD/h'] === usd(first.fleet_usd_per_hour), `fleet $/h ${row['Fleet USD/h']} vs ${first.fleet_usd_per_hour}`);
      check(row['USD per million requests'] === usd(first.usd_per_million_requests), `$/M requests ${row['USD per million requests']} vs ${first.usd_per_million_requests}`);
      const latency = Object.entries(row).find(([k]) => /^p90 TTFT · TPOT/.test(k));
      check(latency && latency[0].includes('1,000 · 50') && latency[1] === `${rate(first.load_ttft_ms)} · ${rate(first.load_tpot_ms)}`, `latency column ${JSON.stringify(latency)}`);
      const racks = first.racks ?? first.estimate?.power?.racks;
      check(row.Racks === (racks === undefined ? '–' : String(racks)), `racks ${row.Racks} vs ${racks}`);
      const binds = row['What binds'] ?? await page.textContent('#options-same');
      check(/latency targets|memory|throughput|power|budget|nothing/.test(binds), `binding not said: ${binds}`);
      check(/ranked by USD per million requests/.test(await page.textContent('#recommend-note')), 'the metric is not per million requests');
      await page.screenshot({ path: shotPath('planner-fleet-en-desktop.png'), fullPage: true });
      await page.close();
      // On a phone: cards, nothing wider than the screen.
      const phone = await open(query, { viewport: PHONE });
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(overflow <= 1, `the page overflows the phone by ${overflow}px`);
      await phone.screenshot({ path: shotPath('planner-fleet-en-phone.png'), fullPage: true });
      await phone.close();
    });

    await test('training: recommend shows each layout and the step of the chosen one by part', async () => {
      const query = '?model=llama-3.1-8b&task=full&tokens=1e10&recommend=1&gpu=h100-sxm5-80gb';
      const page = await open(query);
      const sent = watch(page, 'recommend');
      await page.reload();
      await settled(page);
      const body = sent[0];
      // The form's defaults are left to the search (fields given are kept, contract v2).
      check(body.training.zero_stage === undefined && body.batch === undefined && body.training.tokens === 1e10, `sent ${JSON.stringify(body)}`);
      const expected = (await api(base, 'api/v1/recommend', body)).body;
      const shown = await rows(page);
      check(shown.length === expected.options.length && shown.length > 1, `${shown.length} rows, the API has ${expected.options.length}`);
      const same = await page.textContent('#options-same');
      for (const [i, o] of expected.options.slice(0, 3).entries()) {
        const r = shown[i];
        const p = o.parallel;
        check(r['TP · PP · DP'] === `${p.tp} · ${p.pp} · ${p.dp}`, `row ${i + 1} layout ${r['TP · PP · DP']} vs ${JSON.stringify(p)}`);
        // No engine was named: the layouts are planned under several, and each row says which.
        const engine = r.Engine ?? same;
        check(engine.includes(o.estimate.scenario.engine), `row ${i + 1} engine ${engine} vs ${o.estimate.scenario.engine}`);
        const mb = r['Micro-batch × accum.'] ?? same;
        check(mb.includes(`${o.training.batch} × ${o.training.grad_accum}`), `row ${i + 1} micro-batch ${mb}`);
        check(r['Step (s)'] === rate(o.estimate.performance.step_time_s), `row ${i + 1} step ${r['Step (s)']} vs ${o.estimate.performance.step_time_s}`);
        check(r['Run cost'] === usd(o.estimate.cost.usd_total), `row ${i + 1} run cost ${r['Run cost']} vs ${o.estimate.cost.usd_total}`);
        check(r.MFU === `${(o.estimate.performance.mfu * 100).toFixed(1)} %`, `row ${i + 1} MFU ${r.MFU}`);
        check(/\d/.test(r['Time to train']), `row ${i + 1} has no time to train`);
      }
      for (const key of ['ZeRO', 'Recompute', 'Offload']) {
        check(shown[0][key] !== undefined || same.includes(key), `${key} neither a column nor said for every option`);
      }
      // The step of option 1, then of option 2 when its Step button is pressed.
      const partsOf = (o) => Object.entries(o.estimate.performance.step_breakdown_s).filter(([, v]) => v > 0);
      const stepRows = () => page.$$eval('#rec-step-table tbody tr:not(.total)', (trs) => trs.map((tr) => [tr.dataset.part, Number(tr.cells[1].dataset.value)]));
      let drawn = await stepRows();
      check(JSON.stringify(drawn.sort()) === JSON.stringify(partsOf(expected.options[0]).sort()), `step of option 1: ${JSON.stringify(drawn)}`);
      await page.click('#options-table tbody tr[data-rank="2"] button.step');
      drawn = await stepRows();
      check(JSON.stringify(drawn.sort()) === JSON.stringify(partsOf(expected.options[1]).sort()), `step of option 2: ${JSON.stringify(drawn)}`);
      check(/option 2/.test(await page.textContent('#rec-step-title')), 'the chart does not say which option it shows');
      // The parts add up to the step time (contract v2: exposed time, adding up to step_time_s),
      // each written to six significant digits (docs/contract.md, number precision).
      const total = Number(await page.getAttribute('#rec-step-table tr.total td', 'data-value'));
      const sum = drawn.reduce((a, [, v]) => a + v, 0);
      check(Math.abs(sum - total) <= 1e-5 * total, `parts add to ${sum}, the step is ${total}`);
      await page.screenshot({ path: shotPath('planner-training-en-desktop.png'), fullPage: true });
      // The training constraints the CLI has (--allow-offload, --max-days, --production, --vendor).
      await setField(page, 'allow_offload', true);
      await setField(page, 'max_days', 30);
      await setField(page, 'production', true);
      await setField(page, 'vendor', 'NVIDIA');
      const last = sent[sent.length - 1];
      check(last.allow_offload === true && last.max_days === 30 && last.production === true && last.vendor === 'NVIDIA', `constraints sent: ${JSON.stringify(last)}`);
      await page.close();
    });

    await test('training: an estimate shows its step by part', async () => {
      const page = await open('?model=llama-2-7b&task=full&gpu=h100-sxm5-80gb&gpu_count=8&zero_stage=3&tokens=1e9');
      const expected = (await api(base, 'api/v1/estimate', { model: 'llama-2-7b', task: 'full', gpu: 'h100-sxm5-80gb', gpu_count: 8, training: { zero_stage: 3 } })).body.performance;
      check(await page.isVisible('#step-section'), 'no step breakdown');
      const parts = await page.$$eval('#step-table tbody tr:not(.total)', (trs) => trs.map((tr) => tr.dataset.part));
      const nonzero = Object.entries(expected.step_breakdown_s).filter(([, v]) => v > 0).map(([k]) => k);
      check(JSON.stringify(parts.sort()) === JSON.stringify(nonzero.sort()), `parts ${parts} vs ${nonzero}`);
      check(/the run \$/.test(await page.textContent('#cost-sub')), `no run cost: ${await page.textContent('#cost-sub')}`);
      await page.close();
    });

    await test('the planners read in Chinese: labels, headers and verdicts', async () => {
      const page = await open('?model=llama-3.1-8b&task=full&tokens=1e10&recommend=1&gpu=h100-sxm5-80gb', { lang: 'zh' });
      const heads = await page.$$eval('#options-table thead th', (ths) => ths.map((th) => th.textContent));
      check(heads.some((h) => /每步/.test(h)) && heads.some((h) => /整次训练费用/.test(h)), `headers: ${heads}`);
      check(/方案 1/.test(await page.textContent('#rec-step-title')), 'step title not in Chinese');
      await page.screenshot({ path: shotPath('planner-training-zh-desktop.png'), fullPage: true });
      await page.close();
      const load = await open('?model=llama-2-7b&gpu=h100-sxm5-80gb&gpu_count=2&requests_per_s=5&ttft_ms=500&tpot_ms=30', { lang: 'zh', viewport: PHONE });
      check(/满足 p90 目标|达不到 p90 目标/.test(await load.textContent('#load-verdict')), `verdict: ${await load.textContent('#load-verdict')}`);
      check(/每秒请求数/.test(await load.textContent('label[for="requests_per_s"]')), 'the rate field is not labelled in Chinese');
      await load.screenshot({ path: shotPath('planner-load-zh-phone.png'), fullPage: true });
      await load.close();
    });

    await test('the planners logged no errors', async () => {
      check(errors.length === 0, `page errors: ${errors.join(' | ')}`);
    });
  } finally {
    await browser.close();
    child.kill('SIGTERM');
  }
}
