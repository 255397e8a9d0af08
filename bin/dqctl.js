#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` / `npm install` through the prepare script).
import { main } from '../dist/cli/main.js';
main(process.argv).then((code) => { process.exitCode = code; });
