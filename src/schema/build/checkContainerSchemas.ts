/**
 * The check containers of a target, generated from the catalog: container -> category -> check name -> check.
 * Every check sharing a (sensor, rule) pair has the same shape, so each shape is written once in `$defs` and
 * the checks refer to it; sensors' parameter objects and rules' threshold objects are `$defs` too. A check name
 * that is not listed is an error. Custom checks have their own map: `custom_checks` in a category and `custom` at
 * the container's root (DQOps's CustomCheckSpec: `sensor_name`, `rule_name`, free `parameters` and thresholds;
 * the names they give are checked against the catalog and the repository's rules in manifest/semanticChecks).
 *
 * `comparisons` follows DQOps: a map from the table comparison's name to the comparison checks (plus the
 * `reference_column` for column comparisons).
 */
import {
  CHECK_TYPES,
  CONTAINER_KEYS,
  containerPath,
  containersOf,
  timeScalesOf,
  type CatalogCheck,
  type CheckCatalog,
  type CheckContainer,
  type CheckTarget,
} from '../../catalog/index.js';
import { ANNOTATION_KEYWORD, type SchemaAnnotation } from '../schemaAnnotation.js';
import { parameterSchema } from './parameterSchema.js';
import { bool, closedObject, mapOf, ref, str, type Schema } from './schemaShapes.js';
import { RULE_SEVERITIES } from '../../model/index.js';

export const COMPARISONS_CATEGORY = 'comparisons';

export interface CheckContainerSchemas {
  /** Everything to copy into the document's `$defs` (needs the shared `comments` def). */
  defs: Record<string, Schema>;
  /** The schemas of `profiling_checks`, `monitoring_checks` and `partitioned_checks` of a table or column spec. */
  properties: Record<string, Schema>;
}

export function checkContainerSchemas(catalog: CheckCatalog, target: CheckTarget): CheckContainerSchemas {
  const defs: Record<string, Schema> = {};
  defs.check_settings = {
    type: 'object',
    description: 'Settings every check has, whatever its sensor and rule.',
    properties: commonCheckFields(),
  };
  defs.check_filter = str('SQL condition added to the WHERE clause of this check only.');
  defs.custom_check = customCheckSchema();
  for (const container of containersOf(target)) {
    for (const check of catalog.checksIn(container)) addCheckShape(defs, catalog, check);
    defs[containerDefName(container)] = containerSchema(catalog, container);
  }
  const properties: Record<string, Schema> = {};
  for (const checkType of CHECK_TYPES) {
    const key = CONTAINER_KEYS[checkType];
    if (checkType === 'profiling') {
      properties[key] = ref(containerDefName({ target, checkType, timeScale: null }));
      continue;
    }
    const scales: Record<string, Schema> = {};
    for (const timeScale of timeScalesOf(checkType)) scales[timeScale!] = ref(containerDefName({ target, checkType, timeScale }));
    properties[key] = closedObject(scales, {
      description: `${checkType === 'monitoring' ? 'Monitoring' : 'Partitioned'} checks of the ${target}, by time scale.`,
      [ANNOTATION_KEYWORD]: annotation({ role: 'time_scales', target, checkType }),
    });
  }
  return { defs, properties };
}

/** Marks the schema of an object holding check containers (table spec, column spec, policy spec). */
export function checkOwnerMarker(target: CheckTarget): Schema {
  return { [ANNOTATION_KEYWORD]: annotation({ role: 'check_owner', target }) };
}

function containerDefName(container: CheckContainer): string {
  return [container.target, container.checkType, container.timeScale, 'checks'].filter(Boolean).join('_');
}

function containerSchema(catalog: CheckCatalog, container: CheckContainer): Schema {
  const categories: Record<string, Schema> = {};
  for (const category of catalog.categoriesOf(container)) {
    const checks: Record<string, Schema> = {};
    for (const check of catalog.checksIn(container, category)) checks[check.checkName] = ref(checkShapeName(check));
    const marker = { role: 'category', ...container, category } as const;
    if (category === COMPARISONS_CATEGORY) {
      if (container.target === 'column') checks.reference_column = str('The column of the reference table compared with this column.');
      categories[category] = mapOf(
        closedObject(checks, { [ANNOTATION_KEYWORD]: annotation({ ...marker, comparison: true }) }),
        { description: 'Comparison checks keyed by the name of a table comparison defined in table_comparisons.' },
      );
    } else {
      checks[CUSTOM_CHECKS_KEY] = mapOf(ref('custom_check'), { description: `Custom checks of the ${category} category, by name.` });
      categories[category] = closedObject(checks, { [ANNOTATION_KEYWORD]: annotation(marker) });
    }
  }
  categories[CUSTOM_CATEGORY] = mapOf(ref('custom_check'), { description: 'Custom checks outside any category, by name.' });
  return closedObject(categories, {
    description: `${container.target} checks under ${containerPath(container)}, by category.`,
    [ANNOTATION_KEYWORD]: annotation({ role: 'container', ...container }),
  });
}

