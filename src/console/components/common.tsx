import { Fragment, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { QUALITY_WORDS, SYNC_WORDS, toneOfQuality } from '../words';

/** A status written as a word; the tone only colours it. */
export function Status({ value, kind = 'quality' }: { value: string | null | undefined; kind?: 'quality' | 'sync' | 'plain' }) {
  const key = value ?? 'not_run';
  const word = kind === 'quality' ? (QUALITY_WORDS[key as keyof typeof QUALITY_WORDS] ?? key) : kind === 'sync' ? (SYNC_WORDS[key] ?? key) : key;
  return <span class={`status ${toneOfQuality(key)}`}>{word}</span>;
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Fetches when `key` changes; keeps the previous data while reloading. A load superseded by a newer key (a
 * keystroke in a search box) or by leaving the view is cancelled through its signal, and its answer, should it
 * still arrive, is never shown: only the answer of the newest key reaches the state.
 */
export function useLoad<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    const live = () => !controller.signal.aborted;
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => live() && setState({ data, loading: false }),
      (error: unknown) =>
        live() && setState({ error: error instanceof ApiError ? error : new ApiError(0, 'CLIENT', (error as Error).message), loading: false }),
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The loading, error and loaded states of one fetch, in one place. */
export function Show<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (loaded.data !== undefined) return <>{children(loaded.data)}</>;
  if (loaded.error) return <ErrorBox error={loaded.error} what={what} />;
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ error, what }: { error: ApiError; what: string }) {
  return (
    <div class="error-box" role="alert">
      <strong>Could not load {what}.</strong> {error.message}
      {error.code ? <span class="code"> ({error.code})</span> : null}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `h-${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section aria-labelledby={headingId} class="card">
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A name (connection/schema.table, a check name) that may wrap only after its separators (/ . _), never in the
 * middle of a word: each separator is followed by a <wbr>, which adds no text.
 */
export function Name({ text }: { text: string }) {
  const parts = text.split(/(?<=[/._])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </>
  );
}
