import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The web console: built into dist/console by `npm run build:console` (part of `prepare`, so `npm ci` builds it). */
const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // the CSP forbids inline script: vite's module preload polyfill would be inlined
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
