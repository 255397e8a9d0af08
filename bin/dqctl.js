#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` / `npm install` through the prepare script).
// dist/bundle/ holds dqctl's own modules bundled into a few files (scripts/bundle-cli.mjs), which load in about half
// the time of dist/'s ~250 modules; DQCTL_BUNDLE=off, or a dist/ built by tsc alone, runs the unbundled modules.
import { statSync } from 'node:fs';

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

// A bundle older than dist/'s modules (tsc run again without the bundle step) is stale: dist/ is run instead.
const modifiedAt = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? null;
const bundleAt = process.env.DQCTL_BUNDLE === 'off' ? null : modifiedAt('../dist/bundle/main.js');
const bundled = bundleAt !== null && bundleAt >= (modifiedAt('../dist/cli/main.js') ?? 0);
const { main } = await import(bundled ? '../dist/bundle/main.js' : '../dist/cli/main.js');
main(process.argv).then((code) => { process.exitCode = code; });
