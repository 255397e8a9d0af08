import { describe, expect, it } from 'vitest';
import { createSchemaAjv, readSchemaFile, validateDocument, validatorFor } from '../../src/schema/index.js';
import { validDocument } from './validDocuments.js';

// Budgets for the benchmark of 10,000 table files: compile once in about a second, then well under 1 ms per
// document. The limits here are loose (shared CI machines); the measured numbers are printed.
describe('validation speed', () => {
  it('compiles the table schema in a couple of seconds at most', () => {
    const schema = readSchemaFile('table');
    const started = performance.now();
    createSchemaAjv().compile(schema);
    const ms = performance.now() - started;
    console.log(`table schema compile: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(4000);
  });

  it('validates a medium table document in well under a millisecond', () => {
    const document = validDocument('table');
    validatorFor('table');
    for (let i = 0; i < 500; i++) validateDocument('table', document);
    const rounds = 5000;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) validateDocument('table', document);
    const perDocument = (performance.now() - started) / rounds;
    console.log(`valid table document: ${(perDocument * 1000).toFixed(1)} us`);
    expect(validateDocument('table', document)).toEqual([]);
    expect(perDocument).toBeLessThan(0.25);
  });
});
