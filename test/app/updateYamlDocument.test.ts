import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { structuredPatch } from 'diff';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emitYaml } from '../../src/app/emitYaml.js';
import { exportLive } from '../../src/app/exportLive.js';
import { updateYamlDocument } from '../../src/app/updateYamlDocument.js';
import { writeExport } from '../../src/app/writeExport.js';
import { renderExportDiff } from '../../src/cli/render/exportDiff.js';
import { drifted, live } from '../helpers/objects.js';

/** The lines a change removed and added (a unified diff without its context). */
function changedLines(before: string, after: string): { removed: string[]; added: string[] } {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 0 });
  const lines = patch.hunks.flatMap((h) => h.lines);
  return { removed: lines.filter((l) => l.startsWith('-')).map((l) => l.slice(1)), added: lines.filter((l) => l.startsWith('+')).map((l) => l.slice(1)) };
}

const HAND_WRITTEN = `# yaml-language-server: $schema=../../schemas/table.dqotable.schema.json
# Orders: owned by the checkout team.
apiVersion: dqo/v1
kind: table
spec:
  # the stage is set by the pipeline
  stage: source
  priority: 1   # keep it first
  labels:
    - critical # paged at night
    - revenue
  monitoring_checks:
    daily:
      volume:
        daily_row_count:
          warning:
            min_count: 50000 # black friday: raise
          error:
            min_count: 5000
`;

const fresh = (spec: Record<string, unknown>) => `# yaml-language-server: $schema=x\n${emitYaml(new Map(Object.entries({ apiVersion: 'dqo/v1', kind: 'table', spec: toMap(spec) })) as never)}`;
function toMap(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toMap);
  if (value && typeof value === 'object') return new Map(Object.entries(value).map(([k, v]) => [k, toMap(v)]));
  return value;
}

describe('updateYamlDocument: an API edit written into a hand-written file', () => {
  const spec = () => ({
    stage: 'source',
    priority: 1,
    labels: ['critical', 'revenue'],
    monitoring_checks: { daily: { volume: { daily_row_count: { warning: { min_count: 50000 }, error: { min_count: 5000 } } } } },
  });

  it('a changed value changes its line only; comments, key order and layout stay', () => {
    const next = spec();
    next.monitoring_checks.daily.volume.daily_row_count.warning.min_count = 60000;
    const updated = updateYamlDocument(HAND_WRITTEN, fresh(next));
    expect(parse(updated)).toEqual(parse(fresh(next)));
    expect(changedLines(HAND_WRITTEN, updated)).toEqual({
      removed: ['            min_count: 50000 # black friday: raise'],
      added: ['            min_count: 60000 # black friday: raise'],
    });
  });

  it('a new key comes in beside its neighbour of the schema order; a removed key goes; a new list item is added', () => {
    const next = { ...spec(), disabled: true, labels: ['critical', 'revenue', 'pci'] } as Record<string, unknown>;
    delete next.stage;
    // the schema order of the fresh document: disabled after priority
    const ordered = { priority: next.priority, disabled: true, labels: next.labels, monitoring_checks: next.monitoring_checks };
    const updated = updateYamlDocument(HAND_WRITTEN, fresh(ordered));
    expect(parse(updated)).toEqual(parse(fresh(ordered)));
    const { removed, added } = changedLines(HAND_WRITTEN, updated);
    // the comment above the first key belongs to the map in the yaml package's model: it stays
    expect(removed).toEqual(['  stage: source']);
    expect(added).toEqual(['  disabled: true', '    - pci']);
    expect(updated).toContain('# Orders: owned by the checkout team.');
    expect(updated).toContain('  priority: 1   # keep it first');
  });

  it('a string that YAML 1.1 readers take for a boolean is quoted when it replaces a value', () => {
    const next = { ...spec(), stage: 'yes' };
    const updated = updateYamlDocument(HAND_WRITTEN, fresh(next));
    expect(updated).toContain('  stage: "yes"\n');
    expect(parse(updated)).toEqual(parse(fresh(next)));
  });

  it('falls back to the fresh text for files it cannot update faithfully (anchors, invalid YAML)', () => {
    const withAnchors = 'apiVersion: dqo/v1\nkind: table\nspec:\n  a: &x {min_count: 1}\n  b: *x\n';
    const next = fresh(spec());
    expect(updateYamlDocument(withAnchors, next)).toBe(next);
    expect(updateYamlDocument('spec: [unclosed\n', next)).toBe(next);
  });
});

describe('writeExport with dryRun, and the diff of dqctl export --dry-run', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-adopt-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('dry run: nothing written, a unified diff of the one changed line; then the write changes exactly that line', async () => {
    const path = 'sources/c/s.t.dqotable.yaml';
    const committed = '# as committed, with a comment\napiVersion: dqo/v1\nkind: table\nspec:\n  stage: a # the stage\n  priority: 2\n';
    await mkdir(join(dir, 'sources/c'), { recursive: true });
    await writeFile(join(dir, path), committed);
    const base = live('table', 'c/s.t', { stage: 'a', priority: 2 }, { originFile: path });
    const { files } = exportLive([drifted(base, { stage: 'b', priority: 2 })], { onlyDrift: true });

    const dry = await writeExport(dir, files, { dryRun: true });
    expect(dry.written).toEqual([path]);
    expect(await readFile(join(dir, path), 'utf8')).toBe(committed);
    expect(renderExportDiff(dry.changes!)).toBe(
      [
        `--- a/${path}`,
        `+++ b/${path}`,
        '@@ -2,5 +2,5 @@',
        ' apiVersion: dqo/v1',
        ' kind: table',
        ' spec:',
        '-  stage: a # the stage',
        '+  stage: b # the stage',
        '   priority: 2',
        '',
      ].join('\n'),
    );

    const written = await writeExport(dir, files);
    expect(written.written).toEqual([path]);
    expect(await readFile(join(dir, path), 'utf8')).toBe(dry.changes![0].after);
    expect(changedLines(committed, dry.changes![0].after)).toEqual({ removed: ['  stage: a # the stage'], added: ['  stage: b # the stage'] });
  });

  it('a new file is a diff from /dev/null', async () => {
    const { files } = exportLive([live('table', 'c/s.t', { stage: 'a' })]);
    const dry = await writeExport(dir, files, { dryRun: true });
    const text = renderExportDiff(dry.changes!);
    expect(text).toMatch(/^--- \/dev\/null\n\+\+\+ b\/sources\/c\/s\.t\.dqotable\.yaml\n@@ -0,0 \+1,\d+ @@\n\+# yaml-language-server/);
  });
});
