import type { JsonObject, ObjectKind, ObjectWrite } from '../../../src/model/index.js';

/** Rows to write into a store under test; hashes are plain labels, the store does not compute them. */
export function objectWrite(
  kind: ObjectKind,
  name: string,
  spec: JsonObject,
  overrides: Partial<ObjectWrite> = {},
): ObjectWrite {
  const hash = `hash:${JSON.stringify(spec).length}:${name}`;
  return {
    kind,
    name,
    spec,
    attachments: {},
    contentHash: hash,
    appliedHash: hash,
    managedBy: 'git',
    owner: 'default',
    originFile: `sources/${name}.dqotable.yaml`,
    originCommit: 'c0ffee',
    ...overrides,
  };
}

/** `count` table objects of about 2.5 KB of spec each, like a DQOps table file with a dozen monitored columns. */
export function tableWrites(count: number, tag: string, offset = 0): ObjectWrite[] {
  const writes: ObjectWrite[] = [];
  for (let i = offset; i < offset + count; i++) {
    const columns: JsonObject = {};
    for (let c = 0; c < 12; c++) {
      columns[`column_${c}`] = {
        type_snapshot: { column_type: 'character varying', nullable: true, length: 255 },
        monitoring_checks: { daily: { nulls: { daily_nulls_percent: { warning: { max_percent: c } } } } },
        labels: [tag, 'naïve "quoted" \'single\''],
      };
    }
    const name = `shop/public.table_${String(i).padStart(5, '0')}`;
    writes.push(
      objectWrite('table', name, {
        incremental_time_window: { daily_partitioning_recent_days: 7 },
        labels: [tag],
        columns,
      }, { contentHash: `${tag}:${i}`, appliedHash: `${tag}:${i}` }),
    );
  }
  return writes;
}
