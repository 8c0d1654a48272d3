// Builds the page into web/dist: index.html, assets/app.js and assets/app.css (Chart.js bundled
// in, nothing fetched from the network at run time). The C++ build compiles web/dist into the
// binary (cmake/embed.cmake).
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, 'dist');
await rm(dist, { recursive: true, force: true });
await mkdir(join(dist, 'assets'), { recursive: true });
await build({
  entryPoints: { app: join(root, 'src', 'main.js') },
  outdir: join(dist, 'assets'),
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  legalComments: 'eof',
  logLevel: 'warning',
});
await copyFile(join(root, 'index.html'), join(dist, 'index.html'));
console.log('web/dist built');
