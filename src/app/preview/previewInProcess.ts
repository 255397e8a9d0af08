import type { JsonObject } from '../../model/index.js';
import type { Store } from '../../store/store.js';
import { withDataSources, type DataSourceSettings } from '../dataSourceSettings.js';
import type { PreviewDocument } from './previewDocument.js';
import { previewChecks } from './previewChecks.js';
import { previewRevisions, type PreviewRevisionsRequest } from './previewRevisions.js';

/**
 * `dqctl preview` without a server: the changed checks of two revisions, evaluated on this process's store
 * (the backtest) and data sources (the live run). A connection is used as the live store holds it, else as
 * the head revision defines it (a connection the change adds). Nothing is written.
 */
export async function previewInProcess(
  request: PreviewRevisionsRequest,
  store: Store,
  settings: DataSourceSettings,
  options: { signal: AbortSignal; now?: Date },
): Promise<PreviewDocument> {
  return withDataSources(store, settings, async ({ dataSources }) => {
    const connections = new Map((await store.listObjects({ kind: 'source' })).map((source) => [source.name, source.spec]));
    return previewRevisions(request, (body, head) => {
      const headSources = new Map<string, JsonObject>(head.objects.filter((o) => o.kind === 'source').map((o) => [o.name, o.spec]));
      return previewChecks(body, {
        store,
        connectionSpec: (name) => connections.get(name) ?? headSources.get(name),
        dataSources,
        objects: { list: (kind) => store.listObjects({ kind }) },
        now: options.now ?? new Date(),
        signal: options.signal,
      });
    });
  });
}
