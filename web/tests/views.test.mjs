// Browser tests of what a person sees: the form always says what the server computed, setups
// that do not fit show what would, errors sit at their field, and every view reads in both
// languages at 1440x900 and 390x844 (screenshots in web/test-results/).
import {
  api, check, launch, PHONE, readyOf, setField, settled, shotPath, startServer,
} from './lib.mjs';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SIZES = { desktop: { width: 1440, height: 900 }, phone: PHONE };

const filter = process.env.WEB_TEST_FILTER ? new RegExp(process.env.WEB_TEST_FILTER) : null;

export async function run(report) {
  const { child, base } = await startServer();
  const browser = await launch('en-US');
  const errors = [];
  const expectedLog = /Failed to load resource: the server responded with a status of (400|501)/;
  /** A fresh page at `query` (viewport and language optional), once its answer is drawn. */
  const open = async (query, { viewport, lang } = {}) => {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error' && !expectedLog.test(m.text())) errors.push(m.text()); });
    if (viewport) await page.setViewportSize(viewport);
    if (lang) await page.addInitScript((l) => localStorage.setItem('gpusizer.lang', l), lang);
    await page.goto(new URL(query, base).href);
    await settled(page);
    return page;
  };
  /** The scenario bodies the page sends to /api/v1/estimate (the batch sweep's left out). */
  const watchRequests = (page) => {
    const sent = [];
    page.on('request', (req) => {
      if (/api\/v1\/estimate/.test(req.url())) sent.push({ url: req.url(), headers: req.headers(), body: req.postDataJSON() });
    });
    return sent;
  };
  /** Every view of the page: its URL and, optionally, what to do there once it is drawn. */
  const VIEWS = [
    { name: 'estimate', query: '?model=llama-2-7b&gpu=h100-sxm5-80gb' },
    { name: 'not-fitting', query: '?model=llama-3.1-70b&gpu=h100-sxm5-80gb' },
    { name: 'none-fits', query: '?model=llama-3.1-70b&gpu=rtx-4090-24gb' },
    { name: 'training', query: '?model=llama-2-7b&task=lora&gpu=a100-sxm4-80gb&tokens=1e9' },
    { name: 'vision', query: '?model=yolov8m&task=cv-train&batch=64&gpu=a100-sxm4-80gb' },
    { name: 'recommend', query: '?model=llama-2-13b&recommend=1&gpu=a100-sxm4-80gb',
      then: async (page) => {
        await page.waitForFunction(() => !document.getElementById('your-gpu').hidden && !/…/.test(document.getElementById('your-gpu').textContent));
        await page.click('#options-table tbody tr:first-child button.why');
      } },
    { name: 'error-field', query: '?model=llama-2-7b&batch=-1' },
    { name: 'error-server', query: '?model=no-such-model-xyz' },
    { name: 'context-warning', query: '?model=llama-2-7b&seq_len=100000000' },
    { name: 'model-typo', query: '?model=lama-2-7b&gpu=h100-sxm5-80gb' },
    { name: 'full-tune', query: '?model=llama-2-7b&task=full&gpu=h100-sxm5-80gb&gpu_count=2&zero_stage=3' },
    // The planners: serving at a request rate within targets, and training layouts with their step.
    { name: 'serving-load', query: '?model=llama-2-7b&gpu=h100-sxm5-80gb&gpu_count=2&requests_per_s=5&ttft_ms=500&tpot_ms=30' },
    { name: 'serving-fleet', query: '?model=llama-3.1-70b&recommend=1&requests_per_s=20&prompt_len=1000&output_len=200&ttft_ms=1000&tpot_ms=50&rack_budget_watts=10000' },
    { name: 'training-layouts', query: '?model=llama-3.1-8b&task=full&tokens=1e10&recommend=1&gpu=h100-sxm5-80gb',
      then: async (page) => { await page.click('#options-table tbody tr[data-rank="2"] button.step'); } },
  ];
  const openView = async (view, options) => {
    const page = await open(view.query, options);
    if (view.then) await view.then(page);
    return page;
  };
  /** Visible text the page wrote (not inside lang="en", where the server's texts are) that reads as
   *  an English phrase: three or more Latin words in a row. Ids, units, formulas and names are
   *  single tokens or pairs ("H100 SXM5 80GB", "Grace Hopper") and pass. */
  const englishLeft = (page) => page.evaluate(() => {
    const phrase = /[A-Za-z]{3,}(?:[ ,;:]+[A-Za-z]{2,}){2,}/;
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('[lang="en"], script, style, [hidden]')) continue;
      if (!el.closest('option') && !el.checkVisibility()) continue;
      if (phrase.test(n.textContent)) found.push(n.textContent.trim());
    }
    for (const el of document.querySelectorAll('[aria-label], [placeholder], [title]')) {
      if (el.closest('[lang="en"], [hidden]')) continue;
      for (const a of ['aria-label', 'placeholder', 'title']) if (phrase.test(el.getAttribute(a) || '')) found.push(`${a}="${el.getAttribute(a)}"`);
    }
    return [...new Set(found)];
  });

  const test = async (name, fn) => {
    if (filter && !filter.test(name)) return;
    try { await fn(); report(name, null); } catch (e) { report(name, e); }
  };

  try {
    await test('QLoRA then full fine-tune: the form and the server agree on the weights', async () => {
      const page = await open('?model=llama-2-7b');
      const sent = watchRequests(page);
      await setField(page, 'task', 'qlora');
      let resolved = await page.textContent('#resolved');
      check(/weights nf4/.test(resolved), `QLoRA not computed on nf4: ${resolved}`);
      check(/nf4/.test(await page.$eval('#weights', (el) => el.selectedOptions[0].textContent)),
        'the weights select does not say the QLoRA default is nf4');
      await setField(page, 'task', 'full');
      resolved = await page.textContent('#resolved');
      const last = sent.filter((r) => r.body.batch === undefined || r.body.batch === 1).pop().body;
      check(last.task === 'full' && last.weights !== 'nf4', `full fine-tune sent with weights ${last.weights}`);
      check(/weights bf16/.test(resolved), `full fine-tune computed on: ${resolved}`);
      const shown = await page.$eval('#weights', (el) => el.selectedOptions[0].textContent);
      check(/bf16/.test(shown), `the form says ${shown}, the server computed bf16`);
      await setField(page, 'task', 'inference');
      check(/weights bf16/.test(await page.textContent('#resolved')), 'inference after QLoRA not on bf16');
      await page.close();
    });

    await test('a full fine-tune on 2 GPUs with DP left at 1 says it was computed with DP 2', async () => {
      const page = await open('?model=llama-2-7b&task=full&gpu=h100-sxm5-80gb&gpu_count=2&zero_stage=3');
      const resolved = await page.textContent('#resolved');
      check(/DP 2/.test(resolved), `the resolved layout is not shown: ${resolved}`);
      check((await page.inputValue('#dp')) === '1', 'the DP field no longer holds what was asked');
      await page.close();
    });

    await test('an alias in the URL (?gpu=h100) selects that GPU and keeps it in the URL', async () => {
      const page = await open('?gpu=h100');
      const value = await page.inputValue('#gpu');
      check(value === 'h100-sxm5-80gb', `GPU select holds "${value}"`);
      const inUrl = new URL(page.url()).searchParams.get('gpu');
      check(inUrl === 'h100-sxm5-80gb' || inUrl === 'h100', `URL gpu=${inUrl}`);
      check(/H100/.test(await page.textContent('#resolved')), 'the resolved GPU is not shown');
      await page.close();
    });

    await test('a model estimated under another name says so at the field', async () => {
      const page = await open('?model=meta-llama/Meta-Llama-3-70B&gpu=h100-sxm5-80gb');
      const expected = await api(base, 'api/v1/estimate', { model: 'meta-llama/Meta-Llama-3-70B', gpu: 'h100-sxm5-80gb' });
      const id = expected.body.scenario.model;
      check(await page.isVisible('#model-resolved'), 'no note that the model was estimated as another');
      check((await page.textContent('#model-resolved')).includes(id), `note does not name ${id}`);
      check((await page.textContent('#resolved')).includes(id), 'resolved line does not name the model');
      await page.close();
    });

    await test('models: near matches are links, a size is a model, an HF id outside the catalog says what works', async () => {
      // A typo: the server's near matches are buttons at the field; choosing one estimates it.
      let page = await open('?model=lama-2-7b&gpu=h100-sxm5-80gb');
      const links = await page.$$eval('#model-msg button.suggestion', (bs) => bs.map((b) => b.textContent));
      check(links.includes('llama-2-7b'), `no llama-2-7b link among ${JSON.stringify(links)}`);
      check(await page.isVisible('#estimate-view.stale') || (await page.textContent('#status')).length > 0, 'the error is not shown');
      const before = await readyOf(page);
      await page.click('#model-msg button.suggestion >> text=llama-2-7b');
      await settled(page, before);
      check((await page.inputValue('#model')) === 'llama-2-7b', 'the link did not fill the field');
      check(!(await page.$('#model-msg')), 'the error stayed after choosing a near match');
      check(/llama-2-7b/.test(await page.textContent('#resolved')), 'the chosen model is not the one computed');
      await page.close();
      // A size: estimated, and said to be a size.
      page = await open('?model=24B&gpu=h100-sxm5-80gb');
      const sized = await api(base, 'api/v1/estimate', { model: '24B', gpu: 'h100-sxm5-80gb' });
      check(sized.status === 200 && sized.body.scenario.model_origin === 'params', `24B: ${JSON.stringify(sized.body).slice(0, 200)}`);
      check(Number(await page.getAttribute('#total', 'data-value')) === sized.body.memory.total_bytes, 'the page and the API differ for 24B');
      check(/24B/.test(await page.textContent('#warnings')), 'the size assumption is not said');
      await page.close();
      // A Hugging Face id the catalog lacks, on a server that never downloads.
      page = await open('?model=Qwen/NotAModel-7B');
      const msg = await page.textContent('#model-msg');
      check(/config\.json/.test(msg) && /24B/.test(msg) && !/file paths/.test(msg), `model message: ${msg}`);
      await page.close();
      // The same in Chinese: the message at the field is the server's Chinese.
      page = await open('?model=Qwen/NotAModel-7B', { lang: 'zh' });
      const zh = await page.textContent('#model-msg');
      check(/不在目录中/.test(zh) && (await page.getAttribute('#model-msg', 'lang')) === 'zh-CN', `Chinese model message: ${zh}`);
      await page.evaluate(() => localStorage.setItem('gpusizer.lang', 'en'));  // the next views open in English
      await page.close();
    });

    await test('a setup that does not fit shows what would fit, and no speed, cost or chart', async () => {
      for (const query of ['?model=llama-3.1-70b&gpu=h100-sxm5-80gb', '?model=llama-3.1-70b&task=full&gpu=h100-sxm5-80gb']) {
        const page = await open(query);
        check((await page.getAttribute('#fit', 'data-value')) === 'false', `${query} fits; pick a bigger one`);
        for (const id of ['speed', 'cost']) {
          const text = await page.textContent(`#${id}`);
          check(!/\d/.test(text), `${query}: ${id} shows "${text}" for a setup that does not fit`);
        }
        check(!/\d/.test(await page.textContent('#speed-sub')), `${query}: speed details shown`);
        check(await page.isHidden('#perf-section'), `${query}: performance table shown`);
        check(await page.isHidden('#sweep-section'), `${query}: throughput chart shown`);
        check(await page.isHidden('#ownership-section'), `${query}: rent-or-buy verdict shown`);
        check(await page.isVisible('#changes-section'), `${query}: no changes offered`);
        check((await page.$$('#changes li')).length > 0, `${query}: empty changes list`);
        await page.close();
      }
    });

    await test("the context field shows the model's maximum and warns past it", async () => {
      const page = await open('?model=llama-2-7b');
      const models = (await api(base, 'api/v1/models')).body;
      const max = models.find((m) => m.id === 'llama-2-7b').architecture.max_position_embeddings;
      const shown = await page.textContent('#seq_len-max');
      check(shown.includes(max.toLocaleString('en-US')), `beside the context: "${shown}", the model's maximum is ${max}`);
      await setField(page, 'seq_len', 100000000);
      check(await page.isVisible('#seq_len-msg'), 'no message at the context field for 100,000,000 tokens');
      check((await page.getAttribute('#seq_len', 'aria-describedby')).includes('seq_len-msg'), 'message not tied to the field');
      check(/24,414×/.test(await page.textContent('#seq_len-msg')), `message: ${await page.textContent('#seq_len-msg')}`);
      await setField(page, 'model', 'llama-3.1-8b');
      const max8b = models.find((m) => m.id === 'llama-3.1-8b').architecture.max_position_embeddings;
      check((await page.textContent('#seq_len-max')).includes(max8b.toLocaleString('en-US')), 'maximum not updated for a new model');
      await page.close();
    });

    await test("the engine's limits reach the server and are checked there", async () => {
      for (const [lang, word] of [['en', 'max_num_seqs'], ['zh', 'max_num_seqs']]) {
        const page = await open('?model=llama-2-7b&engine=vllm&gpu=h100-sxm5-80gb&batch=96&max_num_seqs=64&max_model_len=4096', { lang });
        check((await page.inputValue('#max_num_seqs')) === '64', 'max_num_seqs not in its field');
        check(await page.isVisible('#max_model_len'), 'no max_model_len field for vLLM');
        // The server notes a batch above the engine's limit: it was sent.
        const warned = await page.textContent('#warnings');
        check(warned.includes(word) && warned.includes('96'), `warnings: ${warned}`);
        // A sequence longer than max_model_len is refused by the engine: marked at that field.
        await setField(page, 'seq_len', 8192);
        check((await page.getAttribute('#max_model_len', 'aria-invalid')) === 'true', 'max_model_len not marked');
        await page.screenshot({ path: shotPath(`engine-limits-${lang}-desktop.png`), fullPage: false });
        await page.close();
      }
      // Engines that preallocate nothing have no such settings: the fields are hidden. (English
      // again: the language chosen is kept for the pages that follow.)
      const page = await open('?model=llama-2-7b&engine=hf&gpu=h100-sxm5-80gb', { lang: 'en' });
      check(!(await page.isVisible('#max_num_seqs')), 'max_num_seqs shown for hf');
      await page.close();
    });

    await test("an engine version picks that release's rules, and an unknown one is marked at its field", async () => {
      // Chinese first: the language chosen is kept for the pages that follow, which expect English.
      for (const lang of ['zh', 'en']) {
        // vLLM 0.10 sizes its pool by the rules before 0.21's CUDA-graph and sampler changes:
        // the answer says which release it applied, and the pool differs from the newest one's.
        const page = await open('?model=llama-3.1-8b&engine=vllm&gpu=h100-sxm5-80gb&engine_version=0.10', { lang });
        check((await page.inputValue('#engine_version')) === '0.10', 'engine_version not in its field');
        check((await page.textContent('#resolved')).includes('vllm 0.10'), `resolved: ${await page.textContent('#resolved')}`);
        const old = await api(base, 'api/v1/estimate', { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm5-80gb', engine_version: '0.10' });
        const newest = await api(base, 'api/v1/estimate', { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm5-80gb' });
        check(old.body.scenario.engine_version === '0.10' && newest.body.scenario.engine_version !== '0.10', 'the server did not take the version');
        check(old.body.memory.kv_cache_bytes !== newest.body.memory.kv_cache_bytes, 'the same pool for two releases');
        await setField(page, 'engine_version', '0.3');
        check((await page.getAttribute('#engine_version', 'aria-invalid')) === 'true', 'engine_version not marked');
        check(/0\.21/.test(await page.textContent('#engine_version-msg')), `message: ${await page.textContent('#engine_version-msg')}`);
        await page.screenshot({ path: shotPath(`engine-version-${lang}-desktop.png`), fullPage: false });
        // Another engine starts from its own newest release.
        await setField(page, 'engine', 'trtllm');
        check((await page.inputValue('#engine_version')) === '', 'the vLLM version stayed for TensorRT-LLM');
        check(/trtllm \d/.test(await page.textContent('#resolved')), `resolved: ${await page.textContent('#resolved')}`);
        await page.close();
      }
    });

    await test("left empty, the pool's fraction is the release's default, and automatic shows the engine's fields", async () => {
      // Chinese first: the language chosen is kept for the pages that follow, which expect English.
      for (const lang of ['zh', 'en']) {
        // SGLang from 0.5.3 derives its fraction from the GPU's memory (0.83 on an H100 by its
        // server_args.py rule, docs/engines-notes.md): the page must not send a fraction of its own.
        const page = await open('?model=llama-3.1-8b&engine=sglang&gpu=h100-sxm5-80gb', { lang });
        check((await page.inputValue('#gpu_memory_utilization')) === '', 'a fraction filled in by the page');
        const api0 = await api(base, 'api/v1/estimate', { model: 'llama-3.1-8b', engine: 'sglang', gpu: 'h100-sxm5-80gb' });
        const derived = api0.body.scenario.gpu_memory_utilization;
        check(derived > 0.8 && derived < 0.86, `derived fraction ${derived}`);
        check((await page.getAttribute('#gpu_memory_utilization', 'placeholder')) === String(Math.round(derived * 1000) / 1000), 'placeholder is not the default applied');
        check((await page.textContent('#gpu_memory_utilization-help')).includes(String(Math.round(derived * 1000) / 1000)), 'no default named under the field');
        const kv = Number(await page.getAttribute('#memory-table tr[data-component=kv_cache] td', 'data-value'));
        check(kv === api0.body.memory.kv_cache_bytes, `page KV ${kv} vs API ${api0.body.memory.kv_cache_bytes}`);
        await page.screenshot({ path: shotPath(`utilization-default-${lang}-desktop.png`), fullPage: false });
        await page.close();
      }
      // Engine left on automatic: the server picks vLLM for a bf16 model on an H100, and the
      // page shows vLLM's fields once the answer names it.
      const auto = await open('?model=llama-3.1-8b&gpu=h100-sxm5-80gb', { lang: 'en' });
      const chosen = await api(base, 'api/v1/estimate', { model: 'llama-3.1-8b', gpu: 'h100-sxm5-80gb' });
      check(chosen.body.scenario.engine === 'vllm', `automatic engine ${chosen.body.scenario.engine}`);
      check(await auto.isVisible('#engine_version'), 'engine fields hidden for the automatic engine');
      check(await auto.isVisible('#gpu_memory_utilization'), 'utilization hidden for the automatic engine');
      await auto.close();
    });

    await test('a bad value is reported at its field, and the old answer is not left showing', async () => {
      const page = await open('?model=llama-2-7b&gpu=h100-sxm5-80gb');
      await setField(page, 'batch', -1);
      check((await page.getAttribute('#batch', 'aria-invalid')) === 'true', 'batch not aria-invalid');
      const described = (await page.getAttribute('#batch', 'aria-describedby')) || '';
      check(described.split(' ').includes('batch-msg'), `aria-describedby: ${described}`);
      check(await page.isVisible('#batch-msg'), 'no message under the batch field');
      const border = await page.$eval('#batch', (el) => getComputedStyle(el).borderTopColor);
      check(border === 'rgb(180, 35, 24)', `batch border ${border}`);
      check(!(await page.isVisible('#fit')), 'the previous "Fits" is still shown');
      check(/batch/i.test(await page.textContent('#status')), 'the top does not name the field');
      await page.screenshot({ path: shotPath('error-field-en-desktop.png'), fullPage: false });
      // Letters in a number field are reported, not silently emptied.
      const before = await readyOf(page);
      await page.fill('#batch', '');
      await page.type('#batch', 'abc');
      await settled(page, before);
      check((await page.inputValue('#batch')) === 'abc', `the field now holds "${await page.inputValue('#batch')}"`);
      check(/not a number/.test(await page.textContent('#batch-msg')), `message: ${await page.textContent('#batch-msg')}`);
      await setField(page, 'batch', 4);
      check((await page.getAttribute('#batch', 'aria-invalid')) === null, 'the mark stays after a fix');
      check(await page.isVisible('#fit'), 'no answer after the fix');
      // An error the server names (an unknown model) is put at that field too.
      await setField(page, 'model', 'no-such-model-xyz');
      check((await page.getAttribute('#model', 'aria-invalid')) === 'true', 'unknown model not marked at the field');
      check(/no-such-model-xyz/.test(await page.textContent('#model-msg')), 'server message not at the model field');
      await page.close();
    });

    await test('on a phone the answer or the error is in view after an edit', async () => {
      const page = await open('?model=llama-2-7b&gpu=h100-sxm5-80gb', { viewport: PHONE });
      const inView = (sel) => page.$eval(sel, (el) => {
        const r = el.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
      });
      await page.focus('#batch');
      await setField(page, 'batch', 4);
      check(await inView('#batch'), 'the edited field scrolled away');
      check(await inView('#summary'), 'the answer is not in view');
      check(/GiB/.test(await page.textContent('#summary')), `summary: ${await page.textContent('#summary')}`);
      await page.screenshot({ path: shotPath('phone-after-edit-en.png') });
      await setField(page, 'batch', -1);
      check(await inView('#summary'), 'the error is not in view');
      check(/batch/i.test(await page.textContent('#summary')), `summary: ${await page.textContent('#summary')}`);
      await page.screenshot({ path: shotPath('phone-error-en.png') });
      await page.close();
    });

    await test('recommend reads as a person reads it: names, layout, metric, reasons, your GPU, constraints', async () => {
      const page = await open('?model=llama-2-13b&recommend=1&gpu=a100-sxm4-80gb');
      await page.waitForSelector('#your-gpu:not([hidden])');
      await page.waitForFunction(() => !/Checking/.test(document.getElementById('your-gpu').textContent));
      const expected = await api(base, 'api/v1/recommend', { model: 'llama-2-13b' });
      const first = expected.body.options[0];
      const row = await page.$$eval('#options-table tbody tr:not(.why-row)', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
      check(row.length === expected.body.options.length, `${row.length} rows, API has ${expected.body.options.length}`);
      check(row[0][1].startsWith(first.gpu_name), `first row names "${row[0][1]}", not ${first.gpu_name}`);
      check(/GPU|TP/.test(row[0][3]) && /^\d+$/.test(row[0][4]), `no layout and replicas: ${row[0][3]} / ${row[0][4]}`);
      const heads = await page.$$eval('#options-table thead th', (ths) => ths.map((th) => th.textContent));
      check(heads.some((h) => /USD per million tokens/.test(h)) && !heads.some((h) => /Score/.test(h)), `headers: ${heads}`);
      check(/ranked by USD per million tokens \(lower is better\)/.test(await page.textContent('#recommend-note')), 'ranking metric not explained');
      // A GPU name, not an id broken over lines: at most two lines, broken at spaces.
      const lines = await page.$eval('#options-table tbody tr:first-child td.gpu-name', (td) => {
        const range = document.createRange();
        range.selectNodeContents(td.firstChild);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
      check(lines <= 2, `GPU name over ${lines} lines`);
      await page.click('#options-table tbody tr:first-child button.why');
      check(await page.isVisible('#options-table tbody tr.why-row:not([hidden]) li'), 'reasons not shown on expand');
      check((await page.textContent('#options-table tbody tr.why-row:not([hidden])')).includes(first.reasons[0]), 'not the reasons');
      const mine = await page.textContent('#your-gpu');
      check(/A100 SXM4 80GB/.test(mine) && /(option \d+|rejected|not among)/.test(mine), `your GPU: ${mine}`);
      check(await page.isVisible('#allow_quantization') && await page.isVisible('#max_gpus') && await page.isVisible('#objective'), 'constraints missing');
      const sent = [];
      page.on('request', (req) => { if (/recommend/.test(req.url())) sent.push(req.postDataJSON()); });
      await setField(page, 'allow_quantization', true);
      await setField(page, 'max_gpus', 2);
      check(sent.some((b) => b.allow_quantization === true && b.max_gpus === 2), `requests: ${JSON.stringify(sent)}`);
      await page.screenshot({ path: shotPath('recommend-expanded-en-desktop.png'), fullPage: true });
      await page.close();
      // The user's GPU outside the list is placed with its reason.
      const small = await open('?model=llama-3.1-70b&recommend=1&gpu=rtx-4090-24gb&max_gpus=1');
      await small.waitForFunction(() => !/Checking/.test(document.getElementById('your-gpu').textContent));
      check(/rejected/.test(await small.textContent('#your-gpu')), `4090 for 70B: ${await small.textContent('#your-gpu')}`);
      await small.close();
      // On a phone: cards, no sideways scrolling.
      const phone = await open('?model=llama-2-13b&recommend=1', { viewport: PHONE });
      const width = await phone.$eval('#options-table', (el) => el.getBoundingClientRect().width);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(width <= PHONE.width && overflow <= 1, `options ${width}px wide, page overflows by ${overflow}px`);
      check((await phone.$eval('#options-table tbody tr:first-child td', (td) => getComputedStyle(td).display)) === 'flex', 'not cards');
      await phone.close();
    });

    await test('a split pre-train without an engine is planned under the parallel engines, each row naming its own', async () => {
      const page = await open('?model=qwen3-235b-a22b&task=pretrain&recommend=1');
      await page.waitForSelector('#options-table tbody tr[data-rank="1"]', { timeout: 20000 });
      const expected = (await api(base, 'api/v1/recommend', { model: 'qwen3-235b-a22b', task: 'pretrain' })).body;
      const engine = expected.options[0].estimate.scenario.engine;
      check(engine !== 'hf', `the best option runs on ${engine}: the naive pipeline won`);
      const shown = await page.$$eval('#options-table tbody tr[data-rank="1"] td', (tds) => tds.map((td) => td.textContent.trim()));
      const same = await page.textContent('#options-same');
      check(shown.includes(engine) || same.includes(`Engine: ${engine}`), `row 1 does not name ${engine}: ${shown.join(' | ')} / ${same}`);
      await page.screenshot({ path: shotPath('recommend-engine-en-desktop.png'), fullPage: false });
      // Use: the form takes the layout with its engine (a TP or EP layout is one only it runs),
      // and the estimate it asks for is the option's.
      const sent = [];
      page.on('request', (r) => { if (r.url().includes('api/v1/estimate')) sent.push(r.postDataJSON()); });
      await page.click('#options-table tbody tr[data-rank="1"] button.use');
      await settled(page);
      check((await page.inputValue('#engine')) === engine, `Use left the engine at ${await page.inputValue('#engine')}`);
      const last = sent[sent.length - 1];
      check(last && last.engine === engine && last.parallel?.tp === expected.options[0].parallel.tp, `estimate sent: ${JSON.stringify(last)}`);
      check((await page.getAttribute('#fit', 'data-value')) === 'true', 'the option does not fit once used');
      await page.close();
    });

    await test('a split pre-train on hf, named, shows the note naming megatron', async () => {
      const page = await open('?model=qwen3-235b-a22b&task=pretrain&engine=hf&recommend=1');
      await page.waitForSelector('#recommend-notes:not([hidden]) li', { timeout: 20000 });
      const expected = await api(base, 'api/v1/recommend', { model: 'qwen3-235b-a22b', task: 'pretrain', engine: 'hf' });
      const note = await page.textContent('#recommend-notes li');
      check(expected.body.notes && note === expected.body.notes[0], `note "${note}" is not the API's`);
      check(/"engine": "megatron"/.test(note) && /MFU \d+%/.test(note), `note: ${note}`);
      await page.screenshot({ path: shotPath('recommend-engine-note-en-desktop.png'), fullPage: false });
      await page.close();
    });

    await test('no contradictions: fit and free memory, break-even past 100%, pays back and verdict', async () => {
      // vLLM takes 90% of the GPU; a 100,000-token sequence leaves its KV pool too small.
      let page = await open('?model=llama-2-7b&engine=vllm&gpu=rtx-4090-24gb&seq_len=100000');
      check((await page.getAttribute('#fit', 'data-value')) === 'false', 'this scenario fits now; pick another');
      const sub = await page.textContent('#fit-sub');
      check(!/free/.test(sub) && /KV pool/.test(sub), `"Does not fit" beside: ${sub}`);
      await page.close();
      // A GPU whose break-even utilization is above 100% at the shipped prices (looked up: it
      // moves with the prices).
      let never = '';
      for (const g of (await api(base, 'api/v1/gpus', undefined)).body) {
        const e = await api(base, 'api/v1/estimate', { model: 'llama-2-7b', gpu: g.id });
        if ((e.body.cost?.ownership?.break_even?.utilization ?? 0) > 1) { never = g.id; break; }
      }
      check(never !== '', 'no GPU whose break-even is above 100%');
      page = await open(`?model=llama-2-7b&gpu=${never}`);
      const be = await page.textContent('#own-break-even');
      check(!/\d{3} %/.test(be) && /Never/.test(be), `break-even shown as ${be}`);
      check(!/pays back in/.test(await page.textContent('#own-break-even-sub')), 'says it pays back');
      await page.close();
      // RTX 4090: no cloud price; the verdict is "buy", so the page must not say buying does not pay back.
      page = await open('?model=llama-2-7b&gpu=rtx-4090-24gb');
      const verdict = await page.textContent('#own-verdict');
      const beSub = await page.textContent('#own-break-even-sub');
      if (/^buy/.test(verdict)) check(!/does not pay back/.test(beSub), `"${beSub}" beside the verdict "${verdict}"`);
      check(/no cloud price/.test(beSub), `break-even: ${beSub}`);
      await page.close();
    });

    await test('Apply and Use can be undone with Back and keep the keyboard focus', async () => {
      const page = await open('?model=llama-3.1-70b&task=qlora&weights=nf4');
      check((await page.getAttribute('#fit', 'data-value')) === 'false', 'the QLoRA 70B fits; pick a bigger one');
      const before = page.url();
      const depth = await page.evaluate(() => history.length);
      let ready = await readyOf(page);
      await page.focus('#changes li.ok button.apply');
      await page.keyboard.press('Enter');
      ready = await settled(page, ready);
      check((await page.getAttribute('#fit', 'data-value')) === 'true', 'Apply did not make it fit');
      check((await page.evaluate(() => history.length)) === depth + 1, 'Apply did not add a history entry');
      const focused = await page.evaluate(() => document.activeElement.id || document.activeElement.tagName);
      check(focused === 'results', `focus after Apply: ${focused}`);
      await page.goBack();
      ready = await settled(page, ready);
      check(page.url() === before, `Back went to ${page.url()}`);
      check((await page.getAttribute('#fit', 'data-value')) === 'false', 'Back did not undo the Apply');
      // Use from the recommendation, undone by Back.
      await page.check('#recommend');
      ready = await settled(page, ready);
      await page.click('#options-table tbody tr:first-child button.use');
      ready = await settled(page, ready);
      check(!(await page.isChecked('#recommend')), 'Use did not leave recommend mode');
      check((await page.evaluate(() => document.activeElement.id)) === 'results', 'focus after Use');
      await page.goBack();
      await settled(page, ready);
      check(await page.isChecked('#recommend'), 'Back did not return to the recommendation');
      await page.close();
    });

    await test('when no change is enough, the page says so and offers the advisor', async () => {
      // 405B on a 24 GB card: not even 4-bit weights over TP8 (8 x 24 GB) hold it.
      const page = await open('?model=llama-3.1-405b&gpu=rtx-4090-24gb');
      const api405 = await api(base, 'api/v1/estimate', { model: 'llama-3.1-405b', gpu: 'rtx-4090-24gb' });
      check(api405.body.changes.length > 0 && !api405.body.changes.some((c) => c.fits), 'a change fits now; pick a bigger model');
      check(await page.isVisible('#changes-none'), 'no word that no single change is enough');
      const ready = await readyOf(page);
      await page.click('#changes-recommend');
      await settled(page, ready);
      check(await page.isChecked('#recommend') && await page.isVisible('#options-table'), 'the advisor was not offered');
      await page.close();
    });

    await test('the throughput chart is scaled to the batches that fit', async () => {
      const page = await open('?model=llama-2-7b&gpu=a10-24gb');
      await page.waitForSelector('#sweep-section:not([hidden]) canvas');
      const scenario = { model: 'llama-2-7b', gpu: 'a10-24gb' };
      const answers = [];
      for (const b of [1, 2, 4, 8, 16, 32, 64, 128, 256]) answers.push({ b, e: (await api(base, 'api/v1/estimate', { ...scenario, batch: b })).body });
      const fit = answers.filter((x) => x.e.memory.fits);
      check(fit.length > 1 && fit.length < answers.length, `${fit.length} of ${answers.length} batches fit; pick another GPU`);
      const top = Math.max(...fit.map((x) => x.e.performance.decode_tokens_per_s));
      const yMax = Number(await page.getAttribute('#sweep-chart', 'data-y-max'));
      // Chart.js rounds the axis up to a nice step: at most one step (<= 50%) above the data.
      check(yMax >= top && yMax <= top * 1.5, `y axis up to ${yMax}, the batches that fit reach ${top}`);
      check((await page.getAttribute('#sweep-chart', 'data-batches')) === fit.map((x) => x.b).join(','), 'drawn batches');
      check((await page.textContent('#sweep-note')).includes(String(answers[answers.length - 1].b)), 'left-out batches not named');
      await page.close();
    });

    await test('vision training shows images/s, the model size, an image size field and no LLM fields', async () => {
      const page = await open('?model=yolov8m&task=cv-train&batch=64&gpu=a100-sxm4-80gb');
      const sent = watchRequests(page);
      const speed = await page.textContent('#speed');
      check(/images\/s/.test(speed) && !/tokens/.test(speed), `speed: ${speed}`);
      const sub = await page.textContent('#total-sub');
      check(/25\.9 M parameters/.test(sub), `parameters: ${sub}`);  // 25,902,640 = 25.9 M
      check(await page.isVisible('#image_size'), 'no image size field');
      check((await page.getAttribute('#image_size', 'placeholder')) === '640', 'the model resolution is not the placeholder');
      for (const id of ['seq_len', 'kv_cache', 'engine', 'weights', 'lora_rank', 'tokens', 'flash_attention', 'tp', 'pp', 'output_len']) {
        check(!(await page.isVisible(`#${id}`)), `LLM-only field ${id} shown for vision training`);
      }
      const before = Number(await page.getAttribute('#total', 'data-value'));
      await setField(page, 'image_size', 1280);
      const body = sent[sent.length - 1].body;
      check(body.image_size === 1280 && body.seq_len === undefined && body.kv_cache === undefined, `sent ${JSON.stringify(body)}`);
      const expected = await api(base, 'api/v1/estimate', body);
      const after = Number(await page.getAttribute('#total', 'data-value'));
      check(after === expected.body.memory.total_bytes && after > before, `1280 px: ${after}, API ${expected.body.memory.total_bytes}, 640 px ${before}`);
      await page.screenshot({ path: shotPath('cv-train-en-desktop.png'), fullPage: true });
      await page.close();
    });

    await test('in Chinese every text the page writes is Chinese, and the server is asked for Chinese', async () => {
      const problems = [];
      for (const view of VIEWS) {
        const page = await browser.context.newPage();
        page.on('pageerror', (e) => errors.push(String(e)));
        const asked = [];
        page.on('request', (req) => { if (/api\/v1\//.test(req.url())) asked.push({ url: req.url(), lang: req.headers()['accept-language'] || '' }); });
        await page.addInitScript(() => localStorage.setItem('gpusizer.lang', 'zh'));
        await page.goto(new URL(view.query, base).href);
        await settled(page);
        if (view.then) await view.then(page);
        check((await page.evaluate(() => document.documentElement.lang)) === 'zh-CN', `${view.name}: not in Chinese`);
        const left = await englishLeft(page);
        if (left.length) problems.push(`${view.name}: ${left.join(' | ')}`);
        const notAsked = asked.filter((r) => !/[?&]lang=zh\b/.test(r.url) || !/^zh/.test(r.lang));
        if (notAsked.length) problems.push(`${view.name}: asked without zh: ${notAsked.map((r) => r.url).join(', ')}`);
        await page.close();
      }
      check(problems.length === 0, problems.join('\n'));
    });

    await test('axe-core finds no violation on any view, in both languages and sizes (and each is pictured)', async () => {
      const problems = [];
      for (const lang of ['en', 'zh']) {
        for (const [size, viewport] of Object.entries(SIZES)) {
          for (const view of VIEWS) {
            const page = await openView(view, { viewport, lang });
            // A picture of the view for a reviewer (web/test-results/VIEW-LANG-SIZE.png).
            await page.screenshot({ path: shotPath(`${view.name}-${lang}-${size}.png`), fullPage: true });
            // On a phone the summary bar overlays the form while it scrolls (by design; a focused
            // field scrolls clear of it): check the page where the bar sits in its own place.
            if (size === 'phone') await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
            await page.addScriptTag({ content: axeSource });
            const result = await page.evaluate(() => window.axe.run(document, {
              runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
            }));
            for (const v of result.violations) {
              problems.push(`${view.name} ${lang} ${size}: ${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(', ')}`);
            }
            await page.close();
          }
        }
      }
      check(problems.length === 0, problems.join('\n'));
    });

    await test('screenshots of every view in both languages at 1440x900 and 390x844 are written', async () => {
      const { statSync } = await import('node:fs');
      const missing = [];
      for (const lang of ['en', 'zh']) {
        for (const size of Object.keys(SIZES)) {
          for (const view of VIEWS) {
            const file = shotPath(`${view.name}-${lang}-${size}.png`);
            let bytes = 0;
            try { bytes = statSync(file).size; } catch { /* missing */ }
            if (bytes < 10000) missing.push(`${file} (${bytes} B)`);
          }
        }
      }
      check(missing.length === 0, `missing or empty: ${missing.join(', ')}`);
    });

    await test('the views logged no errors', async () => {
      check(errors.length === 0, `page errors: ${errors.join(' | ')}`);
    });
  } finally {
    await browser.close();
    child.kill('SIGTERM');
  }
}

