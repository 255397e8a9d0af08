import { useEffect, useState } from 'preact/hooks';

/**
 * The URL is the state: the path names the view, the query its filters and selection. Links are real
 * `<a href>`; a plain left click on a same-origin link is handled here (history.pushState) so the app does not
 * reload, and every other click (new tab, modifier keys) is the browser's.
 */
export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

/** Replaces one query parameter (empty removes it), keeping the view: filters typed into a box. */
export function setQueryParam(name: string, value: string): void {
  const query = new URLSearchParams(window.location.search);
  if (value === '') query.delete(name);
  else query.set(name, value);
  const search = query.toString();
  navigate(`${window.location.pathname}${search ? `?${search}` : ''}`, { replace: true });
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    // SVG links (the lineage graph) are <a> too, whose href and target are not strings: read the attributes
    const anchor = (event.target as Element).closest?.('a');
    const href = anchor?.getAttribute('href');
    if (!anchor || !href || anchor.getAttribute('target') || anchor.hasAttribute('download')) return;
    const url = new URL(href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname.startsWith('/api/')) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
    window.scrollTo(0, 0);
  });
}

const seg = encodeURIComponent;

export const links = {
  overview: () => '/',
  objects: (query: Record<string, string> = {}) => {
    const search = new URLSearchParams(query).toString();
    return `/objects${search ? `?${search}` : ''}`;
  },
  table: (connection: string, schema: string, table: string) => `/tables/${seg(connection)}/${seg(schema)}/${seg(table)}`,
  tableByName: (name: string) => {
    const slash = name.indexOf('/');
    const dot = name.indexOf('.', slash + 1);
    return links.table(name.slice(0, slash), name.slice(slash + 1, dot), name.slice(dot + 1));
  },
  plan: () => '/plan',
  incidents: (query: Record<string, string> = {}) => {
    const search = new URLSearchParams(query).toString();
    return `/incidents${search ? `?${search}` : ''}`;
  },
  lineage: (connection: string, schema: string, table: string, depth?: number) =>
    `/lineage/${seg(connection)}/${seg(schema)}/${seg(table)}${depth ? `?depth=${depth}` : ''}`,
  jobs: (query: Record<string, string> = {}) => {
    const search = new URLSearchParams(query).toString();
    return `/jobs${search ? `?${search}` : ''}`;
  },
};

/** Splits `/tables/a/b/c` style paths into decoded segments. */
export function segments(path: string): string[] {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}
