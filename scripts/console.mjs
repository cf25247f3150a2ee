// Bundles the console (packages/console: Preact, TypeScript) into one HTML page — script and
// styles inline, nothing fetched from anywhere at run time — for scripts/gen.mjs, which writes it
// into packages/server/src/generated/console-page.ts (checked by `pnpm gen:check`: esbuild's
// output is deterministic for the pinned version). The server serves it at /console.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'packages/console');

/** The console page as one HTML document. */
export async function buildConsolePage() {
  const result = await build({
    entryPoints: [join(pkg, 'src/main.tsx')],
    absWorkingDir: pkg,
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const script = result.outputFiles[0].text.trim().replaceAll('</script', '<\\/script');
  const styles = readFileSync(join(pkg, 'src/styles.css'), 'utf8').trim();
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<link rel="icon" href="data:,">',
    '<title>Leasehold console</title>',
    `<style>${styles}</style>`,
    '</head>',
    '<body>',
    '<div id="console"><noscript>The console needs JavaScript.</noscript></div>',
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
