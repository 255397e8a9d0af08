import type { ExecutorDependencies } from '../../jobs/executors/executorDependencies.js';
import { compileNamePattern } from '../../policy/index.js';

/**
 * Starts opening the data sources of the connections a run's `connection` filter selects (all without one):
 * DuckDB's engine loads and its database opens, a MySQL driver loads, while the run still reads the store and
 * plans. Nothing waits for it and nothing fails here: a source that cannot open fails the run's first session
 * of it, with the reason. A connection whose tables have no checks to run costs an opened, unused source.
 */
export function prepareDataSources(deps: Pick<ExecutorDependencies, 'objects' | 'dataSources'>, connectionFilter: unknown): void {
  const selected = compileNamePattern(connectionFilter);
  deps.objects.list('source').then(
    (sources) => {
      for (const source of sources) if (!selected || selected.matches(source.name)) deps.dataSources.get(source.name, source.spec).prepare();
    },
    () => undefined,
  );
}
