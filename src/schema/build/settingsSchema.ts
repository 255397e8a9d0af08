/** dqctl.yaml at the repository root: dqctl's own settings, which DQOps ignores. */
import type { Schema } from './schemaShapes.js';
import { SCHEMA_BASE_URL, JSON_SCHEMA_DRAFT } from './documentSchema.js';
import { arrayOf, bool, closedObject, mapOf } from './schemaShapes.js';

export function settingsSchema(file: string): Schema {
  return {
    $schema: JSON_SCHEMA_DRAFT,
    $id: `${SCHEMA_BASE_URL}${file}`,
    title: 'dqctl settings',
    description: 'Optional dqctl.yaml at the repository root: ownership namespace, protected objects, prune settings, notification delivery and environments.',
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
          notifications: closedObject(
            {
              public_url: { type: 'string', pattern: '^https?://', description: 'Base URL of the incident links in messages (default: the URL the server listens on).' },
              retry_for_seconds: { type: 'number', exclusiveMinimum: 0, default: 3600, description: 'A message not delivered this long after it was written is marked failed.' },
              send_timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 10, description: 'One attempt that takes longer counts as a timeout and is retried.' },
              initial_backoff_seconds: { type: 'number', exclusiveMinimum: 0, default: 1, description: 'Delay before the first retry; doubled on each retry.' },
              max_backoff_seconds: { type: 'number', exclusiveMinimum: 0, default: 300, description: 'Longest delay between retries.' },
              smtp: closedObject(
                {
                  host: { type: 'string', minLength: 1, description: 'SMTP server host.' },
                  port: { type: 'integer', minimum: 1, maximum: 65535, description: 'SMTP port (default 587, or 465 with secure).' },
                  secure: bool('TLS from the start (port 465); otherwise STARTTLS when offered.'),
                  user: { type: 'string', description: 'SMTP user.' },
                  password: { type: 'string', pattern: '^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$', description: 'The SMTP password as an ${ENV_VAR} reference (resolved when sending; never a literal).' },
                  from: { type: 'string', minLength: 3, description: 'Sender address of notification e-mails.' },
                },
                { description: 'SMTP server for e-mail addresses.', required: ['host', 'from'] },
              ),
            },
            { description: 'Delivery of incident notifications by `dqctl serve`.' },
          ),
          environments: mapOf(
            closedObject(
              {
                vars: mapOf(
                  { type: ['string', 'number', 'boolean'], description: 'The value ${var.NAME} stands for in this environment, typed as written here (5 is a number).' },
                  {
                    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
                    description: 'Variables of this environment: NAME: value, used as ${var.NAME} in sources/, patterns/ and rules/.',
                  },
                ),
              },
              { description: 'One environment (a store: dev, staging, prod), chosen with --env NAME.' },
            ),
            {
              propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' },
              description: 'Environments by name: the values of ${var.NAME} references for each store this repository is applied to.',
            },
          ),
        },
        { description: 'dqctl settings.' },
      ),
    },
    additionalProperties: false,
  };
}
