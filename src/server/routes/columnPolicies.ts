import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { registerPolicyFamily } from './policyFamily.js';

/**
 * Column policies (kind `default_column_checks`, files patterns/…/<name>.dqocolumnpattern.yaml), served twice as
 * DQOps serves them: the older "default column checks patterns" and the newer "column quality policies". Both
 * families read and write the same stored objects.
 */
export async function columnPoliciesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  registerPolicyFamily(api, context, {
    prefix: '/default/checks/column',
    kind: 'default_column_checks',
    target: 'column',
    nameField: 'pattern_name',
    specField: 'pattern_spec',
    model: 'DefaultColumnChecksPatternModel',
    listModel: 'DefaultColumnChecksPatternListModel',
    naming: 'default_checks_pattern',
    generation: 'dqops_1_7',
    tag: 'default column check patterns',
  });
  registerPolicyFamily(api, context, {
    prefix: '/policies/checks/column',
    kind: 'default_column_checks',
    target: 'column',
    nameField: 'policy_name',
    specField: 'policy_spec',
    model: 'ColumnQualityPolicyModel',
    listModel: 'ColumnQualityPolicyListModel',
    naming: 'quality_policy',
    generation: 'current',
    tag: 'column quality policies',
  });
}
