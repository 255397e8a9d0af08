/**
 * Explains an unknown key in domain terms. The schema node that rejected the key carries an `x-dqctl` annotation
 * saying what its keys are (categories, check names, sensor or rule parameters); with the catalog, a misspelled
 * check gets a did-you-mean among the checks of its container, and a real check written in the wrong place is
 * told where it belongs.
 */
import {
  containerPath,
  didYouMean,
  sameContainer,
  type CatalogCheck,
  type CheckCatalog,
  type CheckContainer,
  type CheckTarget,
} from '../catalog/index.js';
import { quote, quoteList } from './describeValue.js';
import { annotationOf, type SchemaAnnotation } from './schemaAnnotation.js';
import type { DocumentKind } from './schemaFiles.js';
import type { DocumentPath, SchemaViolation } from './schemaViolation.js';

export interface UnknownKeyContext {
  kind: DocumentKind;
  catalog: () => CheckCatalog;
}

const LIST_LIMIT = 30;
const COMPARISONS = 'comparisons';
const CHECK_NAMING = 'check names carry their container: profile_* in profiling_checks, daily_* / monthly_* in monitoring_checks, '
  + 'daily_partition_* / monthly_partition_* in partitioned_checks';

/** The violation for `key`, found in an object validated by `parentSchema`; `path` includes the key. */
export function unknownKeyViolation(key: string, path: DocumentPath, parentSchema: unknown, context: UnknownKeyContext): SchemaViolation {
  const annotation = annotationOf(parentSchema);
  const allowed = allowedKeys(parentSchema);
  switch (annotation?.role) {
    case 'rule_parameters':
      return parameterViolation('unknown_rule_parameter', 'rule', annotation.rule, key, path, allowed);
    case 'sensor_parameters':
      return parameterViolation('unknown_sensor_parameter', 'sensor', annotation.sensor, key, path, allowed);
    case 'category':
      return checkInCategory(annotation, key, path, allowed, context);
    case 'container':
      return keyInContainer(annotation, key, path, allowed, context);
    case 'time_scales':
    case 'check_owner':
    case undefined:
      return misplacedCheck(key, path, annotation, context) ?? plainUnknownKey(annotation, key, path, allowed, context);
    default: {
      const unreachable: never = annotation;
      throw new Error(`unknown schema annotation ${JSON.stringify(unreachable)}`);
    }
  }
}

