import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getCheckCatalog, PACKAGE_ROOT } from '../../../src/catalog/index.js';
import { implementedSensors, sensorMeaning } from '../../../src/datasource/sensors/index.js';

/** Which catalog sensors have SQL: every sensor of a standard check must; docs/sensors.md lists them all. */
describe('sensor coverage of the check catalog', () => {
  const catalog = getCheckCatalog();
  const implemented = new Set(implementedSensors());

  it('implements the sensor of every standard check', () => {
    const standard = [...new Set(catalog.checks.filter((c) => c.standard).map((c) => c.sensor))].sort();
    const missing = standard.filter((sensor) => !implemented.has(sensor));
    expect(standard.length).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it('lists every catalog sensor as implemented, or not implemented with a reason', () => {
    const all = [...catalog.sensors.keys()].sort();
    const notImplemented = all.filter((sensor) => !implemented.has(sensor));
    console.log(`sensors implemented: ${implemented.size} of ${all.length}; not implemented: ${notImplemented.join(', ') || 'none'}`);
    for (const sensor of all) expect(sensorMeaning(sensor), sensor).toBeDefined();
    expect([...implemented].filter((sensor) => !catalog.sensors.has(sensor))).toEqual([]);
    // Only sensors no check uses may be left out.
    const used = new Set(catalog.checks.map((c) => c.sensor));
    expect(notImplemented.filter((sensor) => used.has(sensor))).toEqual([]);
  });

  it('documents each sensor in the table of docs/sensors.md with the meaning the code declares', () => {
    const readme = readFileSync(join(PACKAGE_ROOT, 'docs/sensors.md'), 'utf8');
    const missing = [...catalog.sensors.keys()].filter((sensor) => {
      const meaning = sensorMeaning(sensor)!;
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${sensor}\` |`));
      return row === undefined || !row.endsWith(`| ${meaning.text.replaceAll('|', '\\|')} |`);
    });
    expect(missing).toEqual([]);
  });

  it('asserts the value of every implemented sensor in a test of this folder', () => {
    const folder = join(PACKAGE_ROOT, 'test', 'datasource', 'sensors');
    const text = readdirSync(folder)
      .filter((file) => file.endsWith('.test.ts') && file !== 'sensorCoverage.test.ts')
      .map((file) => readFileSync(join(folder, file), 'utf8'))
      .join('\n');
    expect([...implemented].filter((sensor) => !text.includes(`'${sensor}'`) && !text.includes(`\`${sensor}\``))).toEqual([]);
  });
});
