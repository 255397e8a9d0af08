import { describe, expect, it } from 'vitest';
import { writePlan } from '../../src/cli/render/planOutput.js';
import type { CliIo } from '../../src/cli/io.js';
import { buildPlan, planEnvironment } from '../../src/plan/plan.js';
import { toPlanDocument } from '../../src/plan/planDocument.js';
import { renderPlanText } from '../../src/plan/renderText.js';
import { diff } from '../../src/diff/diff.js';
import { desired } from '../helpers/objects.js';

/** A plan of 2,000 creates: about 1 MB of text, many pieces of output. */
function bigPlanDocument() {
  const objects = Array.from({ length: 2_000 }, (_, i) => desired('table', `shop/public.t${i}`, { columns: { id: { labels: ['x'.repeat(200)] } } }));
  const result = diff(objects, [], new Map(), { namespace: 'default', protectedPatterns: [], pruneUnmanaged: false, keepDrift: false });
  return toPlanDocument(
    buildPlan(result, {
      repository: { description: 'r', commit: null },
      store: { engine: 'pglite', description: 's', revision: 0 },
      namespace: 'default',
      desiredFingerprint: 'f'.repeat(64),
      managedCount: 0,
      options: { pruneUnmanaged: false, keepDrift: false, allowMassDelete: false, massDeleteThreshold: 0.5 },
      environment: planEnvironment(null, null),
      createdAt: '2026-11-28T12:00:00.000Z',
    }),
  );
}

describe('writing a plan to stdout', () => {
  it('writes the next piece only once stdout has taken the one before (a slow pipe), and the pieces make the text', async () => {
    const doc = bigPlanDocument();
    const written: string[] = [];
    let release: (() => void) | null = null;
    const io = {
      color: false,
      stdout: (text: string) => void written.push(text),
      // stdout is "full" after every piece until the test lets it drain
      stdoutDrained: () => new Promise<void>((resolve) => (release = resolve)),
    } as unknown as CliIo;
    const writing = writePlan(doc, 'text', io);
    for (let expected = 1; release !== null || written.length === 0; expected++) {
      await new Promise((resolve) => setImmediate(resolve));
      expect(written.length).toBe(expected); // one piece, then nothing until drained
      const drained: () => void = release!;
      release = null;
      drained();
      await new Promise((resolve) => setImmediate(resolve));
      if (release === null) break; // the last piece was taken
    }
    await writing;
    expect(written.length).toBeGreaterThan(5);
    expect(written.join('')).toBe(renderPlanText(doc));
  });
});
