/**
 * Where an effective check comes from: written in the object's own spec (`table`: the table or column file;
 * for a policy's own container model, the policy itself), or contributed by a policy, named with the
 * priority it applied with.
 */
export type CheckOrigin =
  | { readonly source: 'table' }
  | { readonly source: 'policy'; readonly policyName: string; readonly priority: number };

export const OWN_ORIGIN: CheckOrigin = Object.freeze({ source: 'table' });

export function policyOrigin(policyName: string, priority: number): CheckOrigin {
  return Object.freeze({ source: 'policy', policyName, priority });
}
