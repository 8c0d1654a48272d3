// Runs every web/tests/*.test.mjs and prints one line per test and a closing "N passed, M failed".
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let passed = 0;
let failed = 0;
const report = (name, error) => {
  if (error) {
    failed += 1;
    console.log(`FAIL ${name}\n     ${String(error.stack || error).split('\n').slice(0, 3).join('\n     ')}`);
  } else {
    passed += 1;
    console.log(`ok   ${name}`);
  }
};
for (const file of readdirSync(here).filter((f) => f.endsWith('.test.mjs')).sort()) {
  try {
    const mod = await import(pathToFileURL(join(here, file)));
    await mod.run(report);
  } catch (e) {
    report(`${file} (setup)`, e);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
