import { DqError, type ObjectKind } from '../model/index.js';
import { objectPath } from './exportLive.js';

/**
 * A definition named through the API must be one a DQOps home can hold as a file (export writes it back, apply
 * reads it again): a check definition under `<table|column>/<profiling|monitoring/<scale>|partitioned/<scale>>/<category>/`,
 * a dictionary a `.csv` file, and no empty, `.` or `..` part. 400 naming the expected shape otherwise.
 */
const SHAPES: Partial<Record<ObjectKind, string>> = {
  rule: 'a rule is named <folder>/…/<name>, e.g. comparison/min_count',
  sensor: 'a sensor is named <table|column>/<category>/<name> (its folder under sensors/), e.g. column/nulls/null_count',
  check: 'a check definition is named <table|column>/profiling/<category>/<name> or <table|column>/<monitoring|partitioned>/<daily|monthly>/<category>/<name>',
  dictionary: 'a dictionary is a CSV file named <name>.csv',
};

export function refuseUnwritableName(kind: ObjectKind, name: string): void {
  // a body's name is held to what a path's is (server/names.ts): no part that would leave its folder
  if (name.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new DqError('INVALID_ARGUMENT', `${JSON.stringify(name)} cannot name a ${kind}: it must not contain empty, "." or ".." parts`);
  }
  if (objectPath(kind, name) !== undefined) return;
  throw new DqError('INVALID_ARGUMENT', `${JSON.stringify(name)} cannot name a ${kind} file: ${SHAPES[kind] ?? 'the name cannot be a file name'}`);
}
