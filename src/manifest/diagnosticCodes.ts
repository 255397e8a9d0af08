import { VIOLATION_CODES } from '../schema/schemaViolation.js';

/**
 * Every diagnostic code `validate` can report, with its severity and meaning: the registry the table of docs/exit-codes.md
 * is checked against (a test fails when a code is not documented).
 */
export const LOADER_DIAGNOSTICS = {
  yaml_syntax: { severity: 'error', description: 'The file is not well-formed YAML.' },
  yaml_alias_expansion: { severity: 'error', description: 'YAML anchors and aliases expand to more than a million values ("billion laughs").' },
  too_deeply_nested: { severity: 'error', description: 'A document nested deeper than 100 levels of mappings and lists; it is not read.' },
  duplicate_key: { severity: 'error', description: 'A key appears twice in one mapping.' },
  quoted_scalar: { severity: 'warning', description: 'A quoted number or boolean (`min_count: "1000"`) where the schema wants one: read as that number or boolean, as DQOps (Jackson) does; write it without quotes.' },
  not_a_document: { severity: 'error', description: 'The file is empty or does not hold a mapping.' },
  wrong_api_version: { severity: 'error', description: 'apiVersion is missing or is not dqo/v1.' },
  wrong_kind: { severity: 'error', description: 'kind is missing or unknown.' },
  kind_mismatch: { severity: 'error', description: 'kind does not match the file name (a .dqotable.yaml file must hold kind: table).' },
  file_name_invalid: { severity: 'error', description: 'A name in the path does not decode (%XX) or is empty, or a table file name has no schema part.' },
  unstorable_text: {
    severity: 'error',
    description: 'A NUL character or an unpaired UTF-16 surrogate (a "\\0" or "\\ud800" escape, a %00 in a file or folder name, a NUL in a rule\'s .py file): the live store cannot hold it.',
  },
  unstorable_number: { severity: 'error', description: 'A number JSON cannot hold (.inf, -.inf, .nan): the live store would keep null instead.' },
  unrecognized_file: { severity: 'warning', description: 'A YAML file that is not a DQOps file, or a DQOps file in the wrong folder; it is ignored.' },
  symlink_outside_repository: { severity: 'error', description: 'A symbolic link leads out of the repository; it is not read.' },
  symlink_loop: { severity: 'warning', description: 'A symbolic link leads to a folder read already; it is not read twice.' },
  unreadable_file: { severity: 'error', description: 'A file cannot be read (a broken link, permissions).' },
  file_too_large: { severity: 'error', description: 'A file over 10 MB; it is not read.' },
  orphan_rule_module: { severity: 'warning', description: 'A rule .py module without its .dqorule.yaml.' },
  orphan_sensor_file: { severity: 'warning', description: 'A <provider>.dqoprovidersensor.yaml or <provider>.sql.jinja2 in a sensors/ folder without its sensordefinition.dqosensor.yaml.' },
  sensor_provider_incomplete: {
    severity: 'error',
    description: 'A custom sensor folder with a <provider>.dqoprovidersensor.yaml but no <provider>.sql.jinja2 (of a sql_template sensor), or a template (or an error sampling template, <provider>.sample.sql.jinja2) without its provider file.',
  },
  unknown_dictionary: { severity: 'error', description: 'A ${dictionary://name.csv} element of a list parameter naming no dictionaries/name.csv of the repository (with a did-you-mean).' },
  duplicate_object: { severity: 'error', description: 'Two files decode to the same object name.' },
  unknown_connection: { severity: 'error', description: 'A table whose connection folder has no connection.dqoconnection.yaml.' },
  lineage_unknown_connection: { severity: 'error', description: 'A lineage source names a connection that is not in the repository.' },
  lineage_unknown_table: { severity: 'warning', description: 'A lineage source names a table that is not in the repository.' },
  threshold_order: { severity: 'warning', description: 'A warning threshold looser than the error one, or an error looser than the fatal one.' },
  plaintext_secret: { severity: 'warning', description: 'A literal password or secret instead of a ${ENV} / ${credential://…} reference.' },
  partitioned_without_partition_column: { severity: 'warning', description: 'Partitioned checks on a table without timestamp_columns.partition_by_column.' },
  invalid_address: { severity: 'error', description: 'A notification address (incident_*_addresses of a connection, of a filtered notification or of settings/defaultnotifications.dqonotifications.yaml) that is neither an http(s) URL nor an e-mail address.' },
  invalid_cron: {
    severity: 'warning',
    description:
      "A schedule of a connection (or of its auto import, or of settings/defaultschedules), or a check's schedule_override, that is not a cron expression: DQOps loads the file and its scheduler skips the schedule; dqctl does the same.",
  },
  custom_check_incomplete: {
    severity: 'error',
    description:
      'A custom check (under custom_checks or custom) without sensor_name or rule_name, whose name is neither a built-in check nor a check definition of the repository (checks/<target>/<type>[/<scale>]/<category>/<name>.dqocheck.yaml) that would give them; or a check definition without them.',
  },
  unknown_sensor: {
    severity: 'error',
    description: "A custom check's or check definition's sensor_name that is neither a built-in sensor nor a sensor of the repository of its target (with a did-you-mean).",
  },
  unknown_rule: { severity: 'error', description: "A custom check's or check definition's rule_name that is neither a built-in rule nor a rule of the repository (with a did-you-mean)." },
  comparison_unknown: { severity: 'error', description: "Comparison checks name a table comparison that the table's table_comparisons does not define." },
  comparison_unknown_connection: { severity: 'error', description: 'A table comparison names a reference connection that is not in the repository.' },
  policy_target_unknown_connection: { severity: 'warning', description: 'A policy targets connections none of which is in the repository.' },
  environment_unknown: { severity: 'error', description: '--env names an environment that dqctl.yaml does not define (spec.environments); the message lists those it does.' },
  variable_without_environment: { severity: 'error', description: 'A ${var.NAME} reference, but no --env was given; the message lists the environments.' },
  variable_undefined: {
    severity: 'error',
    description: 'A ${var.NAME} reference the chosen environment does not define; the message names the environments that do.',
  },
  variable_in_key: { severity: 'error', description: 'A ${var.NAME} reference used as a mapping key; variables stand for values only.' },
  variable_in_file_name: { severity: 'error', description: 'A ${var.NAME} reference in a file or folder name; object names are the same in every environment. The file is not read.' },
  variable_recursive: {
    severity: 'error',
    description: 'A variable inside a variable (${var.${var.x}}), or a variable whose value in dqctl.yaml holds ${var.…}: values are never expanded twice.',
  },
  variable_invalid: { severity: 'error', description: 'A malformed reference: ${var.} without a name, a name with characters other than letters, digits and _, or no closing }.' },
  variable_not_allowed: { severity: 'error', description: 'A ${var.NAME} reference outside sources/, patterns/ and rules/ (in settings/), where variables are not replaced.' },
} as const;

export const SCHEMA_DIAGNOSTICS: Record<(typeof VIOLATION_CODES)[number], { severity: 'error'; description: string }> = {
  unknown_key: { severity: 'error', description: 'A key the schema does not know (with a did-you-mean).' },
  wrong_type: { severity: 'error', description: 'A value of the wrong type.' },
  missing_key: { severity: 'error', description: 'A required key is missing.' },
  invalid_value: { severity: 'error', description: 'A value outside the allowed values (an enum, a pattern, a range), e.g. an unknown data_type_category.' },
  unknown_check: { severity: 'error', description: 'A check name that is not in the check catalog (with a did-you-mean).' },
  check_wrong_container: { severity: 'error', description: 'A known check under the wrong container or category (says where it belongs).' },
  unknown_category: { severity: 'error', description: 'A check category that does not exist in that container.' },
  unknown_rule_parameter: { severity: 'error', description: "A parameter the check's rule does not have (with a did-you-mean)." },
  unknown_sensor_parameter: { severity: 'error', description: "A parameter the check's sensor does not have (with a did-you-mean)." },
};

export type DiagnosticCode = keyof typeof LOADER_DIAGNOSTICS | keyof typeof SCHEMA_DIAGNOSTICS;
