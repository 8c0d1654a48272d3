// Browser tests of what a person sees: the form always says what the server computed, setups
// that do not fit show what would, errors sit at their field, and every view reads in both
// languages at 1440x900 and 390x844 (screenshots in web/test-results/).
import {
  api, check, launch, PHONE, readyOf, setField, settled, shotPath, startServer,
} from './lib.mjs';

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

    await test('the views logged no errors', async () => {
      check(errors.length === 0, `page errors: ${errors.join(' | ')}`);
    });
  } finally {
    await browser.close();
    child.kill('SIGTERM');
  }
}

