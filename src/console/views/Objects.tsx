import { useMemo } from 'preact/hooks';
import { get, type ObjectRow, type ObjectStatusList } from '../api';
import { Show, Status, useLoad } from '../components/common';
import { VirtualList } from '../components/VirtualList';
import { links, setQueryParam, type Location } from '../router';
import { KIND_WORDS, QUALITY_ORDER, QUALITY_WORDS, SYNC_WORDS, type ObjectKindName } from '../words';

/** Connections, tables, policies and rules; the search box and the filters live in the URL's query. */
export function Objects({ location }: { location: Location }) {
  const loaded = useLoad('objects', () => get<ObjectStatusList>('/api/objects'));
  return (
    <>
      <h1>Objects</h1>
      <Show loaded={loaded} what="the objects">
        {(data) => <ObjectList rows={data.objects} query={location.query} />}
      </Show>
    </>
  );
}

interface Indexed {
  row: ObjectRow;
  text: string;
}

function ObjectList({ rows, query }: { rows: ObjectRow[]; query: URLSearchParams }) {
  const indexed = useMemo<Indexed[]>(() => rows.map((row) => ({ row, text: `${row.name} ${row.origin_file ?? ''}`.toLowerCase() })), [rows]);
  const connections = useMemo(() => [...new Set(rows.map((r) => r.connection).filter((c): c is string => c !== null))].sort(), [rows]);
  const q = query.get('q') ?? '';
  const kind = query.get('kind') ?? '';
  const connection = query.get('connection') ?? '';
  const owner = query.get('owner') ?? '';
  const sync = query.get('sync') ?? '';
  const quality = query.get('quality') ?? '';
  const filtered = useMemo(() => {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    const out: ObjectRow[] = [];
    for (const { row, text } of indexed) {
      if (kind && row.kind !== kind) continue;
      if (connection && row.connection !== connection) continue;
      if (owner && row.managed_by !== owner) continue;
      if (sync && row.sync_status !== sync) continue;
      if (quality && row.quality_status !== quality) continue;
      if (words.length && !words.every((w) => text.includes(w))) continue;
      out.push(row);
    }
    return out;
  }, [indexed, q, kind, connection, owner, sync, quality]);

  const select = (name: string, label: string, value: string, options: Array<[string, string]>) => (
    <label>
      {label}
      <select value={value} onChange={(e) => setQueryParam(name, (e.currentTarget as HTMLSelectElement).value)}>
        <option value="">any</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input type="search" name="q" value={q} placeholder="name or file" autoComplete="off" onInput={(e) => setQueryParam('q', (e.currentTarget as HTMLInputElement).value)} />
        </label>
        {select('kind', 'Kind', kind, (Object.keys(KIND_WORDS) as ObjectKindName[]).map((k) => [k, KIND_WORDS[k]]))}
        {select('connection', 'Connection', connection, connections.map((c) => [c, c]))}
        {select('owner', 'Owner', owner, [
          ['git', 'git'],
          ['api', 'API'],
        ])}
        {select('sync', 'Sync', sync, Object.keys(SYNC_WORDS).filter((k) => k !== 'Unknown').map((k) => [k, SYNC_WORDS[k]]))}
        {select('quality', 'Worst severity', quality, QUALITY_ORDER.map((k) => [k, QUALITY_WORDS[k]]))}
      </form>
      <p role="status" class="result-count" data-testid="result-count">
        {filtered.length === rows.length ? `${rows.length} objects` : `${filtered.length} of ${rows.length} objects`}
      </p>
      {rows.length === 0 ? (
        <p class="empty">The live store has no objects yet: apply a repository (dqctl apply DIR) or serve one (dqctl serve --repo DIR --auto-apply).</p>
      ) : filtered.length === 0 ? (
        <p class="empty">No object matches these filters.</p>
      ) : (
        <VirtualList
          items={filtered}
          rowHeight={36}
          height={560}
          label="objects"
          header={
            <div class="orow ohead" aria-hidden="true">
              <span>Name</span>
              <span>Kind</span>
              <span>Owner</span>
              <span>Sync</span>
              <span>Worst severity</span>
            </div>
          }
          render={(row) => (
            <div class="orow" role="listitem" key={`${row.kind}/${row.name}`}>
              <span class="oname">
                {row.kind === 'table' ? (
                  <a href={links.table(row.connection!, row.schema!, row.table!)}>{row.name}</a>
                ) : row.kind === 'source' ? (
                  <a href={links.objects({ connection: row.name, kind: 'table' })}>{row.name}</a>
                ) : (
                  <span>{row.name}</span>
                )}
              </span>
              <span>{KIND_WORDS[row.kind] ?? row.kind}</span>
              <span>{row.managed_by === 'git' ? 'git' : 'API'}</span>
              <span>
                <Status value={row.sync_status} kind="sync" />
              </span>
              <span>{row.kind === 'table' || row.kind === 'source' ? <Status value={row.quality_status} /> : '—'}</span>
            </div>
          )}
        />
      )}
    </>
  );
}
