import type { ObjectKey } from '../model/index.js';

/**
 * `protected` patterns of dqctl.yaml: `kind:name` or just `name`, with `*` matching any characters
 * (including `/`), e.g. `source:shop_oltp`, `table:warehouse/public.*`, `*`.
 */
export function isProtected(key: ObjectKey, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    const colon = pattern.indexOf(':');
    const kind = colon > 0 && !pattern.slice(0, colon).includes('*') ? pattern.slice(0, colon) : undefined;
    const namePattern = kind ? pattern.slice(colon + 1) : pattern;
    if (kind && kind !== key.kind) return false;
    return globToRegExp(namePattern).test(key.name);
  });
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}
