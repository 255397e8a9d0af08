import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, parseDocument, type Document, type YAMLMap } from 'yaml';
import { DataSources } from '../datasource/index.js';
import { isJsonObject, type JsonObject } from '../model/index.js';
import { DEMO_CONNECTIONS, type DemoConnection } from './demoConnections.js';
import type { DemoFilesConnection } from './demoFiles.js';

/**
 * A DuckDB-flavoured copy of the demo's repository (the repository itself is never changed): the example's
 * connections become `provider_type: duckdb` connections reading the demo files (`read_mode: files`, a folder
 * per schema); everything else of the connection files (schedules, labels, comments) is kept. Left out of the
 * copy, each with its reason, because dqctl cannot run them on files: table comparisons (a DuckDB side is not
 * supported yet), checks that read another table by name (lookups, sum matches), and custom SQL checks (`sql_condition`, `sql_expression`) written for PostgreSQL that DuckDB
 * refuses, found by running each one's SQL on its table's files.
 */
export interface LeftOutCheck {
  /** `connection/schema.table[.column]: check` or `…: table comparison name`. */
  what: string;
  reason: string;
}

export interface DemoFilesHome {
  home: string;
  leftOut: LeftOutCheck[];
}

const CHECK_CONTAINERS = ['profiling_checks', 'monitoring_checks', 'partitioned_checks'];

export async function makeDemoFilesHome(repository: string, home: string, connections: DemoFilesConnection[]): Promise<DemoFilesHome> {
  await rm(home, { recursive: true, force: true });
  await cp(repository, home, { recursive: true, filter: (source) => !/[\\/](\.git|\.dqctl|\.credentials)$/.test(source) });
  const leftOut: LeftOutCheck[] = [];
  const dataSources = new DataSources({ env: {} });
  try {
    for (const files of connections) {
      const folder = join(home, 'sources', files.connection);
      const connectionFile = join(folder, 'connection.dqoconnection.yaml');
      let entries: string[];
      try {
        entries = await readdir(folder);
      } catch {
        continue; // a repository without this connection
      }
      const spec = await rewriteConnection(connectionFile, files);
      for (const name of entries.filter((entry) => entry.endsWith('.dqotable.yaml'))) {
        const file = join(folder, name);
        const document = parseDocument(await readFile(file, 'utf8'));
        const table = name.slice(0, -'.dqotable.yaml'.length);
        const dot = table.indexOf('.');
        const [schema, tableName] = [table.slice(0, dot), table.slice(dot + 1)];
        leftOut.push(...(await leaveOut(document, { connection: files.connection, schema, table: tableName, spec, dataSources })));
        await writeFile(file, document.toString());
      }
    }
  } finally {
    await dataSources.close();
  }
  return { home, leftOut };
}

async function rewriteConnection(file: string, files: DemoFilesConnection): Promise<JsonObject> {
  const document = parseDocument(await readFile(file, 'utf8'));
  const spec = document.get('spec') as YAMLMap;
  spec.set('provider_type', 'duckdb');
  spec.delete('postgresql');
  const duckdb = { read_mode: 'files', files_format_type: files.format, storage_type: 'local', directories: files.directories, ...(files.format === 'csv' ? { csv: { header: true } } : {}) };
  spec.set('duckdb', document.createNode(duckdb));
  // the warehouse's import of new tables would find none in these folders but the demo's own
  spec.delete('auto_import_tables');
  document.commentBefore = ` Made by dqctl demo from ${DEMO_CONNECTIONS.find((c) => c.connection === files.connection)?.connection}: its PostgreSQL connection read as the demo's ${files.format} files.`;
  await writeFile(file, document.toString());
  return document.toJS().spec as JsonObject;
}

interface ProbeContext {
  connection: DemoConnection['connection'];
  schema: string;
  table: string;
  spec: JsonObject;
  dataSources: DataSources;
}

