#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` / `npm install` through the prepare script).
// dist/bundle/ holds dqctl's own modules bundled into a few files (scripts/bundle-cli.mjs), which load in about half
// the time of dist/'s ~250 modules. The unbundled modules run with DQCTL_BUNDLE=off, without a bundle, and when the
// bundle is older than dist/ (tsc run again without the bundle step: the bundle would be the code before).
import { existsSync, statSync } from 'node:fs';

// Node.js 20 has no global `navigator` (Node.js 21 added it). Without one, the `pg` package tests whether it runs in
// Cloudflare Workers when it loads by constructing a fetch Response, which loads Node.js's fetch implementation:
// ~0.04 s of CPU in every process that uses PostgreSQL. Defined here as Node.js 21+ defines it (its user agent).
if (globalThis.navigator === undefined) {
  Object.defineProperty(globalThis, 'navigator', {
    value: Object.freeze({ userAgent: `Node.js/${process.versions.node.split('.')[0]}` }),
    configurable: true,
    writable: true,
    enumerable: false,
  });
}

const bundle = new URL('../dist/bundle/main.js', import.meta.url);
const unbundled = new URL('../dist/cli/main.js', import.meta.url);
const bundled = process.env.DQCTL_BUNDLE !== 'off' && existsSync(bundle) && (!existsSync(unbundled) || statSync(bundle).mtimeMs >= statSync(unbundled).mtimeMs);
const { main } = await import(bundled ? '../dist/bundle/main.js' : '../dist/cli/main.js');
main(process.argv).then((code) => { process.exitCode = code; });
