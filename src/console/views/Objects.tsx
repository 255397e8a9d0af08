import { get, type ObjectRow, type ObjectStatusList } from '../api';
import { ErrorBox, Status, useLoad } from '../components/common';
import { VirtualList } from '../components/VirtualList';
import { links, navigate, type Location } from '../router';
import { KIND_WORDS, QUALITY_ORDER, QUALITY_WORDS, SYNC_WORDS, type ObjectKindName } from '../words';

/** Rows per page: the server searches and pages, so the page never holds more than this many objects. */
export const OBJECTS_PAGE_SIZE = 100;

/** The URL query's filters → GET /api/objects of one page (the server searches all objects, however many). */
export function objectsRequest(query: URLSearchParams): string {
  const params = new URLSearchParams({ limit: String(OBJECTS_PAGE_SIZE), page: String(pageOf(query)) });
  const pairs: Array<[string, string]> = [
    ['q', 'search'],
    ['kind', 'kind'],
    ['connection', 'connection'],
    ['owner', 'owner'],
    ['sync', 'sync_status'],
    ['quality', 'quality_status'],
  ];
  for (const [from, to] of pairs) {
    const value = query.get(from);
    if (value) params.set(to, value);
  }
  return `/api/objects?${params.toString()}`;
}

function pageOf(query: URLSearchParams): number {
  const page = Number(query.get('page') ?? '1');
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

/** Connections, tables, policies and rules; the search box, the filters and the page live in the URL's query. */
export function Objects({ location }: { location: Location }) {
  const request = objectsRequest(location.query);
  // the rows shown answer the request they came with (while typing, a newer one may be on its way)
  const loaded = useLoad(request, async (signal) => ({ request, answer: await get<ObjectStatusList>(request, { signal }) }));
  const data = loaded.data?.answer;
  return (
    <>
      <h1>Objects</h1>
      <Filters query={location.query} connections={data?.connections ?? []} />
      {data ? <ObjectList data={data} query={location.query} answered={loaded.data!.request} loading={loaded.loading} /> : null}
      {loaded.error ? <ErrorBox error={loaded.error} what="the objects" /> : null}
      {!data && !loaded.error ? (
        <p class="loading" role="status">
          Loading the objects…
        </p>
      ) : null}
    </>
  );
}

/** A filter changed: back to the first page. */
function setFilter(name: string, value: string): void {
  const query = new URLSearchParams(window.location.search);
  query.delete('page');
  if (value === '') query.delete(name);
  else query.set(name, value);
  const search = query.toString();
  navigate(`${window.location.pathname}${search ? `?${search}` : ''}`, { replace: true });
}

function Filters({ query, connections }: { query: URLSearchParams; connections: readonly string[] }) {
  const connection = query.get('connection') ?? '';
  const select = (name: string, label: string, options: Array<[string, string]>) => (
    <label>
      {label}
      <select value={query.get(name) ?? ''} onChange={(e) => setFilter(name, (e.currentTarget as HTMLSelectElement).value)}>
        <option value="">any</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  // the chosen connection stays a choice while the list of connections loads
  const connectionChoices = connection && !connections.includes(connection) ? [connection, ...connections] : connections;
  return (
    <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
      <label>
        Search
        <input type="search" name="q" value={query.get('q') ?? ''} placeholder="name or file" autoComplete="off" onInput={(e) => setFilter('q', (e.currentTarget as HTMLInputElement).value)} />
      </label>
      {select('kind', 'Kind', (Object.keys(KIND_WORDS) as ObjectKindName[]).map((k) => [k, KIND_WORDS[k]]))}
      {select('connection', 'Connection', connectionChoices.map((c) => [c, c]))}
      {select('owner', 'Owner', [
        ['git', 'git'],
        ['api', 'API'],
      ])}
      {select('sync', 'Sync', Object.keys(SYNC_WORDS).filter((k) => k !== 'Unknown').map((k) => [k, SYNC_WORDS[k]]))}
      {select('quality', 'Worst severity', QUALITY_ORDER.map((k) => [k, QUALITY_WORDS[k]]))}
    </form>
  );
}

function ObjectList({ data, query, answered, loading }: { data: ObjectStatusList; query: URLSearchParams; answered: string; loading: boolean }) {
  const rows: ObjectRow[] = data.objects;
  const page = data.page ?? 1;
  const pages = Math.max(1, Math.ceil(data.total / OBJECTS_PAGE_SIZE));
  const pageLink = (n: number) => {
    const next = new URLSearchParams(query);
    if (n === 1) next.delete('page');
    else next.set('page', String(n));
    return links.objects(Object.fromEntries(next));
  };
  const count = data.total === data.total_objects ? `${data.total} objects` : `${data.total} of ${data.total_objects} objects`;
  return (
    <>
      {/* data-answers: the request these rows answer */}
      <p role="status" class="result-count" data-testid="result-count" data-answers={answered} aria-busy={loading}>
        {count}
      </p>
      {data.total_objects === 0 ? (
        <p class="empty">The live store has no objects yet: apply a repository (dqctl apply DIR) or serve one (dqctl serve --repo DIR --auto-apply).</p>
      ) : data.total === 0 ? (
        <p class="empty">No object matches these filters.</p>
      ) : rows.length === 0 ? (
        <p class="empty">
          This page is past the last one (page {pages}). <a href={pageLink(1)}>First page</a>
        </p>
      ) : (
        <>
          <VirtualList
            items={rows}
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
          {pages > 1 ? (
            <nav class="pager" aria-label="pages of objects" data-testid="pager">
              {page > 1 ? <a href={pageLink(page - 1)} rel="prev">‹ previous</a> : <span aria-hidden="true">‹ previous</span>}
              <span>
                page {page} of {pages}
              </span>
              {page < pages ? <a href={pageLink(page + 1)} rel="next">next ›</a> : <span aria-hidden="true">next ›</span>}
            </nav>
          ) : null}
        </>
      )}
    </>
  );
}
