import { useState } from 'preact/hooks';
import { ApiError, request, setToken, type Profile } from '../api';

/** The sign-in form of a server with tokens: the token is checked against the API before it is kept. */
export function SignIn({ onSignedIn, expired }: { onSignedIn: (profile: Profile) => void; expired: boolean }) {
  const [token, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const profile = await request<Profile>('GET', '/api/environment/profile', { token: token.trim() });
      setToken(token.trim());
      onSignedIn(profile);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? 'This token is not valid on this server.' : `Could not sign in: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>Sign in to dqctl</h1>
      {expired ? <p role="status">Your session ended or the token was refused; sign in again.</p> : null}
      <p>This server needs an API token. Ask its administrator for one (dqctl serve --tokens FILE).</p>
      <form onSubmit={submit}>
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autoComplete="current-password" required value={token} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error ? (
          <p role="alert" class="tone-bad">
            {error}
          </p>
        ) : null}
      </form>
    </main>
  );
}
