import { Command, Option } from 'commander';
import { addDocsReferencesToHelp } from './docsReferences.js';
import { environmentOption, switchEnvironmentOption } from './environmentOption.js';
import { addExitCodesToHelp, exitCodesTable } from './exitCodes.js';
import type { CliIo } from './io.js';
import { CHECK_TYPES, RULE_SEVERITIES, TIME_SCALES } from '../model/index.js';

export const VERSION = '0.1.0';

/**
 * The command table. Each action runs a handler that returns an exit code; `setResult` hands it to main.ts,
 * the only place that exits. Handlers are imported when their command runs, so that `dqctl validate` or
 * `--help` does not load the server, the store engines, git and the data source drivers (~0.4 s).
 */
export function buildProgram(io: CliIo, setResult: (promise: Promise<number>) => void): Command {
  const program = new Command('dqctl')
    .description('Data quality monitoring as code: validate, plan and apply DQOps-format YAML against a live store.')
    .version(VERSION)
    // an option after a subcommand is that subcommand's (`export --out` and `export dqops-data --out` differ)
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .addHelpText(
      'after',
      `
Store selection (plan, apply, state): --database postgres://… or DQCTL_DATABASE_URL for PostgreSQL;
otherwise the embedded store (PGlite) in --state-dir (default .dqctl under the current directory).

Reference: docs/README.md in dqctl's package and repository (https://github.com/dqctl/dqctl/tree/main/docs),
one page per subject: commands, serve, checks, exit codes, settings, data sources, sensors, rules, custom code.

${exitCodesTable()}`,
    );

  const storeOptions = (command: Command) =>
    command
      .option('--database <url>', 'PostgreSQL URL of the live store (default: $DQCTL_DATABASE_URL, else the embedded store)')
      .option('--state-dir <dir>', 'folder of the embedded store (default: $DQCTL_STATE_DIR or .dqctl)')
      .option('--lock-ttl <duration>', 'locks older than this whose holder is dead are reclaimed (default: $DQCTL_LOCK_TTL or 15m)');

  program
    .command('validate')
    .description('check every file of a repository: YAML, JSON Schema, check catalog and cross-file rules; reports all errors at once')
    .argument('[dir]', 'repository folder (a DQOps user home)', '.')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'github']).default('text'))
    .option('--quiet', 'no progress bar on the terminal')
    .action((dir: string, options) => setResult(import('./commands/validate.js').then((m) => m.validateCommand(dir, options, io))));

  storeOptions(
    program
      .command('plan')
      .description('show what apply would change in the live store, Terraform-style')
      .argument('[dir]', 'repository folder (with --git-ref: the git repository, a bare one too)', '.')
      .option('--git-ref <ref>', 'plan the files of this git ref (branch, tag, commit, HEAD~1…) instead of the folder; the working copy is not touched')
      .option('--path <dir>', 'the user home is this sub-folder of the repository')
      .option('--out <file>', 'save the plan as JSON, for `dqctl apply <file>` and `dqctl show <file>`')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
      .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none')
      .option('--prune-unmanaged', 'also delete objects created through the API that are not in the repository')
      .option('--keep-drift', 'leave objects changed through the API as they are when the repository did not change them')
      .option('--allow-mass-delete', 'allow deleting more than half (or all) of the managed objects')
      .option('--quiet', 'no progress bar on the terminal'),
  ).action((dir: string, options) => setResult(import('./commands/plan.js').then((m) => m.planCommand(dir, options, io))));

  storeOptions(
    pullRequestRefs(
      program
        .command('diff')
        .description('what a pull request changes between two git refs, object by object, with the blast radius of policy changes; no live store needed'),
    )
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
      .addOption(new Option('--no-store', 'never open a live store, even with DQCTL_DATABASE_URL or DQCTL_STATE_DIR set').conflicts(['database', 'stateDir']))
      .option('--server <url>', "count the policies' reach on the tables of a running `dqctl serve`'s store (default: $DQCTL_SERVER_URL)")
      .option('--token <token>', 'bearer token for --server (default: $DQCTL_TOKEN)'),
  ).action((dir: string, options) => setResult(import('./commands/diff.js').then((m) => m.diffCommand(dir, options, io))));

  storeOptions(
    program
      .command('apply')
      .description('apply the repository (or a saved plan) to the live store, in one transaction under the store lock')
      .argument('[target]', 'repository folder, or a plan file saved by `plan --out`', '.')
      .option('--auto-approve', 'apply without asking (required when not on a terminal)')
      .option('--allow-mass-delete', 'allow deleting more than half (or all) of the managed objects')
      .option('--prune-unmanaged', 'also delete objects created through the API that are not in the repository')
      .option('--keep-drift', 'leave objects changed through the API as they are when the repository did not change them')
      .option('--lock-timeout <duration>', 'how long to wait for another apply to finish (e.g. 30s, 2m)', '30s')
      .option('--repository <dir>', 'with a saved plan: the repository folder, if not where the plan was made')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
      .option('--quiet', 'no progress bar on the terminal'),
  ).action((target: string, options) => setResult(import('./commands/apply.js').then((m) => m.applyCommand(target, options, io))));

  program
    .command('show')
    .description('render a plan saved with `plan --out`')
    .argument('<plan>', 'plan file')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .action((file: string, options) => setResult(import('./commands/show.js').then((m) => m.showCommand(file, options, io))));

  const remoteOptions = (command: Command) =>
    command
      .option('--server <url>', 'through a running `dqctl serve` at this URL (default: $DQCTL_SERVER_URL)')
      .option('--token <token>', 'bearer token for --server (default: $DQCTL_TOKEN)');

  const state = program.command('state').description('inspect the live store');
  remoteOptions(
    storeOptions(
      state
        .command('list')
        .description('list the objects of the live store with managed_by, owner and origin')
        .option('--kind <kind>', 'only this kind: source, table, rule, default_table_checks, default_column_checks, default_schedules, default_notifications')
        .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/stateList.js').then((m) => m.stateListCommand(options, io))));

  // positional options: `export --out X` is the configuration export's, `export dqops-data --out X` the history's
  const exportCommand = program.command('export').enablePositionalOptions();
  remoteOptions(
    storeOptions(
      exportCommand
        .description('write the live state as DQOps-format files (never deletes; refuses to overwrite differing files without --force)')
        .option('--out <dir>', 'folder to write into', '.')
        .option('--only-drift', 'only git-managed objects changed through the API since the last apply, at their origin files')
        .option('--kind <kind>', 'only this kind: source, table, rule, default_table_checks, default_column_checks, default_schedules, default_notifications')
        .option('--namespace <namespace>', 'only git-managed objects of this ownership namespace')
        .option('--schema-base <url-or-path>', 'where the yaml-language-server line finds the schemas (default: their https://dqctl.dev/schemas/ ids)')
        .option('--include-secrets', 'write literal secrets as they are (default: replaced by ${DQCTL_SECRET_…} references)')
        .option('--force', 'overwrite files whose content differs')
        .option('--dry-run', 'write nothing; print a unified diff of every file the export would write')
        .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/export.js').then((m) => m.exportCommand(options, io))));
  remoteOptions(
    storeOptions(
      exportCommand
        .command('dqops-data')
        .description(
          "write the stored history as DQOps's DIR/.data/ (Parquet files in DQOps's layout, names and column types); with --server, the history of that server's store, file by file",
        )
        .requiredOption('--out <dir>', 'the folder to write .data/ into')
        .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/dqopsData.js').then((m) => m.exportDqopsDataCommand(options, io))));

  storeOptions(
    program
      .command('serve')
      .description('serve the DQOps-compatible REST API (/api/…) from the live store')
      .option('--port <port>', 'TCP port', '8888')
      .option('--host <host>', 'address to listen on (without tokens: loopback only, unless --insecure)', '127.0.0.1')
      .option('--tokens <file>', 'YAML list of {name, role, token | token_sha256} (default: $DQCTL_TOKENS); roles viewer < editor < operator < admin')
      .option('--insecure', 'allow serving without tokens on a non-loopback address')
      .option('--read-only-managed', 'refuse API writes to git-managed objects (409 naming the file) instead of recording them as drift')
      .option('--body-limit <bytes>', 'largest accepted request body', String(5 * 1024 * 1024))
      .option('--gitops-body-limit <bytes>', 'largest body of POST /api/gitops/plan and /apply (plan|apply --server), once gunzipped (default 100 MB)')
      .option('--repo <dir>', 'reconcile this folder: watch it, and plan (with --auto-apply: apply) every saved change')
      .option('--git <url>', 'reconcile this git remote: clone it, fetch --branch every --interval and on the webhook')
      .option('--branch <branch>', 'with --git: the branch to follow (default main)')
      .option('--path <dir>', 'with --git: the DQOps user home inside the repository')
      .option('--interval <duration>', 'how often the loop fetches (--git), checks drift and retries a failed pass (default 60s)')
      .option('--auto-apply', 'apply what a pass plans (otherwise the status shows OutOfSync and the pending plan)')
      .option('--self-heal', 'with --auto-apply: restore objects changed through the API (drift) on the next pass')
      .option('--webhook-secret <secret>', 'enable POST /api/gitops/webhook, authenticated by an HMAC-SHA256 signature of the body with this secret (default: $DQCTL_WEBHOOK_SECRET)')
      .option('--no-schedules', "do not run the connections' schedules (check runs by schedules.*, the auto import of tables)")
      .option('--no-notifications', 'do not deliver incident notifications from this replica (another one on the same store does)')
      .addOption(new Option('--log-level <level>', 'request log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'))
      .addOption(new Option('--log-format <format>', 'log lines as JSON (one object per line) or human text (default: text on a terminal, else json)').choices(['json', 'text']))
      .option('--metrics-port <port>', 'serve GET /metrics on this port, without tokens, instead of on the API port (where it needs a viewer token when tokens are on)')
      .option('--metrics-host <host>', 'address of the --metrics-port listener (default: --host)'),
  ).action((options) => setResult(import('./commands/serve.js').then((m) => m.serveCommand(options, io))));

  storeOptions(
    program
      .command('demo')
      .description('what `npm start` runs: a demo data source for examples/shop, then validate, apply, run the checks once and serve the API')
      .argument('[dir]', 'the repository to demonstrate (default: examples/shop of this dqctl)')
      .option('--demo-database <url>', 'PostgreSQL server for the demo databases, as a user who may create databases (default: $DQCTL_DEMO_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)')
      .option('--prefix <prefix>', 'name prefix of the two demo databases (default: $DQCTL_DEMO_DATABASE_PREFIX, else dqctl_demo_)')
      .option('--no-serve', 'stop after the check run instead of serving the API')
      .option('--port <port>', 'TCP port of the API', '8888')
      .option('--host <host>', 'address the API listens on (loopback: the demo has no tokens)', '127.0.0.1')
      .addOption(new Option('--log-level <level>', 'request log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'))
      .addOption(new Option('--log-format <format>', 'log lines as JSON or human text (default: text on a terminal, else json)').choices(['json', 'text']))
      .addHelpText(
        'after',
        `
Where the demo's data comes from:
  1. SHOP_OLTP_* or ANALYTICS_DWH_* set (the variables of the example's connection files): your own databases;
     the demo makes nothing and changes no variable.
  2. Otherwise the PostgreSQL of --demo-database / DQCTL_DEMO_DATABASE_URL (default the local one), if it answers:
     the databases <prefix>shop_oltp and <prefix>analytics_dwh are made there with generated shop data that has a
     few deliberate quality problems (reused when complete and made today by this generator version, otherwise
     made again), and the connection variables plus DQCTL_SSLMODE_OVERRIDE (the files say sslmode require /
     verify-full; the demo uses the sslmode of its URL, default disable) are set for this process. Passwords are
     never printed.
  3. Otherwise no data source: the API is served all the same, and a message says how to point the demo at a
     PostgreSQL.`,
      ),
  ).action((dir: string | undefined, options) => setResult(import('./commands/demo.js').then((m) => m.demoCommand(dir, options, io))));

  storeOptions(
    program
      .command('status')
      .description('the reconcile status: repository and applied revisions, sync and health, objects not in sync, last pass, lock')
      .option('--server <url>', 'ask a running `dqctl serve --repo|--git` (default: $DQCTL_SERVER_URL); otherwise the store is read directly')
      .option('--token <token>', 'bearer token for --server (default: $DQCTL_TOKEN)')
      .option('--timeout <duration>', 'with --server: longest wait for one answer of the server, e.g. 30s, 5m (default: $DQCTL_TIMEOUT or 2m)')
      .option('--repo <dir>', 'without --server: compare this folder with the store, object by object')
      .option('--all', 'list every object, the synced ones too')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
  ).action((options) => setResult(import('./commands/status.js').then((m) => m.statusCommand(options, io))));

  const lock = program.command('lock').description('the locks of the live store: who holds them, and freeing one a killed process left');
  remoteOptions(
    storeOptions(
      lock
        .command('list')
        .description('list held locks with holder, operation, age, pid and host (opens no store)')
        .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/lock.js').then((m) => m.lockListCommand(options, io))));
  storeOptions(
    lock
      .command('release')
      .description('release a lock whose holder is dead (or, for the store lock, older than the TTL); asks first')
      .argument('<id>', 'the lock: store (PostgreSQL) or state-dir (embedded store)')
      .option('--yes', 'do not ask (required when not on a terminal)'),
  ).action((id: string, options) => setResult(import('./commands/lock.js').then((m) => m.lockReleaseCommand(id, options, io))));

  const dataSourceOptions = (command: Command) =>
    storeOptions(command)
      .option('--repository <dir>', 'the DQOps user home whose .credentials folder holds ${credential://…} secrets (default: the current folder)')
      .option('--credentials-dir <dir>', 'folder of ${credential://name} files (default: <repository>/.credentials, or $DQCTL_CREDENTIALS_DIR)')
      .option('--statement-timeout <duration>', 'longest a query on the data source may run (e.g. 30s, 5m)', '5m');

  /** The check-selecting flags of `run checks` and `collect error-samples` (checkFiltersOf maps them). */
  const checkFilterOptions = (command: Command) =>
    command
      .option('--connection <name>', 'only this connection')
      .option('--table <schema.table>', "only these tables (* wildcards, e.g. 'public.fact_*')")
      .option('--column <name>', 'only the checks of this column (* wildcards)')
      .addOption(new Option('--check-type <type>', 'only this check type').choices(CHECK_TYPES))
      .addOption(new Option('--time-scale <scale>', 'only this time scale').choices(TIME_SCALES))
      .option('--category <category>', 'only this check category (e.g. nulls)')
      .option('--check <name>', 'only this check (e.g. daily_nulls_count)');

  const importGroup = program.command('import').description('import metadata from the data sources into the live store');
  dataSourceOptions(
    importGroup
      .command('tables')
      .description("import a connection's tables and column types (type_snapshot) into the live store; existing tables keep their checks")
      .requiredOption('--connection <name>', 'the connection (as named in the live store)')
      .option('--schema <schema>', 'only this schema (* wildcards)')
      .option('--table-contains <text>', 'only tables whose name contains this text')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
  ).action((options) => setResult(import('./commands/importTables.js').then((m) => m.importTablesCommand(options, io))));
  storeOptions(
    importGroup
      .command('dqops-data')
      .argument('<dqops-user-home>', "DQOps's user home: its .data/ folder holds the history")
      .description("import DQOps's history (.data/: sensor readouts, check results, errors, statistics, error samples, incidents), keyed by DQOps's ids, in one transaction")
      .option('--dry-run', 'read and check every file, count what would be new, store nothing')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
  ).action((home: string, options) => setResult(import('./commands/dqopsData.js').then((m) => m.importDqopsDataCommand(home, options, io))));

  const collect = program.command('collect').description('collect statistics and error samples from the data sources');
  dataSourceOptions(
    collect
      .command('statistics')
      .description('profile tables: row count, nulls, distinct values, min, max, mean, text lengths and most common values, stored in the live store')
      .option('--connection <name>', 'only this connection')
      .option('--table <schema.table>', 'only these tables (* wildcards, e.g. public.fact_*)')
      .option('--column <name>', 'only this column (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
      .option('--category <category>', 'only these collector categories: volume, nulls, uniqueness, range, strings, sampling (comma-separated)')
      .option('--collector <name>', 'only these collectors, e.g. row_count,nulls_count (comma-separated)')
      .option('--with-grouping', "per data group of each table's default data grouping")
      .option('--configure-table', 'set the event timestamp column and the id (primary key) columns of each table from what was found')
      .option('--samples-limit <n>', 'how many most common values per column', '5')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
  ).action((options) => setResult(import('./commands/collectStatistics.js').then((m) => m.collectStatisticsCommand(options, io))));
  dataSourceOptions(
    checkFilterOptions(
      collect
        .command('error-samples')
        .description('store the offending values (with up to five row ids) of the checks that count failing rows, for the results API and its CSV download'),
    )
      .option('--limit <n>', 'samples per check (max_results_per_check)', '100')
      .option('--with-grouping', "name each sample by its data group of the table's default data grouping")
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
  ).action((options) => setResult(import('./commands/collectErrorSamples.js').then((m) => m.collectErrorSamplesCommand(options, io))));

  const run = program.command('run').description('run checks on the data sources');
  dataSourceOptions(
    checkFilterOptions(
      run.command('checks').description('run the effective checks (table files plus matching policies) of the selected tables and store the results'),
    )
      .option('--comparison <name>', 'only the comparison checks of this table comparison (a name in table_comparisons)')
      .addOption(new Option('--fail-at <severity>', 'exit non-zero from this severity on (1 warning, 2 error, 3 fatal; 4 execution error)').choices(RULE_SEVERITIES).default('error'))
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
      .option('--server <url>', "run as a job of a running `dqctl serve` at this URL, with its data sources, secrets and statement timeout (default: $DQCTL_SERVER_URL); Ctrl-C cancels the job")
      .option('--token <token>', 'bearer token for --server, of an operator (default: $DQCTL_TOKEN)')
      .option('--timeout <duration>', 'with --server: longest wait for one answer of the server, e.g. 30s, 5m (default: $DQCTL_TIMEOUT or 2m)'),
  ).action((options) => setResult(import('./commands/runChecks.js').then((m) => m.runChecksCommand(options, io))));

  dataSourceOptions(
    pullRequestRefs(
      program
        .command('preview')
        .description('what the checks a pull request adds or modifies would do: a backtest on the stored readouts and a live run now (stores nothing)'),
    )
      .option('--days <n>', 'backtest the readouts of the last N days', '30')
      .option('--no-live', 'run nothing on the data sources (every live outcome is "not run")')
      .option('--live-limit <n>', 'run live checks on at most N tables (the others are "not run", saying so)', '50')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
      .option('--detailed-exitcode', 'exit 2 when a check would fail now (live: error or fatal)')
      .option('--server <url>', 'ask a running `dqctl serve` at this URL: its store holds the history, its connections and secrets run the live checks (default: $DQCTL_SERVER_URL)')
      .option('--token <token>', 'bearer token for --server; live checks need an operator (default: $DQCTL_TOKEN)')
      .option('--timeout <duration>', 'with --server: longest wait for one answer of the server, e.g. 30s, 5m (default: $DQCTL_TIMEOUT or 2m)'),
  ).action((dir: string, options) => setResult(import('./commands/preview.js').then((m) => m.previewCommand(dir, options, io))));

  remoteOptions(
  storeOptions(
    program
      .command('statistics')
      .description('the statistics of the selected tables and columns from their latest collection (see collect statistics)')
      .option('--connection <name>', 'only this connection (* wildcards)')
      .option('--table <schema.table>', 'only these tables (* wildcards)')
      .option('--column <name>', 'only these columns (* wildcards)')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/statistics.js').then((m) => m.statisticsCommand(options, io))));

  remoteOptions(
  storeOptions(
    program
      .command('results')
      .description('the latest result of every check of the selected tables')
      .option('--connection <name>', 'only this connection (* wildcards)')
      .option('--table <schema.table>', 'only these tables (* wildcards)')
      .option('--column <name>', 'only this column')
      .addOption(new Option('--check-type <type>', 'only this check type').choices(CHECK_TYPES))
      .option('--check <name>', 'only this check')
      .option('--comparison <name>', 'only the comparison checks of this table comparison')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/results.js').then((m) => m.resultsCommand(options, io))));

  const incidents = program.command('incidents').description('incidents: failed checks grouped by the incident_grouping of their connection');
  remoteOptions(
    storeOptions(
      incidents
        .command('list')
        .description('the incidents, newest first (all statuses unless --status)')
        .option('--connection <name>', 'only this connection')
        .option('--status <status...>', 'only these statuses: open, acknowledged, resolved, muted')
        .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/incidents.js').then((m) => m.incidentsListCommand(options, io))));
  for (const [verb, what] of [
    ['acknowledge', 'mark an incident acknowledged (someone is on it)'],
    ['resolve', 'mark an incident resolved; a new failure then opens a new incident'],
    ['mute', 'mute an incident: its failures are absorbed silently for mute_for_days'],
    ['reopen', 'set an incident back to open'],
  ] as const) {
    remoteOptions(
      storeOptions(
        incidents
          .command(verb)
          .description(`${what}; notifies the addresses of that status`)
          .argument('<id>', 'the incident id, or a unique start of it as git takes a commit (see dqctl incidents list)')
          .option('--connection <name>', 'the connection of the incident (with --server, saves a search)')
          .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
      ),
    ).action((id: string, options) => setResult(import('./commands/incidents.js').then((m) => m.incidentStatusCommand(verb, id, options, io))));
  }

  const notifications = program.command('notifications').description('the notification outbox: messages of incident events and their delivery');
  remoteOptions(
    storeOptions(
      notifications
        .command('list')
        .description('the messages, newest first: pending, delivered or failed (and why)')
        .option('--failed', 'only the messages given up on (same as --status failed)')
        .addOption(new Option('--status <status>', 'only this status').choices(['pending', 'delivered', 'failed']))
        .option('--limit <n>', 'at most this many', '100')
        .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
    ),
  ).action((options) => setResult(import('./commands/incidents.js').then((m) => m.notificationsListCommand(options, io))));

  // plan and apply run through a server when given one (remote.ts)
  for (const name of ['plan', 'apply']) {
    program.commands
      .find((command) => command.name() === name)!
      .option('--server <url>', 'run through a running `dqctl serve` at this URL (default: $DQCTL_SERVER_URL): validated here, planned and applied there')
      .option('--token <token>', 'bearer token for --server (default: $DQCTL_TOKEN)')
      .option('--timeout <duration>', 'with --server: longest wait for one answer of the server, e.g. 30s, 5m (default: $DQCTL_TIMEOUT or 2m)');
  }

  storeOptions(
    program
      .command('history')
      .description('the apply history, newest first: who applied, when, which commit (and whether the work tree had uncommitted changes), what changed')
      .option('--limit <n>', 'how many applies to list (1-1000)', '20')
      .option('--server <url>', 'ask a running `dqctl serve` (GET /api/gitops/history; default: $DQCTL_SERVER_URL); otherwise the store is read directly')
      .option('--token <token>', 'bearer token for --server (default: $DQCTL_TOKEN)')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
  ).action((options) => setResult(import('./commands/history.js').then((m) => m.historyCommand(options, io))));

  // every command that loads the repository reads its ${var.…} from the environment given with --env
  const named = (name: string) => program.commands.find((command) => command.name() === name)!;
  for (const name of ['validate', 'plan', 'apply', 'diff', 'preview', 'export', 'serve', 'status']) environmentOption(named(name));
  for (const name of ['apply', 'serve']) switchEnvironmentOption(named(name));

  addExitCodesToHelp(program);
  addDocsReferencesToHelp(program);
  return program;
}

/** The git repository and the two refs of a pull request, as `diff` and `preview` take them. */
function pullRequestRefs(command: Command): Command {
  return command
    .argument('[dir]', 'the git repository (a working copy or a bare repository)', '.')
    .requiredOption('--base <ref>', 'the revision the change starts from (e.g. origin/main)')
    .option('--head <ref>', 'the revision with the change', 'HEAD')
    .option('--path <dir>', 'the user home is this sub-folder of the repository');
}
