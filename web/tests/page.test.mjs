// Browser tests of the page served by `gpusizer serve`, driven through Debian's chromium with
// playwright-core. Only 127.0.0.1 is ever contacted. Screenshots go to web/test-results/.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const results = join(repo, 'web', 'test-results');
const bin = process.env.GPUSIZER_BIN || join(repo, 'build', 'gpusizer');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

/** Starts `gpusizer serve --port 0` and resolves with its base URL once it prints its address. */
function startServer() {
  return new Promise((ok, fail) => {
    const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => fail(new Error(`server did not start: ${out}`)), 10000);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) { clearTimeout(timer); ok({ child, base: `http://127.0.0.1:${m[1]}/` }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => { out += c; });
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`server exited ${code}: ${out}`)); });
    child.on('error', fail);
  });
}

async function api(base, path, body) {
  const res = await fetch(new URL(path, base), body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

function check(cond, message) { if (!cond) throw new Error(message); }

/** Waits until the page has rendered the answer to its latest request. */
async function settled(page, previous) {
  await page.waitForFunction((prev) => {
    const ready = document.body.dataset.ready;
    return ready && ready !== prev && !document.body.classList.contains('busy');
  }, previous ?? null, { timeout: 15000 });
  await page.waitForTimeout(100);
  return page.evaluate(() => document.body.dataset.ready);
}

/** Changes a field the way a user does, then waits for the new result. */
async function setField(page, id, value) {
  const before = await page.evaluate(() => document.body.dataset.ready);
  const tag = await page.$eval(`#${id}`, (el) => el.tagName);
  if (tag === 'SELECT') await page.selectOption(`#${id}`, value);
  else await page.fill(`#${id}`, String(value));
  return settled(page, before);
}

export async function run(report) {
  mkdirSync(results, { recursive: true });
  const { child, base } = await startServer();
  const profile = mkdtempSync(join(tmpdir(), 'gpusizer-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-proxy-server'],
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
  });
  const foreign = [];
  context.on('request', (req) => { if (!req.url().startsWith(base) && !req.url().startsWith('data:')) foreign.push(req.url()); });
  const page = context.pages()[0] || await context.newPage();
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  // Answers of 400 (the bad-name test) and 501 (no advisor) are expected; Chromium logs them.
  const expectedLog = /Failed to load resource: the server responded with a status of (400|501)/;
  page.on('console', (m) => { if (m.type() === 'error' && !expectedLog.test(m.text())) consoleErrors.push(m.text()); });

  const test = async (name, fn) => {
    try { await fn(); report(name, null); } catch (e) { report(name, e); }
  };

  try {
    await test('page loads and shows the API numbers for the default scenario', async () => {
      await page.goto(base);
      await settled(page);
      const shown = Number(await page.getAttribute('#total', 'data-value'));
      const expected = await api(base, 'api/v1/estimate', {
        model: 'llama-2-7b', task: 'inference', weights: 'bf16', kv_cache: 'bf16',
        batch: 1, seq_len: 2048, output_len: 512, gpu: 'a100-sxm4-80gb',
      });
      check(expected.status === 200, `API answered ${expected.status}`);
      check(shown === expected.body.memory.total_bytes, `page shows ${shown}, API says ${expected.body.memory.total_bytes}`);
      const text = await page.textContent('#total');
      check(/GiB/.test(text), `total shown without GiB: ${text}`);
      const rows = await page.$$eval('#memory-table tbody tr', (trs) => trs.map((tr) => tr.dataset.component).filter(Boolean));
      check(rows.includes('weights') && rows.includes('kv_cache'), `memory rows: ${rows}`);
      const weights = Number(await page.getAttribute('#memory-table tr[data-component=weights] td', 'data-value'));
      check(weights === expected.body.memory.weights_bytes, `weights ${weights} vs ${expected.body.memory.weights_bytes}`);
      // The batch sweep is drawn when the estimate has performance figures (a speed model).
      if (expected.body.performance && expected.body.performance.decode_tokens_per_s !== undefined) {
        await page.waitForSelector('#sweep-section:not([hidden]) canvas');
      } else {
        check(await page.isHidden('#sweep-section'), 'sweep shown without performance figures');
      }
      await page.screenshot({ path: join(results, 'default.png'), fullPage: true });
    });

    let sharedUrl = '';
    await test('filling the form updates the numbers and the URL', async () => {
      await setField(page, 'model', 'llama-2-13b');
      await setField(page, 'batch', 8);
      await setField(page, 'seq_len', 4096);
      await setField(page, 'gpu', 'h100-sxm5-80gb');
      await setField(page, 'weights', 'int8');
      const url = new URL(page.url());
      check(url.searchParams.get('batch') === '8' && url.searchParams.get('gpu') === 'h100-sxm5-80gb', `URL ${url}`);
      sharedUrl = page.url();
      const expected = await api(base, 'api/v1/estimate', {
        model: 'llama-2-13b', task: 'inference', weights: 'int8', kv_cache: 'bf16',
        batch: 8, seq_len: 4096, output_len: 512, gpu: 'h100-sxm5-80gb',
      });
      const shown = Number(await page.getAttribute('#total', 'data-value'));
      check(shown === expected.body.memory.total_bytes, `page ${shown} vs API ${expected.body.memory.total_bytes}`);
      const fit = await page.getAttribute('#fit', 'data-value');
      check(fit === String(expected.body.memory.fits), `fit ${fit} vs ${expected.body.memory.fits}`);
      await page.screenshot({ path: join(results, 'filled.png'), fullPage: true });
    });

    await test('a bad model name shows the server message', async () => {
      await setField(page, 'model', 'no-such-model-xyz');
      const status = await page.textContent('#status');
      check(/no-such-model-xyz/.test(status), `status: ${status}`);
      await setField(page, 'model', 'llama-2-13b');
      check((await page.textContent('#status')).trim() === '', 'error stays after a fix');
    });

    await test('a pasted config.json is sent as {"hf_config": ...}', async () => {
      const config = JSON.parse(readFileSync(join(repo, 'tests', 'fixtures', 'hf_configs', 'qwen2.5-7b.json'), 'utf8'));
      await page.click('#hf-details summary');
      await setField(page, 'hf_config', JSON.stringify(config, null, 1));
      const expected = await api(base, 'api/v1/estimate', {
        model: { hf_config: config }, task: 'inference', weights: 'int8', kv_cache: 'bf16',
        batch: 8, seq_len: 4096, output_len: 512, gpu: 'h100-sxm5-80gb',
      });
      check(expected.status === 200, `API answered ${expected.status}: ${JSON.stringify(expected.body)}`);
      const shown = Number(await page.getAttribute('#total', 'data-value'));
      check(shown === expected.body.memory.total_bytes, `page ${shown} vs API ${expected.body.memory.total_bytes}`);
      await setField(page, 'hf_config', '{not json');
      check(/config\.json/.test(await page.textContent('#status')), 'no message for a bad config');
      await setField(page, 'hf_config', '');
    });

    await test('training options appear for training tasks and give the API numbers', async () => {
      await setField(page, 'task', 'lora');
      check(await page.isVisible('#optimizer'), 'optimizer hidden for lora');
      check(await page.isVisible('#lora_rank'), 'LoRA rank hidden for lora');
      check(!(await page.isVisible('#output_len')), 'output length visible for training');
      await setField(page, 'lora_rank', 16);
      const scenario = {
        model: 'llama-2-13b', task: 'lora', weights: 'int8', kv_cache: 'bf16', batch: 8, seq_len: 4096,
        training: { optimizer: 'adamw', mixed_precision: 'bf16', gradient_checkpointing: false, flash_attention: true,
          zero_stage: 0, grad_accum: 1, lora_rank: 16, lora_targets: 'all-linear' },
        gpu: 'h100-sxm5-80gb',
      };
      const expected = await api(base, 'api/v1/estimate', scenario);
      if (expected.status === 200) {
        const shown = Number(await page.getAttribute('#total', 'data-value'));
        check(shown === expected.body.memory.total_bytes, `page ${shown} vs API ${expected.body.memory.total_bytes}`);
      } else {
        const status = await page.textContent('#status');
        check(status.includes(expected.body.error.message), `status ${status} vs ${expected.body.error.message}`);
      }
      await page.screenshot({ path: join(results, 'training.png'), fullPage: true });
      await setField(page, 'task', 'inference');
    });

    /** A fresh page at `query`, its errors counted with the main page's. */
    const openAt = async (query) => {
      const other = await context.newPage();
      other.on('pageerror', (e) => consoleErrors.push(String(e)));
      other.on('console', (m) => { if (m.type() === 'error' && !expectedLog.test(m.text())) consoleErrors.push(m.text()); });
      await other.goto(new URL(query, base).href);
      await settled(other);
      return other;
    };
    const qloraQuery = '?model=llama-3.1-70b&task=qlora&weights=nf4';

    await test('a scenario that does not fit lists what to change, and Apply makes it fit', async () => {
      const other = await openAt(qloraQuery);
      check((await other.getAttribute('#fit', 'data-value')) === 'false', 'the 70B QLoRA on one A100 fits; pick a bigger scenario');
      check(await other.isVisible('#changes-section'), 'changes panel hidden');
      const expected = await api(base, 'api/v1/estimate', {
        model: 'llama-3.1-70b', task: 'qlora', weights: 'nf4', kv_cache: 'bf16', batch: 1, seq_len: 2048,
        training: { optimizer: 'adamw', mixed_precision: 'bf16', gradient_checkpointing: false, flash_attention: true,
          zero_stage: 0, grad_accum: 1, lora_rank: 8, lora_targets: 'all-linear' },
        gpu: 'a100-sxm4-80gb',
      });
      const changes = expected.body.changes || [];
      const rows = await other.$$('#changes li');
      check(rows.length > 0 && rows.length === changes.length, `${rows.length} rows, API has ${changes.length} changes`);
      const first = changes.findIndex((c) => c.fits);
      check(first >= 0, 'no change fits');
      const row = `#changes li:nth-child(${first + 1})`;
      check((await other.getAttribute(row, 'data-fits')) === 'true', 'first fitting row not marked as fitting');
      const text = await other.textContent(row);
      check(text.includes(changes[first].change) && /GiB/.test(text), `row text: ${text}`);
      if (changes[first].speed_factor !== undefined) check(/×\d/.test(text), `no speed factor: ${text}`);
      await other.screenshot({ path: join(results, 'changes.png'), fullPage: true });
      const before = await other.evaluate(() => document.body.dataset.ready);
      await other.click(`${row} button.apply`);
      await settled(other, before);
      check((await other.getAttribute('#fit', 'data-value')) === 'true', 'still does not fit after Apply');
      check(await other.isHidden('#changes-section'), 'changes panel shown for a fitting scenario');
      // The form and the URL carry the change, as if the user had made it.
      const url = new URL(other.url());
      for (const [key, value] of Object.entries(changes[first].patch.training || {})) {
        const shown = key === 'gradient_checkpointing' && value === true ? 'full' : String(value);
        check((await other.inputValue(`#${key}`)) === shown, `${key} not set in the form`);
        check(url.searchParams.get(key) === shown, `${key} not in the URL ${url}`);
      }
      await other.close();
    });

    await test('patch keys without a form control still reach the server from the URL state', async () => {
      const other = await context.newPage();
      other.on('pageerror', (e) => consoleErrors.push(String(e)));
      const sent = [];
      other.on('request', (req) => { if (/api\/v1\/estimate(\?|$)/.test(req.url())) sent.push(req.postDataJSON()); });
      const extra = JSON.stringify({ training: { global_batch: 16 } });
      await other.goto(new URL(`?model=llama-2-7b&task=lora&extra=${encodeURIComponent(extra)}`, base).href);
      await settled(other);
      const body = sent[sent.length - 1];
      check(body && body.training && body.training.global_batch === 16 && body.training.optimizer === 'adamw',
        `request body: ${JSON.stringify(body)}`);
      check((await other.textContent('#status')).trim() === '', `error: ${await other.textContent('#status')}`);
      await other.close();
    });

    await test('a priced GPU shows rent or buy with the break-even figures', async () => {
      const other = await openAt('?model=llama-2-7b&gpu=h100-sxm5-80gb');
      const expected = await api(base, 'api/v1/estimate', {
        model: 'llama-2-7b', task: 'inference', weights: 'bf16', kv_cache: 'bf16',
        batch: 1, seq_len: 2048, output_len: 512, gpu: 'h100-sxm5-80gb',
      });
      const own = expected.body.cost && expected.body.cost.ownership;
      check(own && own.break_even && own.break_even.utilization !== undefined, 'the API gives no break-even for an H100');
      check(await other.isVisible('#ownership-section'), 'rent-or-buy panel hidden');
      check(Number(await other.getAttribute('#own-break-even', 'data-value')) === own.break_even.utilization, 'break-even differs from the API');
      check(/%/.test(await other.textContent('#own-break-even')), 'break-even not shown as %');
      check(Number(await other.getAttribute('#own-cloud', 'data-value')) === own.cloud.usd_per_hour, 'cloud $/h differs from the API');
      const prem = await other.textContent('#own-onprem-sub');
      check(/CN¥|¥/.test(prem) && /\$/.test(prem), `on-prem without USD and CNY: ${prem}`);
      if (own.break_even.months !== undefined) check(/month/.test(await other.textContent('#own-break-even-sub')), 'no months');
      check((await other.textContent('#own-verdict')) === own.break_even.verdict, 'verdict differs');
      check((await other.$$('#own-basis li')).length === own.basis.length, 'basis strings missing');
      check(await other.isHidden('#changes-section'), 'changes panel shown for a fitting scenario');
      await other.screenshot({ path: join(results, 'ownership.png'), fullPage: true });
      await other.close();
    });

    await test('the new panels are translated into Chinese', async () => {
      const other = await openAt(`${qloraQuery}&gpu=a100-sxm4-80gb`);
      await other.selectOption('#lang', 'zh');
      await other.waitForFunction(() => document.documentElement.lang === 'zh-CN');
      check((await other.textContent('#changes-title')) === '怎样改才能装下', 'changes title not translated');
      check((await other.textContent('#ownership-title')) === '租用还是购买', 'rent-or-buy title not translated');
      check((await other.textContent('#changes li button.apply')) === '应用', 'Apply not translated');
      check(/装/.test(await other.textContent('#changes li .fit-word')), 'fit mark not translated');
      // The server's texts too (contract v2, "Language"): the changes and their costs come back in
      // Chinese once the page asks again in Chinese.
      await other.waitForFunction(() => /[\u4e00-\u9fff]/.test((document.querySelector('#changes li strong') || {}).textContent || ''), null, { timeout: 20000 });
      const change = await other.textContent('#changes li strong');
      check((await other.getAttribute('#changes li strong', 'lang')) === 'zh-CN', `change "${change}" not marked Chinese`);
      await other.screenshot({ path: join(results, 'chinese-panels.png'), fullPage: true });
      await other.selectOption('#lang', 'en');
      await other.close();
    });

    await test('switching to Chinese translates the page', async () => {
      await page.selectOption('#lang', 'zh');
      await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
      check((await page.textContent('#results-title')) === '结果', 'results title not translated');
      check((await page.textContent('label[for=batch]')).includes('批'), 'batch label not translated');
      const fit = await page.textContent('#fit');
      check(/装/.test(fit), `fit not translated: ${fit}`);
      await page.screenshot({ path: join(results, 'chinese.png'), fullPage: true });
      await page.selectOption('#lang', 'en');
    });

    await test('a shared link opens the same result', async () => {
      const other = await context.newPage();
      await other.goto(sharedUrl);
      await settled(other);
      check((await other.inputValue('#batch')) === '8', 'batch not restored');
      check((await other.inputValue('#gpu')) === 'h100-sxm5-80gb', 'gpu not restored');
      check((await other.inputValue('#weights')) === 'int8', 'weights not restored');
      const expected = await api(base, 'api/v1/estimate', {
        model: 'llama-2-13b', task: 'inference', weights: 'int8', kv_cache: 'bf16',
        batch: 8, seq_len: 4096, output_len: 512, gpu: 'h100-sxm5-80gb',
      });
      const shown = Number(await other.getAttribute('#total', 'data-value'));
      check(shown === expected.body.memory.total_bytes, `shared link shows ${shown}, API ${expected.body.memory.total_bytes}`);
      await other.close();
    });

    await test('recommend answers with options or says the advisor is missing', async () => {
      const before = await page.evaluate(() => document.body.dataset.ready);
      await page.check('#recommend');
      await settled(page, before);
      check(!(await page.isVisible('#gpu_count')), 'GPU count visible in recommend mode');
      const expected = await api(base, 'api/v1/recommend', { model: 'llama-2-13b' });
      if (expected.status === 501) {
        const note = await page.textContent('#recommend-note');
        check(/advisor/i.test(note), `no advisor note: ${note}`);
      } else {
        const rows = await page.$$('#options-table tbody tr');
        check(rows.length > 0, 'no option rows');
        await page.click('#options-table thead th:nth-child(8) button');
      }
      await page.screenshot({ path: join(results, 'recommend.png'), fullPage: true });
      const again = await page.evaluate(() => document.body.dataset.ready);
      await page.uncheck('#recommend');
      await settled(page, again);
    });

    await test('every control has a label and the keyboard reaches the form', async () => {
      const unlabeled = await page.$$eval('input, select, textarea', (els) =>
        els.filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')).map((el) => el.id));
      check(unlabeled.length === 0, `unlabeled: ${unlabeled}`);
      const fresh = await context.newPage();
      await fresh.goto(sharedUrl);
      await settled(fresh);
      await fresh.keyboard.press('Tab');
      const first = await fresh.evaluate(() => document.activeElement.className);
      check(first === 'skip', `first tab stop: ${first}`);
      const stops = [];
      for (let i = 0; i < 6 && stops[stops.length - 1] !== 'model'; ++i) {
        await fresh.keyboard.press('Tab');
        stops.push(await fresh.evaluate(() => document.activeElement.id || document.activeElement.tagName));
      }
      check(stops[stops.length - 1] === 'model', `Tab went ${stops.join(' -> ')}, never to the model field`);
      // Typing a model and Tab-ing away recomputes, as with the mouse.
      const before = await fresh.evaluate(() => document.body.dataset.ready);
      await fresh.keyboard.press('Control+A');
      await fresh.keyboard.type('llama-2-7b');
      await settled(fresh, before);
      check((await fresh.textContent('#status')).trim() === '', 'typing a model gave an error');
      await fresh.close();
    });

    await test('readable on a phone: no sideways scrolling', async () => {
      const phone = await context.newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      // The shared result, and one that does not fit (the changes and rent-or-buy panels).
      for (const [url, shot] of [[sharedUrl, 'phone.png'], [new URL(qloraQuery, base).href, 'phone-changes.png']]) {
        await phone.goto(url);
        await settled(phone);
        const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        check(overflow <= 1, `${url}: page is ${overflow}px wider than the phone`);
        await phone.screenshot({ path: join(results, shot), fullPage: true });
      }
      await phone.close();
    });

    await test('the page contacted nothing but the server and logged no errors', async () => {
      check(foreign.length === 0, `foreign requests: ${foreign.join(', ')}`);
      check(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
    });
  } finally {
    await context.close();
    child.kill('SIGTERM');
    rmSync(profile, { recursive: true, force: true });
  }
}
