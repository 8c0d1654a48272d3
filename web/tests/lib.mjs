// Shared pieces of the browser tests: the server under test, Chromium, and waiting for the page.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
export const results = join(repo, 'web', 'test-results');
const bin = process.env.GPUSIZER_BIN || join(repo, 'build', 'gpusizer');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

export function check(cond, message) { if (!cond) throw new Error(message); }

/** Starts `gpusizer serve --port 0` and resolves with its base URL once it prints its address.
 *  GPUSIZER_URL (a server already running, e.g. while the page is developed) is used instead. */
export function startServer() {
  if (process.env.GPUSIZER_URL) return Promise.resolve({ child: { kill() {} }, base: process.env.GPUSIZER_URL });
  return new Promise((ok, fail) => {
    const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => fail(new Error(`server did not start: ${out}`)), 10000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) { clearTimeout(timer); ok({ child, base: `http://127.0.0.1:${m[1]}/` }); }
    });
    child.stderr.on('data', (c) => { out += c; });
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`server exited ${code}: ${out}`)); });
    child.on('error', (e) => { clearTimeout(timer); fail(e); });
  });
}

export async function api(base, path, body) {
  const res = await fetch(new URL(path, base), body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Chromium with its own profile; `close()` ends it and removes the profile. */
export async function launch(locale = 'en-US') {
  const profile = mkdtempSync(join(tmpdir(), 'gpusizer-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-proxy-server'],
    viewport: DESKTOP,
    locale,
    bypassCSP: true,  // axe-core is injected as a script the page's CSP would refuse
  });
  return { context, close: async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); } };
}

/** Waits until the page has rendered the answer to its latest request. */
export async function settled(page, previous) {
  await page.waitForFunction((prev) => {
    const ready = document.body.dataset.ready;
    return ready && ready !== prev && !document.body.classList.contains('busy');
  }, previous ?? null, { timeout: 20000 });
  await page.waitForTimeout(100);
  return page.evaluate(() => document.body.dataset.ready);
}

export const readyOf = (page) => page.evaluate(() => document.body.dataset.ready);

/** Changes a field the way a user does, then waits for the new result. */
export async function setField(page, id, value) {
  const before = await readyOf(page);
  const tag = await page.$eval(`#${id}`, (el) => el.tagName);
  if (tag === 'SELECT') await page.selectOption(`#${id}`, value);
  else if (typeof value === 'boolean') await (value ? page.check(`#${id}`) : page.uncheck(`#${id}`));
  else await page.fill(`#${id}`, String(value));
  return settled(page, before);
}

export function shotPath(name) {
  mkdirSync(results, { recursive: true });
  return join(results, name);
}
