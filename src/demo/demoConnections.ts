/**
 * The example's two connections and the environment variables their connection files refer to
 * (`host: ${SHOP_OLTP_HOST}` …). The demo decides from these variables whether a real data source is configured
 * (any of them set: yes, and the demo leaves everything alone), and sets all of them, plus the sslmode override,
 * when it points the connections at its own databases.
 */
export interface DemoConnection {
  /** The connection's name in examples/shop (its folder under sources/). */
  connection: 'shop_oltp' | 'analytics_dwh';
  /** Prefix of the variables the connection file refers to. */
  envPrefix: 'SHOP_OLTP' | 'ANALYTICS_DWH';
}

export const DEMO_CONNECTIONS: readonly DemoConnection[] = [
  { connection: 'shop_oltp', envPrefix: 'SHOP_OLTP' },
  { connection: 'analytics_dwh', envPrefix: 'ANALYTICS_DWH' },
];

export const CONNECTION_FIELDS = ['HOST', 'PORT', 'DATABASE', 'USER', 'PASSWORD'] as const;

/** Every variable the example's connection files refer to, e.g. SHOP_OLTP_HOST. */
export function connectionVariables(): string[] {
  return DEMO_CONNECTIONS.flatMap(({ envPrefix }) => CONNECTION_FIELDS.map((field) => `${envPrefix}_${field}`));
}

/** The variables of the example's connections that are set (to anything, even empty). */
export function configuredConnectionVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  return connectionVariables().filter((name) => env[name] !== undefined);
}
