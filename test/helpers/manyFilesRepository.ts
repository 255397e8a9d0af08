import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXAMPLE } from './cli.js';
import { addEnvironments, ORDERS_FILE } from './environments.js';

/**
 * A copy of examples/shop with two environments (helpers/environments.ts) and `tables` more table files (copies
 * of the orders table), findings spread over many of them: YAML syntax, an empty file, a kind that does not match,
 * an unknown field, a quoted number, a NUL, a variable no environment defines, tables of a connection nobody
 * declares, and variables that load. For the parse workers' tests, which compare it loaded with and without them.
 */
export async function manyFilesRepository(repo: string, tables: number): Promise<void> {
  await cp(EXAMPLE, repo, { recursive: true });
  await addEnvironments(repo);
  const orders = await readFile(join(repo, ORDERS_FILE), 'utf8');
  await mkdir(join(repo, 'sources', 'ghost'), { recursive: true });
  for (let i = 0; i < tables; i++) {
    let text = orders.replace('  priority: 1\n', `  priority: ${(i % 9) + 1}\n`);
    let folder = 'shop_oltp';
    if (i % 37 === 5) text = text.replace('spec:\n', 'spec: [unclosed\n');
    else if (i % 41 === 6) text = '';
    else if (i % 43 === 7) text = text.replace('kind: table', 'kind: source');
    else if (i % 31 === 8) text = text.replace('  stage: source\n', '  stage: source\n  no_such_field: 1\n');
    else if (i % 29 === 9) text = text.replace('            min_count: 50000', '            min_count: "50000"');
    else if (i % 53 === 10) text = text.replace('  stage: source\n', '  stage: "a\\0b"\n');
    else if (i % 47 === 11) text = text.replace('            min_count: 50000', '            min_count: ${var.nowhere}');
    else if (i % 23 === 12) folder = 'ghost';
    await writeFile(join(repo, 'sources', folder, `public.generated_${String(i).padStart(4, '0')}.dqotable.yaml`), text);
  }
}