async function leaveOut(document: Document, context: ProbeContext): Promise<LeftOutCheck[]> {
  const left: LeftOutCheck[] = [];
  const name = `${context.connection}/${context.schema}.${context.table}`;
  const comparisons = document.getIn(['spec', 'table_comparisons']);
  if (isMap(comparisons)) {
    for (const item of comparisons.items) left.push({ what: `${name}: table comparison ${String(item.key)}`, reason: 'table comparisons with a DuckDB side are not supported yet' });
    document.deleteIn(['spec', 'table_comparisons']);
  }
  const containers: Array<{ path: unknown[]; column?: string }> = CHECK_CONTAINERS.map((c) => ({ path: ['spec', c] }));
  const columns = document.getIn(['spec', 'columns']);
  if (isMap(columns)) for (const item of columns.items) for (const c of CHECK_CONTAINERS) containers.push({ path: ['spec', 'columns', item.key, c], column: String(item.key) });
  for (const { path, column } of containers) {
    const container = document.getIn(path);
    if (!isMap(container)) continue;
    for (const scale of container.items) {
      if (!isMap(scale.value)) continue;
      const where = `${name}${column ? `.${column}` : ''}`;
      scale.value.delete('comparisons');
      for (const category of scale.value.items) {
        if (!isMap(category.value)) continue;
        for (const check of [...category.value.items]) {
          const parameters = (check.value as YAMLMap | undefined)?.toJSON?.()?.parameters as JsonObject | undefined;
          const other = isJsonObject(parameters) ? (parameters.foreign_table ?? parameters.referenced_table) : undefined;
          if (typeof other !== 'string') continue;
          left.push({ what: `${where}: ${String(check.key)}`, reason: `reads the table ${other} by name, which a DuckDB files connection cannot resolve yet` });
          category.value.delete(check.key);
        }
      }
      const customSql = scale.value.get('custom_sql');
      if (!isMap(customSql)) continue;
      for (const check of [...customSql.items]) {
        const parameters = (check.value as YAMLMap | undefined)?.toJSON?.()?.parameters as JsonObject | undefined;
        const failure = await probe(parameters, column, context);
        if (failure === undefined) continue;
        left.push({ what: `${where}: ${String(check.key)}`, reason: `DuckDB cannot run its SQL: ${failure}` });
        customSql.delete(check.key);
      }
      if (customSql.items.length === 0) scale.value.delete('custom_sql');
    }
  }
  return left;
}

/**
 * Runs a custom SQL check's condition or expression on its table's files, DQOps's tokens replaced as the
 * sensors replace them ({alias} is the table's alias `analyzed_table`); undefined when DuckDB runs it.
 */
async function probe(parameters: JsonObject | undefined, column: string | undefined, context: ProbeContext): Promise<string | undefined> {
  if (!isJsonObject(parameters)) return undefined;
  const condition = typeof parameters.sql_condition === 'string' ? parameters.sql_condition : undefined;
  const expression = typeof parameters.sql_expression === 'string' ? parameters.sql_expression : undefined;
  if (condition === undefined && expression === undefined) return undefined;
  const source = context.dataSources.get(context.connection, context.spec);
  const target = await source.sqlTarget(context.schema, context.table);
  const relation = target.relation ?? `${target.dialect.quoteIdent(context.schema)}.${target.dialect.quoteIdent(context.table)}`;
  const tokens = (sql: string) =>
    sql.replace(/\{(alias|table|column)\}/g, (token, name: string) =>
      name === 'alias' ? 'analyzed_table' : name === 'table' ? relation : column !== undefined ? `analyzed_table.${target.dialect.quoteIdent(column)}` : token,
    );
  const sql = condition !== undefined ? `select count(*) from ${relation} as analyzed_table where (${tokens(condition)})` : `select (${tokens(expression!)}) from ${relation} as analyzed_table`;
  try {
    await source.query(sql);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
