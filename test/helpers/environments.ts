import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Turns a copy of examples/shop into a repository with two environments: the error threshold of the orders
 * row count and the shop_oltp connection's sslmode become variables (`${var.orders_min}` 5000 in prod, 10 in
 * dev; `${var.oltp_sslmode}` require / disable). With --env prod it loads exactly as examples/shop.
 */
export const ORDERS_FILE = 'sources/shop_oltp/public.orders.dqotable.yaml';
export const OLTP_CONNECTION_FILE = 'sources/shop_oltp/connection.dqoconnection.yaml';

export const ENVIRONMENTS_BLOCK = `  environments:
    dev:
      vars:
        orders_min: 10
        oltp_sslmode: disable
    prod:
      vars:
        orders_min: 5000
        oltp_sslmode: require
`;

export async function addEnvironments(repo: string): Promise<void> {
  await appendFile(join(repo, 'dqctl.yaml'), ENVIRONMENTS_BLOCK);
  await replaceLine(repo, ORDERS_FILE, '            min_count: 5000', '            min_count: ${var.orders_min}');
  await replaceLine(repo, OLTP_CONNECTION_FILE, '    sslmode: require', '    sslmode: ${var.oltp_sslmode}');
}

/** Replaces the one line of `file` that is exactly `line` (refuses when it is not there exactly once). */
export async function replaceLine(repo: string, file: string, line: string, replacement: string): Promise<void> {
  const path = join(repo, file);
  const lines = (await readFile(path, 'utf8')).split('\n');
  const at = lines.flatMap((l, i) => (l === line ? [i] : []));
  if (at.length !== 1) throw new Error(`${file}: ${JSON.stringify(line)} is there ${at.length} times, not once`);
  lines[at[0]] = replacement;
  await writeFile(path, lines.join('\n'));
}
