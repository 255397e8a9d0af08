/**
 * The files of a customized DQOps home besides rules: a sensor definition
 * (`sensors/<target>/<category>/<name>/sensordefinition.dqosensor.yaml`, kind: sensor), its provider files
 * (`<provider>.dqoprovidersensor.yaml`, kind: provider_sensor), a check definition
 * (`checks/…/<name>.dqocheck.yaml`, kind: check). A dictionary (`dictionaries/<name>.csv`) has no YAML: its
 * object's spec is always empty, its text an attachment.
 */
import { documentSchema } from './documentSchema.js';
import { parameterFieldSchema } from './ruleSchema.js';
import { arrayOf, bool, closedObject, enumOf, str, stringMap, type Schema } from './schemaShapes.js';

export function sensorDefinitionSchema(file: string): Schema {
  return documentSchema({
    file,
    title: 'dqctl / DQOps sensor definition',
    description: 'A custom sensor: sensors/<target>/<category>/<name>/sensordefinition.dqosensor.yaml (kind: sensor), with <provider>.dqoprovidersensor.yaml and <provider>.sql.jinja2 beside it.',
    apiVersion: 'dqo/v1',
    kind: 'sensor',
    spec: closedObject(
      {
        fields: arrayOf(parameterFieldSchema('sensor'), 'Parameters of the sensor, set in a check’s parameters.'),
        requires_event_timestamp: bool('The sensor needs timestamp_columns.event_timestamp_column of the table.'),
        requires_ingestion_timestamp: bool('The sensor needs timestamp_columns.ingestion_timestamp_column of the table.'),
        default_value: { type: 'number', description: 'The readout used when the query returns no row.' },
        parameters: stringMap('Fixed settings given to the template as sensor_definition.parameters.'),
      },
      { description: 'The sensor definition.' },
    ),
    defs: {},
  });
}

export function providerSensorSchema(file: string): Schema {
  return documentSchema({
    file,
    title: 'dqctl / DQOps provider sensor',
    description: 'How a custom sensor runs on one provider: sensors/…/<name>/<provider>.dqoprovidersensor.yaml (kind: provider_sensor).',
    apiVersion: 'dqo/v1',
    kind: 'provider_sensor',
    spec: closedObject(
      {
        type: enumOf(['sql_template', 'java_class'], 'sql_template: the <provider>.sql.jinja2 beside this file is rendered and run.'),
        java_class_name: str('The Java runner DQOps uses (ignored by dqctl, which renders sql_template sensors itself).'),
        supports_grouping: bool('The template renders data grouping (default true).'),
        supports_partitioned_checks: bool('The template can run as a partitioned check (default true).'),
        supports_multiple_queries: bool('Accepted for DQOps compatibility.'),
        disable_merging_queries: bool('The sensor always runs in a query of its own.'),
        parameters: stringMap('Fixed settings given to the template as provider_sensor_definition.parameters.'),
      },
      { description: 'The provider sensor definition.' },
    ),
    defs: {},
  });
}

export function checkDefinitionSchema(file: string): Schema {
  return documentSchema({
    file,
    title: 'dqctl / DQOps check definition',
    description: 'A custom check: checks/<table|column>/<profiling|monitoring/<scale>|partitioned/<scale>>/<category>/<name>.dqocheck.yaml (kind: check).',
    apiVersion: 'dqo/v1',
    kind: 'check',
    spec: closedObject(
      {
        sensor_name: str('The sensor the check runs (built-in or sensors/ of the repository).'),
        rule_name: str('The rule that judges its readouts (built-in or rules/ of the repository).'),
        help_text: str('Help text shown in user interfaces.'),
        friendly_name: str('A short human name of the check.'),
        standard: bool('Shown among the standard checks in user interfaces.'),
        default_severity: enumOf(['none', 'warning', 'error', 'fatal'], 'The severity whose threshold user interfaces fill in first.'),
      },
      { description: 'The check definition.' },
    ),
    defs: {},
  });
}

export function dictionarySchema(file: string): Schema {
  return documentSchema({
    file,
    title: 'dqctl dictionary',
    description: 'dictionaries/<name>.csv: the object’s spec is empty; the CSV text is its attachment `file_content`.',
    apiVersion: 'dqo/v1',
    kind: 'dictionary',
    spec: closedObject({}, { description: 'Always empty.' }),
    defs: {},
  });
}
