import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { ErrorBox } from './common';

/**
 * A view whose code is loaded the first time it is shown (a chunk of its own: the table page with its chart
 * library, the lineage graph with its layout library), so the page a person opens first parses only what it
 * draws. Loaded once, then drawn at once on every later visit.
 */
export function lazyView<P extends object>(load: () => Promise<ComponentType<P>>, what: string): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return function LazyView(props: P) {
    const [, setReady] = useState(false);
    const [error, setError] = useState<Error>();
    useEffect(() => {
      if (loaded) return;
      let live = true;
      loading ??= load();
      loading.then(
        (view) => {
          loaded = view;
          if (live) setReady(true);
        },
        (failure: Error) => {
          loading = undefined; // the next visit tries again
          if (live) setError(failure);
        },
      );
      return () => {
        live = false;
      };
    }, []);
    if (loaded) {
      const View = loaded;
      return <View {...props} />;
    }
    if (error) return <ErrorBox error={new ApiError(0, 'CLIENT', `the console's code did not load (${error.message})`)} what={what} />;
    return (
      <p class="loading" role="status">
        Loading {what}…
      </p>
    );
  };
}
