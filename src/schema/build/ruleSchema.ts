/** rules/<folder>/<name>.dqorule.yaml (kind: rule): a custom rule definition (its Python module sits beside it). */
import { documentSchema } from './documentSchema.js';
import { arrayOf, bool, closedObject, enumOf, int, str, stringMap, type Schema } from './schemaShapes.js';

const FIELD_DATA_TYPES = [
  'string', 'boolean', 'integer', 'long', 'double', 'date', 'datetime', 'column_name', 'enum', 'string_list', 'integer_list', 'object',
];

/** `last_n_readouts` is not in the DQOps documentation's list but built-in rules of the catalog use it. */
const DATA_POINT_GROUPINGS = ['day', 'week', 'month', 'last_n_readouts'];

/** A parameter a rule or a sensor definition declares (DQOps's ParameterDefinitionSpec). */
export function parameterFieldSchema(of: 'rule' | 'sensor'): Schema {
  return closedObject(
    {
      field_name: str('Parameter name as written in the YAML of a check.'),
      display_name: str('Label shown in user interfaces.'),
      help_text: str('Help text shown in user interfaces.'),
      data_type: enumOf(FIELD_DATA_TYPES, 'Data type of the parameter.'),
      required: bool('Whether the parameter must be set.'),
      allowed_values: arrayOf({ type: 'string' }, 'Values of an enum parameter.'),
      default_value: { description: 'Default value of the parameter.' },
      display_hint: str('Hint for user interfaces (e.g. textarea).'),
      sample_values: arrayOf({ type: 'string' }, 'Sample values shown in user interfaces.'),
    },
    { description: `A parameter of the ${of}.` },
  );
}

export function ruleSchema(file: string): Schema {
  const spec = closedObject(
    {
      type: enumOf(['python', 'java_class'], 'How the rule is implemented.'),
      java_class_name: str('Class of a rule implemented in Java (type java_class).'),
      mode: enumOf(['current_value', 'previous_readouts'], 'Whether the rule sees only the current value or also the history.'),
      time_window: closedObject(
        {
          prediction_time_window: int('How many past time periods the rule receives.', { minimum: 0 }),
          min_periods_with_readouts: int('Fewest past periods with values before the rule judges.', { minimum: 0 }),
          historic_data_point_grouping: enumOf(DATA_POINT_GROUPINGS, 'How past values are grouped into periods.'),
        },
        { description: 'History given to a previous_readouts rule.' },
      ),
      fields: arrayOf(parameterFieldSchema('rule'), 'Parameters of the rule (its thresholds).'),
      parameters: stringMap('Fixed settings passed to the rule.'),
    },
    { description: 'The rule definition.' },
  );
  return documentSchema({
    file,
    title: 'dqctl / DQOps rule',
    description: 'A custom data quality rule: rules/<folder>/<name>.dqorule.yaml (kind: rule).',
    apiVersion: 'dqo/v1',
    kind: 'rule',
    spec,
    defs: {},
  });
}
