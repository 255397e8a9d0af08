import { SingleBar } from 'cli-progress';
import type { ProgressEvent, ProgressReporter } from '../model/index.js';
import type { CliIo } from './io.js';

/**
 * Progress of long CLI work on a terminal, drawn on stderr by cli-progress: one line that a phase with a count
 * fills (`Loading files [████░░░░] 812/1500`), and that shows the elapsed time for a phase that cannot count
 * (planning). Nothing at all when stderr is not a terminal (CI logs, pipes) or with --quiet: the returned
 * reporter is then undefined and the stages skip their reports. `stop()` clears the line before the result is
 * printed.
 */
export interface TerminalProgress {
  report: ProgressReporter | undefined;
  stop(): void;
}

const LABELS: Record<ProgressEvent['phase'], string> = {
  load: 'Loading and validating files',
  plan: 'Planning',
  apply: 'Applying',
  import: 'Importing files',
  store: 'Storing kinds',
  export: 'Exporting kinds',
};

export function terminalProgress(io: CliIo, options: { quiet?: boolean } = {}): TerminalProgress {
  const stream = io.progressStream;
  if (!stream || options.quiet) return { report: undefined, stop: () => undefined };
  let bar: SingleBar | undefined;
  let phase: ProgressEvent['phase'] | undefined;
  const started = Date.now();
  const make = () =>
    new SingleBar({
      stream,
      format: (options, params, payload: { label: string; counted: boolean }) => {
        const seconds = Math.round((Date.now() - started) / 100) / 10;
        if (!payload.counted) return `${payload.label}… ${seconds.toFixed(1)} s`;
        const width = options.barsize ?? 30;
        const filled = Math.round((params.total > 0 ? params.value / params.total : 0) * width);
        return `${payload.label} [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${params.value}/${params.total} ${seconds.toFixed(1)} s`;
      },
      hideCursor: true,
      clearOnComplete: true,
      stopOnComplete: false,
      barsize: 30,
      fps: 10,
      etaBuffer: 50,
    });
  return {
    report: (event) => {
      if (event.phase !== phase) {
        bar?.stop();
        bar = make();
        phase = event.phase;
        bar.start(event.total ?? 0, event.done ?? 0, { label: LABELS[event.phase], counted: event.total !== undefined });
        return;
      }
      if (event.total !== undefined) bar?.setTotal(event.total);
      bar?.update(event.done ?? 0);
    },
    stop: () => {
      bar?.stop();
      bar = undefined;
    },
  };
}

/** Runs long work with a progress bar on a terminal (nothing otherwise), and always takes the bar down after. */
export async function withProgress<T>(io: CliIo, options: { quiet?: boolean }, work: (report: ProgressReporter | undefined) => Promise<T>): Promise<T> {
  const progress = terminalProgress(io, options);
  try {
    return await work(progress.report);
  } finally {
    progress.stop();
  }
}
