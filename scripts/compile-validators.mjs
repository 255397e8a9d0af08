#!/usr/bin/env node
// Part of `npm run build`: writes dist/validators (precompiled schema validators; see
// src/schema/standaloneValidators.ts). Runs on the freshly compiled dist/.
import { writeStandaloneValidators } from '../dist/schema/writeStandaloneValidators.js';

const started = performance.now();
const written = writeStandaloneValidators();
const bytes = written.reduce((sum, v) => sum + v.bytes, 0);
console.log(`dist/validators: ${written.length} precompiled schema validators, ${(bytes / 1048576).toFixed(1)} MiB, in ${Math.round(performance.now() - started)} ms`);
