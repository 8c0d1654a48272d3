// The README's first command (scripts/setup.sh) must leave a binary that serves the page, and the
// test command must bring what the browser tests need. These read the scripts as a shell would run
// them (the order of the steps) and check the machine the tests run on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const bin = process.env.GPUSIZER_BIN || join(repo, 'build', 'gpusizer');

function check(cond, message) { if (!cond) throw new Error(message); }

/** The script's command lines (comments and blank lines dropped), in order. */
function commands(script) {
  return readFileSync(join(repo, 'scripts', script), 'utf8').split('\n')
    .map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

const lineOf = (lines, re) => lines.findIndex((l) => re.test(l));

export async function run(report) {
  const test = async (name, fn) => {
    try { await fn(); report(name, null); } catch (e) { report(name, e); }
  };

  await test('setup.sh installs Node and npm and builds the bundle before the binary', async () => {
    const lines = commands('setup.sh');
    const deps = lineOf(lines, /scripts\/install_web_deps\.sh(?!\s+--browser)/);
    const bundle = lineOf(lines, /scripts\/build_web\.sh/);
    const binary = lineOf(lines, /cmake --build build\b.*--target gpusizer/);
    check(deps >= 0, 'setup.sh never installs Node and npm (scripts/install_web_deps.sh)');
    check(bundle >= 0, 'setup.sh never builds web/dist (scripts/build_web.sh)');
    check(binary > bundle && bundle >= deps, 'setup.sh builds the binary before the bundle, so it is not embedded');
    // Without npm the build goes on: the bundle step is guarded, not fatal under `set -e`.
    check(/^if .*build_web\.sh/.test(lines[bundle]) || /\|\|/.test(lines[bundle]),
      `a failing bundle build stops setup.sh: ${lines[bundle]}`);
    const deb = readFileSync(join(repo, 'scripts', 'install_web_deps.sh'), 'utf8');
    check(/\bnodejs\b/.test(deb) && /\bnpm\b/.test(deb), 'install_web_deps.sh does not name nodejs and npm');
    const build = readFileSync(join(repo, 'scripts', 'build_web.sh'), 'utf8');
    check(/npm ci/.test(build) && /npm run build/.test(build), 'build_web.sh does not build from the lock file');
  });

  await test('the test command installs chromium and a CJK font, and both are here', async () => {
    const lines = commands('test_web.sh');
    check(lineOf(lines, /install_web_deps\.sh --browser/) >= 0, 'test_web.sh does not install the browser packages');
    const deb = readFileSync(join(repo, 'scripts', 'install_web_deps.sh'), 'utf8');
    check(/\bchromium\b/.test(deb) && /fonts-(noto-cjk|wqy-zenhei)/.test(deb), 'no chromium or CJK font package');
    let fonts = '';
    try { fonts = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }); } catch { /* no fontconfig */ }
    check(fonts.trim().length > 0, 'no font with Chinese glyphs is installed: the zh screenshots would show boxes');
  });

  await test('the binary serves the page, not the "bundle not built" notice', async () => {
    // `gpusizer serve` answers "/" from the files compiled in.
    const { spawn } = await import('node:child_process');
    const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const base = await new Promise((ok, fail) => {
        let out = '';
        const timer = setTimeout(() => fail(new Error(`server did not start: ${out}`)), 10000);
        child.stdout.on('data', (c) => {
          out += c;
          const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
          if (m) { clearTimeout(timer); ok(`http://127.0.0.1:${m[1]}/`); }
        });
        child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`server exited ${code}: ${out}`)); });
        child.on('error', (e) => { clearTimeout(timer); fail(e); });
      });
      const html = await (await fetch(base)).text();
      check(/assets\/app\.js/.test(html) && !/not built/i.test(html), `"/" is not the page: ${html.slice(0, 200)}`);
    } finally {
      child.kill('SIGTERM');
    }
  });
}
