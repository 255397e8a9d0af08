import { migration0001 } from './0001_initial.js';
import { migration0002 } from './0002_results.js';
import { migration0003 } from './0003_jobs.js';
import { migration0004 } from './0004_statistics.js';
import { migration0005 } from './0005_incidents.js';
import { migration0006 } from './0006_apply_history_dirty.js';
import { migration0007 } from './0007_readouts_without_verdict.js';
import { migration0008 } from './0008_applied_environments.js';
import { migration0009 } from './0009_outbox_incident_snapshot.js';
import { migration0010 } from './0010_one_result_per_period.js';
import { migration0011 } from './0011_applied_content.js';
import { migration0012 } from './0012_dqops_data.js';
import { migration0013 } from './0013_applied_inputs.js';
import { migration0014 } from './0014_objects_uncompressed.js';
import { migration0015 } from './0015_table_status.js';
import { migration0016 } from './0016_table_jobs.js';
import { migration0017 } from './0017_table_status_by_severity.js';

/**
 * Every migration this version knows, in order. Append only: a released migration is never edited, and its
 * number is never reused, because stores record the numbers they have run.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [migration0001, migration0002, migration0003, migration0004, migration0005, migration0006, migration0007, migration0008, migration0009, migration0010, migration0011, migration0012, migration0013, migration0014, migration0015, migration0016, migration0017];
