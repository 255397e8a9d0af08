/**
 * The shapes DQOps's published example user homes hold (written here by hand, not copied): providers dqctl does
 * not run, a cron DQOps loads but never schedules, file formats, statistics settings, advanced properties,
 * schedule overrides, the check keys a policy leaves behind, and the settings/ folder with its default
 * schedules, default notifications and the files dqctl does not read. All of it must validate and be kept.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import type { DesiredState } from '../../src/manifest/desiredState.js';

const FILES: Record<string, string> = {
  '.DQO_USER_HOME': '',
  'sources/health_stats/connection.dqoconnection.yaml': `# yaml-language-server: $schema=https://cloud.dqops.com/dqo-yaml-schema/ConnectionYaml-schema.json
apiVersion: dqo/v1
kind: source
spec:
  provider_type: bigquery
  bigquery:
    source_project_id: public-data-project
    authentication_mode: google_application_credentials
  schedules:
    profiling:
      cron_expression: 0 0 0 * *
    monitoring_daily:
      cron_expression: 0 12 1 * *
  schedule_on_instance: instance-a
  incident_grouping:
    grouping_level: table_dimension_category
    minimum_severity: warning
    max_incident_length_days: 60
    mute_for_days: 60
  advanced_properties:
    catalog_id: "42"
`,
  'sources/files/connection.dqoconnection.yaml': `apiVersion: dqo/v1
kind: source
spec:
  provider_type: duckdb
  duckdb:
    read_mode: in_memory
    files_format_type: csv
`,
  'sources/files/files.prices.csv.dqotable.yaml': `apiVersion: dqo/v1
kind: table
spec:
  do_not_collect_error_samples_in_profiling: true
  always_collect_error_samples_in_monitoring: false
  statistics:
    volume:
      row_count:
        disabled: true
  schedules_override:
    monitoring_daily:
      cron_expression: 30 6 * * *
  profiling_checks:
    volume:
      profile_row_count:
        default_check: true
        policy_last_modified: 2024-05-01T10:00:00Z
        warning:
          min_count: 1
  columns:
    price:
      type_snapshot:
        column_type: DOUBLE
        nullable: true
        nested: false
      statistics:
        nulls:
          nulls_count:
            disabled: true
      advanced_properties:
        unit: EUR
  file_format:
    csv:
      header: true
      delim: ","
      auto_detect: true
    file_paths:
      - prices/*.csv
  advanced_properties:
    owner_team: pricing
`,
  'patterns/Detect empty tables daily.dqotablepattern.yaml': `apiVersion: dqo/v1
kind: default_table_checks
spec:
  priority: 1000
  monitoring_checks:
    daily:
      volume:
        daily_row_count:
          warning:
            min_count: 1
`,
  'rules/requirements.txt': 'numpy\n',
  'settings/defaultschedules.dqoschedules.yaml': `# yaml-language-server: $schema=https://cloud.dqops.com/dqo-yaml-schema/DefaultSchedulesYaml-schema.json
apiVersion: dqo/v1
kind: default_schedules
spec:
  profiling:
    cron_expression: 0 1 1 * *
  monitoring_daily:
    cron_expression: 0 12 * * *
  partitioned_daily:
    cron_expression: 0 12 * * *
    disabled: true
`,
  'settings/defaultnotifications.dqonotifications.yaml': `apiVersion: dqo/v1
kind: default_notifications
spec:
  incident_opened_addresses: dq-team@example.com
  incident_resolved_addresses: https://hooks.example.com/dq
  filtered_notifications:
    fact tables:
      priority: 10
      process_additional_filters: true
      filter:
        table: fact_*
        highest_severity: 3
      target:
        incident_opened_addresses: oncall@example.com
`,
  // DQOps's other settings files: read by DQOps, not by dqctl (older default checks, webhooks, dashboards)
  'settings/defaultchecks.dqochecks.yaml': 'apiVersion: dqo/v1\nkind: default_checks\nspec:\n  profiling:\n    table: {}\n',
  'settings/defaultwebhooks.dqowebhooks.yaml': 'apiVersion: dqo/v1\nkind: notification_webhooks\nspec: {}\n',
  'settings/dashboardslist.dqodashboards.yaml': 'apiVersion: dqo/v1\nkind: dashboards\nspec: []\n',
};

describe('the shapes of DQOps example user homes', () => {
  let home: string;
  let state: DesiredState;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'dqctl-dqops-home-'));
    for (const [path, text] of Object.entries(FILES)) {
      await mkdir(dirname(join(home, path)), { recursive: true });
      await writeFile(join(home, path), text);
    }
    state = await loadRepository(home);
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('validate with no error; the only finding is the cron DQOps loads but never schedules', () => {
    expect(state.diagnostics.map((d) => [d.severity, d.code, d.range?.filename])).toEqual([
      ['warning', 'invalid_cron', 'sources/health_stats/connection.dqoconnection.yaml'],
    ]);
    expect(state.objects.map((o) => `${o.kind}:${o.name}`)).toEqual([
      'source:files',
      'source:health_stats',
      'table:files/files.prices.csv',
      'default_table_checks:Detect empty tables daily',
      'default_schedules:default',
      'default_notifications:default',
    ]);
  });

  it('keep the keys dqctl does not act on, as written', () => {
    const table = state.objects.find((o) => o.kind === 'table')!.spec as any;
    expect(table.file_format).toEqual({ csv: { auto_detect: true, delim: ',', header: true }, file_paths: ['prices/*.csv'] });
    expect(table.statistics).toEqual({ volume: { row_count: { disabled: true } } });
    expect(table.schedules_override).toEqual({ monitoring_daily: { cron_expression: '30 6 * * *' } });
    expect(table.advanced_properties).toEqual({ owner_team: 'pricing' });
    expect(table.do_not_collect_error_samples_in_profiling).toBe(true);
    expect(table.profiling_checks.volume.profile_row_count).toMatchObject({ default_check: true, warning: { min_count: 1 } });
    expect(table.columns.price).toMatchObject({ advanced_properties: { unit: 'EUR' }, statistics: { nulls: { nulls_count: { disabled: true } } } });
    expect(table.columns.price.type_snapshot).toEqual({ column_type: 'DOUBLE', nullable: true, nested: false });
    const source = state.objects.find((o) => o.name === 'health_stats')!.spec as any;
    expect(source).toMatchObject({ schedule_on_instance: 'instance-a', advanced_properties: { catalog_id: '42' } });
  });

  it('read settings/ as DQOps does: default schedules and default notifications become objects', () => {
    const schedules = state.objects.find((o) => o.kind === 'default_schedules')!;
    expect(schedules.origin.file).toBe('settings/defaultschedules.dqoschedules.yaml');
    expect(schedules.spec).toEqual({
      monitoring_daily: { cron_expression: '0 12 * * *' },
      partitioned_daily: { cron_expression: '0 12 * * *', disabled: true },
      profiling: { cron_expression: '0 1 1 * *' },
    });
    const notifications = state.objects.find((o) => o.kind === 'default_notifications')!;
    expect(notifications.spec).toMatchObject({
      incident_opened_addresses: 'dq-team@example.com',
      filtered_notifications: { 'fact tables': { priority: 10, filter: { table: 'fact_*', highest_severity: 3 } } },
    });
  });

  it('report a misspelled key of the settings files, and a settings kind in a file of another name', async () => {
    const broken = await mkdtemp(join(tmpdir(), 'dqctl-dqops-settings-'));
    try {
      await mkdir(join(broken, 'settings'), { recursive: true });
      await writeFile(
        join(broken, 'settings/defaultnotifications.dqonotifications.yaml'),
        'apiVersion: dqo/v1\nkind: default_notifications\nspec:\n  incident_opend_addresses: a@example.com\n',
      );
      await writeFile(join(broken, 'settings/team.dqoschedules.yaml'), 'apiVersion: dqo/v1\nkind: default_schedules\nspec: {}\n');
      await writeFile(
        join(broken, 'settings/defaultschedules.dqoschedules.yaml'),
        'apiVersion: dqo/v1\nkind: default_schedules\nspec:\n  monitoring_daily:\n    cron_expression: "0 25 * * *"\n',
      );
      const result = await loadRepository(broken);
      expect(result.diagnostics.map((d) => [d.severity, d.code, d.range?.filename])).toEqual([
        ['error', 'unknown_key', 'settings/defaultnotifications.dqonotifications.yaml'],
        ['warning', 'invalid_cron', 'settings/defaultschedules.dqoschedules.yaml'],
        ['warning', 'unrecognized_file', 'settings/team.dqoschedules.yaml'],
      ]);
      expect(result.diagnostics[0].summary).toContain('incident_opend_addresses');
      expect(result.objects.map((o) => `${o.kind}:${o.name}`)).toEqual(['default_schedules:default']);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
