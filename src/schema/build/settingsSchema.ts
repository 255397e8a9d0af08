/** dqctl.yaml at the repository root: dqctl's own settings, which DQOps ignores. */
import type { Schema } from './schemaShapes.js';
import { SCHEMA_BASE_URL, JSON_SCHEMA_DRAFT } from './documentSchema.js';
import { arrayOf, bool, closedObject } from './schemaShapes.js';

export function settingsSchema(file: string): Schema {
  return {
    $schema: JSON_SCHEMA_DRAFT,
    $id: `${SCHEMA_BASE_URL}${file}`,
    title: 'dqctl settings',
    description: 'Optional dqctl.yaml at the repository root: ownership namespace, protected objects and prune settings.',
    type: 'object',
    required: ['apiVersion', 'kind', 'spec'],
    properties: {
      apiVersion: { const: 'dqctl/v1', description: 'Always dqctl/v1.' },
      kind: { const: 'settings', description: 'Always settings.' },
      spec: closedObject(
        {
          namespace: {
            type: 'string',
            pattern: '^[a-z0-9][a-z0-9_.-]*$',
            default: 'default',
            description: 'Owner recorded on every object this repository applies; objects of other namespaces are never touched.',
          },
          protected: arrayOf(
            { type: 'string', minLength: 1 },
            'Objects never deleted: kind:name patterns with * wildcards, e.g. source:warehouse or table:warehouse/public.*',
          ),
          prune: closedObject(
            {
              unmanaged: bool('Also delete objects created through the API that are not in the repository.'),
              mass_delete_threshold: {
                type: 'number',
                minimum: 0,
                maximum: 1,
                default: 0.5,
                description: 'A plan deleting more than this share of the managed objects is refused without --allow-mass-delete.',
              },
            },
            { description: 'What apply may delete.' },
          ),
        },
        { description: 'dqctl settings.' },
      ),
    },
    additionalProperties: false,
  };
}
