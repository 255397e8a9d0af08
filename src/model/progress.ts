/**
 * How long work tells how far it got: loading files, planning, applying objects. The stages call it; the CLI
 * draws it on a terminal (src/cli/progressBar.ts) and passes nothing otherwise. Reports are cheap and may come
 * often; a reporter throttles its own drawing.
 */
export type ProgressPhase = 'load' | 'plan' | 'apply' | 'import' | 'store' | 'export';

export interface ProgressEvent {
  phase: ProgressPhase;
  /** Items done so far in this phase (files read, objects written); absent for a phase that cannot count. */
  done?: number;
  total?: number;
}

export type ProgressReporter = (event: ProgressEvent) => void;
