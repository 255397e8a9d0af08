import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { registerPolicyFamily } from './policyFamily.js';

/**
 * Table policies (kind `default_table_checks`, files patterns/…/<name>.dqotablepattern.yaml), served twice as
 * DQOps serves them: the older "default table checks patterns" and the newer "table quality policies". Both
 * families read and write the same stored objects.
 */
export async function tablePoliciesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  registerPolicyFamily(api, context, {
    prefix: '/default/checks/table',
    kind: 'default_table_checks',
    target: 'table',
    nameField: 'pattern_name',
    specField: 'pattern_spec',
    model: 'DefaultTableChecksPatternModel',
    listModel: 'DefaultTableChecksPatternListModel',
    naming: 'default_checks_pattern',
    generation: 'dqops_1_7',
    tag: 'default table check patterns',
  });
  registerPolicyFamily(api, context, {
    prefix: '/policies/checks/table',
    kind: 'default_table_checks',
    target: 'table',
    nameField: 'policy_name',
    specField: 'policy_spec',
    model: 'TableQualityPolicyModel',
    listModel: 'TableQualityPolicyListModel',
    naming: 'quality_policy',
    generation: 'current',
    tag: 'table quality policies',
  });
}