function allowedKeys(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

function withSuggestions(violation: SchemaViolation, suggestions: string[]): SchemaViolation {
  if (suggestions.length === 0) return violation;
  return { ...violation, summary: `${violation.summary}; did you mean ${quoteList(suggestions)}?`, suggestions };
}

function listed(label: string, names: readonly string[]): string | undefined {
  if (names.length === 0 || names.length > LIST_LIMIT) return undefined;
  return `${label}: ${names.join(', ')}`;
}

function parameterViolation(
  code: 'unknown_rule_parameter' | 'unknown_sensor_parameter',
  what: 'rule' | 'sensor',
  name: string,
  key: string,
  path: DocumentPath,
  allowed: string[],
): SchemaViolation {
  const own = what === 'sensor' ? allowed.filter((k) => k !== 'filter') : allowed;
  const detail =
    own.length === 0
      ? what === 'rule'
        ? `the rule ${name} takes no parameters; write {} to enable this severity`
        : `the sensor ${name} takes no parameters besides filter`
      : `parameters of the ${what} ${name}: ${allowed.join(', ')}`;
  return withSuggestions(
    { path, onKey: true, code, summary: `unknown ${what} parameter ${quote(key)} of ${name}`, detail },
    didYouMean(key, allowed),
  );
}

function containerOf(annotation: { target: CheckTarget } & Omit<CheckContainer, 'target'>): CheckContainer {
  return { target: annotation.target, checkType: annotation.checkType, timeScale: annotation.timeScale };
}

function checkInCategory(
  annotation: Extract<SchemaAnnotation, { role: 'category' }>,
  key: string,
  path: DocumentPath,
  allowed: string[],
  context: UnknownKeyContext,
): SchemaViolation {
  const catalog = context.catalog();
  const container = containerOf(annotation);
  const here = `${containerPath(container)}.${annotation.category}${annotation.comparison ? `.${String(path[path.length - 2])}` : ''}`;

  // `comparisons: {daily_row_count_match: {error: ...}}`: the comparison name level is missing.
  const parentKey = path[path.length - 2];
  if (annotation.comparison && typeof parentKey === 'string' && catalog.checkByName(parentKey)) {
    return {
      path: path.slice(0, -1),
      onKey: true,
      code: 'check_wrong_container',
      summary: `comparison checks go under ${containerPath(container)}.comparisons.<comparison name>, not directly under comparisons`,
      detail: `name the table comparison (a key of spec.table_comparisons) first, then ${parentKey} inside it`,
    };
  }
  const misplaced = misplacedCheck(key, path, annotation, context);
  if (misplaced) return misplaced;

  const inCategory = catalog.checksIn(container, annotation.category).map((c) => c.checkName);
  let suggestions = didYouMean(key, allowed);
  let where = '';
  if (suggestions.length === 0) {
    // Maybe meant a check of another category of the same container.
    const elsewhere = catalog.checksIn(container).filter((c) => c.category !== annotation.category);
    suggestions = didYouMean(key, elsewhere.map((c) => c.checkName));
    const categories = [...new Set(suggestions.map((s) => catalog.checkByName(s)!.category))];
    if (categories.length > 0) where = ` (under ${categories.map((c) => `${containerPath(container)}.${c}`).join(', ')})`;
  }
  const violation = withSuggestions(
    {
      path,
      onKey: true,
      code: 'unknown_check',
      summary: `unknown check ${quote(key)} in ${here}`,
      detail: listed(`checks of ${containerPath(container)}.${annotation.category}`, inCategory)
        ?? 'dqctl knows the built-in DQOps checks only; custom checks are not supported',
    },
    suggestions,
  );
  return where ? { ...violation, summary: violation.summary.replace(/\?$/, `${where}?`) } : violation;
}

function keyInContainer(
  annotation: Extract<SchemaAnnotation, { role: 'container' }>,
  key: string,
  path: DocumentPath,
  allowed: string[],
  context: UnknownKeyContext,
): SchemaViolation {
  const misplaced = misplacedCheck(key, path, annotation, context);
  if (misplaced) return misplaced;
  const catalog = context.catalog();
  const container = containerOf(annotation);
  const here = containerPath(container);
  const base = { path, onKey: true, code: 'unknown_category' as const };
  const otherTarget: CheckTarget = annotation.target === 'table' ? 'column' : 'table';
  if (!catalog.categoriesOfTarget(annotation.target).has(key) && catalog.categoriesOfTarget(otherTarget).has(key)) {
    return {
      ...base,
      summary: `${quote(key)} is a ${otherTarget} check category, not a ${annotation.target} one`,
      detail: `${otherTarget} checks go ${whereTargetGoes(otherTarget, context.kind)}`,
    };
  }
  if (catalog.categoriesOfTarget(annotation.target).has(key)) {
    return {
      ...base,
      summary: `category ${quote(key)} has no ${annotation.target} checks in ${here}`,
      detail: listed(`categories of ${here}`, allowed),
    };
  }
  return withSuggestions(
    { ...base, summary: `unknown check category ${quote(key)} in ${here}`, detail: listed(`categories of ${here}`, allowed) },
    didYouMean(key, allowed),
  );
}

function plainUnknownKey(
  annotation: Extract<SchemaAnnotation, { role: 'time_scales' | 'check_owner' }> | undefined,
  key: string,
  path: DocumentPath,
  allowed: string[],
  context: UnknownKeyContext,
): SchemaViolation {
  let detail = listed('allowed keys', allowed);
  if (annotation?.role === 'time_scales' && context.catalog().categoriesOfTarget(annotation.target).has(key)) {
    detail = `categories go one level down, under a time scale: ${allowed.map((scale) => `${String(path[path.length - 2])}.${scale}.${key}`).join(' or ')}`;
  }
  return withSuggestions({ path, onKey: true, code: 'unknown_key', summary: `unknown key ${quote(key)}`, detail }, didYouMean(key, allowed));
}

/**
 * A key that is the name of a built-in check, in a place where it is not allowed: where it belongs, and the
 * check of the same kind that would fit here, if any.
 */
function misplacedCheck(
  key: string,
  path: DocumentPath,
  annotation: SchemaAnnotation | undefined,
  context: UnknownKeyContext,
): SchemaViolation | undefined {
  const catalog = context.catalog();
  const check = catalog.checkByName(key);
  if (!check) return undefined;
  const belongs = whereCheckBelongs(check, annotation && 'target' in annotation ? annotation.target : undefined, context.kind);
  let suggestions: string[] = [];
  if (annotation && (annotation.role === 'container' || annotation.role === 'category')) {
    const here = containerOf(annotation);
    if (!sameContainer(here, check)) {
      suggestions = catalog
        .checksIn(here, annotation.role === 'category' ? annotation.category : undefined)
        .filter((c) => c.baseName === check.baseName)
        .map((c) => c.checkName);
    }
  }
  const detail = annotation && 'checkType' in annotation && annotation.checkType !== check.checkType ? CHECK_NAMING : undefined;
  return withSuggestions({ path, onKey: true, code: 'check_wrong_container', summary: belongs, ...(detail ? { detail } : {}) }, suggestions);
}

function whereCheckBelongs(check: CatalogCheck, hereTarget: CheckTarget | undefined, kind: DocumentKind): string {
  const place = `${containerPath(check)}.${check.category}${check.category === COMPARISONS ? '.<comparison name>' : ''}`;
  if (hereTarget === undefined || hereTarget === check.target) return `${check.checkName} belongs under ${place}`;
  const prefix = `${check.checkName} is a ${check.target} check`;
  if (kind !== 'table') return `${prefix}: it belongs in a ${check.target} quality policy (${policyFile(check.target)}), under ${place}`;
  return check.target === 'column'
    ? `${prefix}: it belongs under spec.columns.<column>.${place}`
    : `${prefix}: it belongs under spec.${place}, not under a column`;
}

function whereTargetGoes(target: CheckTarget, kind: DocumentKind): string {
  if (kind !== 'table') return `in a ${target} quality policy (${policyFile(target)})`;
  return target === 'column' ? 'under spec.columns.<column>' : 'in the table spec, not under a column';
}

function policyFile(target: CheckTarget): string {
  return target === 'column' ? '*.dqocolumnpattern.yaml' : '*.dqotablepattern.yaml';
}