export const CUSTOM_CHECKS_KEY = 'custom_checks';
export const CUSTOM_CATEGORY = 'custom';

/** DQOps's CustomCheckSpec: the sensor and the rule it runs, their parameters, and the common settings. */
function customCheckSchema(): Schema {
  const thresholds = (severity: string): Schema => ({
    type: ['object', 'null'],
    description: `Parameters of the rule at the ${severity} severity; {} or null enables it with no parameters.`,
  });
  const properties: Record<string, Schema> = {
    sensor_name: str('The sensor the check runs (a built-in sensor such as table/volume/row_count).'),
    rule_name: str('The rule that judges the readout: a custom rule (rules/<name>.dqorule.yaml + .py) or a built-in one.'),
    parameters: { type: 'object', description: "Parameters of the sensor (free: they are the sensor's)." },
    warning: thresholds('warning'),
    error: thresholds('error'),
    fatal: thresholds('fatal'),
  };
  for (const field of Object.keys(commonCheckFields())) properties[field] = true as unknown as Schema;
  return closedObject(properties, { description: 'A custom check: a sensor and a rule named by the user.', allOf: [ref('check_settings')] });
}

function checkShapeName(check: CatalogCheck): string {
  return `check__${defSuffix(check.sensor)}__${defSuffix(check.rule)}`;
}

function defSuffix(name: string): string {
  return name.replaceAll('/', '.');
}

function addCheckShape(defs: Record<string, Schema>, catalog: CheckCatalog, check: CatalogCheck): void {
  const name = checkShapeName(check);
  if (defs[name]) return;
  const sensorDef = `sensor__${defSuffix(check.sensor)}`;
  const ruleDef = `rule__${defSuffix(check.rule)}`;
  if (!defs[sensorDef]) {
    const parameters: Record<string, Schema> = { filter: ref('check_filter') };
    for (const p of catalog.sensorOf(check).parameters) parameters[p.name] = parameterSchema(p);
    defs[sensorDef] = closedObject(parameters, {
      description: `Parameters of the sensor ${check.sensor}.`,
      [ANNOTATION_KEYWORD]: annotation({ role: 'sensor_parameters', sensor: check.sensor }),
    });
  }
  if (!defs[ruleDef]) {
    const parameters: Record<string, Schema> = {};
    for (const p of catalog.ruleOf(check).parameters) parameters[p.name] = parameterSchema(p);
    defs[ruleDef] = {
      ...closedObject(parameters, {
        description: `Thresholds of the rule ${check.rule} at one severity; {} or null enables the severity with no parameters.`,
        [ANNOTATION_KEYWORD]: annotation({ role: 'rule_parameters', rule: check.rule }),
      }),
      type: ['object', 'null'],
    };
  }
  const properties: Record<string, Schema> = { parameters: ref(sensorDef) };
  for (const severity of RULE_SEVERITIES) properties[severity] = ref(ruleDef);
  // The common settings are typed once in check_settings; here they are only allowed (`true`), which keeps
  // the shape closed without repeating them 170 times.
  for (const field of Object.keys(commonCheckFields())) properties[field] = true as unknown as Schema;
  defs[name] = closedObject(properties, { description: `Sensor ${check.sensor}, rule ${check.rule}.`, allOf: [ref('check_settings')] });
}

/** Settings every check has, whatever its sensor and rule. */
function commonCheckFields(): Record<string, Schema> {
  return {
    disabled: bool('Keeps the check configured but does not run it.'),
    exclude_from_kpi: bool('Leaves the results of this check out of data quality KPIs.'),
    include_in_sla: bool('Marks the check as part of a data contract / SLA.'),
    quality_dimension: str('Overrides the data quality dimension reported for the check.'),
    display_name: str('Name shown instead of the check name.'),
    data_grouping: str('Name of a data grouping configuration of the table to use instead of the default one.'),
    comments: ref('comments'),
    always_collect_error_samples: bool('Collects error samples even when the check passes.'),
    do_not_schedule: bool('Runs the check only when started by hand, never on a schedule.'),
    default_check: bool('Kept for DQOps: marks a check a policy added (DQOps writes it; dqctl never writes policy checks into tables).'),
    policy_last_modified: str('Kept for DQOps: when the policy that added the check last changed.'),
    schedule_override: closedObject(
      {
        cron_expression: str('Unix cron expression (minute hour day-of-month month day-of-week).'),
        disabled: bool('Stops this schedule without removing it (the check then runs with its scheduling group).'),
      },
      { description: "Runs this check on a schedule of its own instead of its connection's schedule for its type and time scale." },
    ),
  };
}

function annotation(value: SchemaAnnotation): SchemaAnnotation {
  return value;
}
