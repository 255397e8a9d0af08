import type { DataSources } from '../../datasource/index.js';
import type { ResultsWriter } from '../checkRun/resultsWriter.js';
import type { PythonRuleRunner } from '../../pythonrules/index.js';
import type { LiveObjects } from '../../inspect/liveObjects.js';
import type { Store } from '../../store/store.js';

/** What the executors need: the store, the live objects (tables written by configure_table) and the data sources. */
export interface ExecutorDependencies {
  store: Store;
  objects: LiveObjects;
  dataSources: DataSources;
  /** Told when a run wrote notification messages to the outbox (the server's deliverer sends them at once). */
  onMessages?: () => void;
  /** The workers of custom Python rules, reused between runs; without it each run starts its own. */
  pythonRules?: PythonRuleRunner;
  /** The writer of check results the runs of this process share (batched writes); without it each run has its own. */
  resultsWriter?: ResultsWriter;
}
