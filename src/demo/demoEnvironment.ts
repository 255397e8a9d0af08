import { SSLMODE_OVERRIDE_VARIABLE, withSslmodeOverrides } from '../datasource/sslmodeOverride.js';
import { DEMO_CONNECTIONS } from './demoConnections.js';
import { demoDatabaseName } from './demoDatabases.js';
import type { DemoServer } from './demoServer.js';

/**
 * The environment that points the example's connections at the demo databases: SHOP_OLTP_HOST … PASSWORD and
 * ANALYTICS_DWH_HOST … PASSWORD, and DQCTL_SSLMODE_OVERRIDE for the two connections (their files say
 * `require` / `verify-full`, which a local server without TLS cannot give; the schema allows no reference
 * there). The values include the password: set them, never print them (`describeDemoEnvironment` does not).
 */
export function demoEnvironment(server: DemoServer, prefix: string, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const { connection, envPrefix } of DEMO_CONNECTIONS) {
    vars[`${envPrefix}_HOST`] = server.host;
    vars[`${envPrefix}_PORT`] = String(server.port);
    vars[`${envPrefix}_DATABASE`] = demoDatabaseName(prefix, connection);
    vars[`${envPrefix}_USER`] = server.user;
    vars[`${envPrefix}_PASSWORD`] = server.password;
  }
  vars[SSLMODE_OVERRIDE_VARIABLE] = withSslmodeOverrides(
    env[SSLMODE_OVERRIDE_VARIABLE],
    DEMO_CONNECTIONS.map(({ connection }) => [connection, server.sslmode] as const),
  );
  return vars;
}

/** The variables set, with the passwords left out. */
export function describeDemoEnvironment(vars: Record<string, string>): string {
  return Object.keys(vars)
    .map((name) => (name.endsWith('_PASSWORD') ? `${name}=(sensitive)` : `${name}=${vars[name]}`))
    .join(' ');
}
