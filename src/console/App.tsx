import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, onUnauthorized, request, setToken, type Connection, type Profile } from './api';
import { ErrorBox, useLoad } from './components/common';
import { lazyView } from './components/lazyView';
import { ProfileContext } from './profile';
import { links, segments, useLocation, type Location } from './router';
import { Incidents } from './views/Incidents';
import { Jobs } from './views/Jobs';
import { Objects } from './views/Objects';
import { Overview } from './views/Overview';
import { Plan } from './views/Plan';
import { SignIn } from './views/SignIn';

// the views with a heavy library load on first use: the table page (uPlot), the lineage views (dagre)
const Table = lazyView(() => import('./views/Table').then((m) => m.Table), 'the table page');
const Lineage = lazyView(() => import('./views/Lineage').then((m) => m.Lineage), 'the lineage graph');
const LineageIndex = lazyView(() => import('./views/Lineage').then((m) => m.LineageIndex), 'the lineage');

type Session = { state: 'checking' } | { state: 'signed-in'; profile: Profile } | { state: 'needs-token'; expired: boolean } | { state: 'failed'; error: ApiError };

export function App() {
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const location = useLocation();
  useEffect(() => {
    request<Profile>('GET', '/api/environment/profile').then(
      (profile) => setSession({ state: 'signed-in', profile }),
      (error: ApiError) => setSession(error.status === 401 ? { state: 'needs-token', expired: false } : { state: 'failed', error }),
    );
    // the one place a 401 lands: forget the token and ask again
    return onUnauthorized(() => {
      setToken(null);
      setSession({ state: 'needs-token', expired: true });
    });
  }, []);
  if (session.state === 'checking') return <p class="loading">Connecting to the dqctl server…</p>;
  if (session.state === 'failed') return <ErrorBox error={session.error} what="the dqctl server" />;
  if (session.state === 'needs-token') return <SignIn expired={session.expired} onSignedIn={(profile) => setSession({ state: 'signed-in', profile })} />;
  const signOut = () => {
    setToken(null);
    setSession({ state: 'needs-token', expired: false });
  };
  return <Shell location={location} profile={session.profile} signOut={signOut} />;
}

const NAV: Array<[string, string, (path: string) => boolean]> = [
  ['Overview', links.overview(), (p) => p === '/'],
  ['Objects', links.objects(), (p) => p.startsWith('/objects') || p.startsWith('/tables/')],
  ['Plan and drift', links.plan(), (p) => p.startsWith('/plan')],
  ['Incidents', links.incidents(), (p) => p.startsWith('/incidents')],
  ['Lineage', '/lineage', (p) => p.startsWith('/lineage')],
  ['Jobs', links.jobs(), (p) => p.startsWith('/jobs')],
];

function Shell({ location, profile, signOut }: { location: Location; profile: Profile; signOut: () => void }) {
  const title = titleOf(location.path);
  useEffect(() => {
    document.title = `${title} · dqctl`;
  }, [title]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          dqctl
        </a>
        <nav aria-label="views">
          <ul>
            {NAV.map(([label, href, active]) => (
              <li key={href}>
                <a href={href} aria-current={active(location.path) ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {profile.user} ({profile.account_role})
          {profile.user !== 'anonymous' ? (
            <button type="button" class="link" onClick={signOut}>
              Sign out
            </button>
          ) : null}
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <ProfileContext.Provider value={profile}>
          <View location={location} profile={profile} />
        </ProfileContext.Provider>
      </main>
    </>
  );
}

function titleOf(path: string): string {
  const parts = segments(path);
  if (parts.length === 0) return 'Overview';
  if (parts[0] === 'tables' && parts.length === 4) return `${parts[1]}/${parts[2]}.${parts[3]}`;
  return NAV.find(([, href]) => href === `/${parts[0]}`)?.[0] ?? 'Not found';
}

function View({ location, profile }: { location: Location; profile: Profile }) {
  const parts = segments(location.path);
  switch (parts[0]) {
    case undefined:
      return <Overview />;
    case 'objects':
      return <Objects location={location} />;
    case 'tables':
      if (parts.length === 4) return <Table key={location.path} location={location} connection={parts[1]} schema={parts[2]} table={parts[3]} profile={profile} />;
      break;
    case 'plan':
      return <Plan />;
    case 'incidents':
      return <IncidentsView location={location} profile={profile} />;
    case 'lineage':
      if (parts.length === 4) return <Lineage key={location.path} location={location} connection={parts[1]} schema={parts[2]} table={parts[3]} />;
      return <LineageIndex location={location} />;
    case 'jobs':
      return <Jobs profile={profile} location={location} />;
  }
  return (
    <>
      <h1>Not found</h1>
      <p>
        This console has no page at {location.path}. <a href="/">Go to the overview</a>.
      </p>
    </>
  );
}

function IncidentsView({ location, profile }: { location: Location; profile: Profile }) {
  const connections = useLoad('connections', () => get<Connection[]>('/api/connections'));
  if (connections.error) return <ErrorBox error={connections.error} what="the connections" />;
  if (!connections.data) return <p class="loading">Loading…</p>;
  return <Incidents location={location} profile={profile} connections={connections.data.flatMap((c) => (c.connection_name === undefined ? [] : [c.connection_name]))} />;
}
