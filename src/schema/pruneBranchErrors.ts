/**
 * When a value matches no branch of an anyOf / oneOf, ajv reports the failures of every branch plus the
 * combinator itself: a wall of noise for one mistake. This keeps only the branch the value most likely meant
 * (the one whose errors reach deepest into the value, i.e. where its shape matched best), or one merged type
 * error when the value has the wrong type for every branch.
 *
 * ajv's schemaPath inside a `$ref` is relative to the referenced schema, so errors are attributed to a branch by
 * the schema node that failed (`parentSchema`, present with ajv's `verbose`) being reachable from that branch.
 * The generated dqctl schemas use type arrays instead of combinators; this guards schemas written by hand.
 */
import type { ErrorObject } from 'ajv';

const COMBINATORS = new Set(['anyOf', 'oneOf']);

export function pruneBranchErrors(errors: readonly ErrorObject[], rootSchema: unknown): ErrorObject[] {
  if (!errors.some((e) => COMBINATORS.has(e.keyword))) return [...errors];
  const reach = new SchemaReach(rootSchema);
  let result = [...errors];
  // Deepest values first; at one value, inner combinators report before outer ones.
  const combinators = result
    .map((e, index) => ({ e, index }))
    .filter(({ e }) => COMBINATORS.has(e.keyword) && Array.isArray(e.schema) && !matchedSeveral(e))
    .sort((a, b) => depth(b.e.instancePath) - depth(a.e.instancePath) || a.index - b.index)
    .map(({ e }) => e);
  for (const combinator of combinators) {
    const at = result.indexOf(combinator);
    if (at < 0) continue;
    const branchSchemas = combinator.schema as unknown[];
    const branches: ErrorObject[][] = branchSchemas.map(() => []);
    for (const e of result.slice(0, at)) {
      if (!isWithin(e.instancePath, combinator.instancePath)) continue;
      const branch = branchSchemas.findIndex((schema) => reach.contains(schema, e.parentSchema));
      if (branch >= 0) branches[branch].push(e);
    }
    const failed = branches.filter((b) => b.length > 0);
    if (failed.length === 0) continue;
    const kept = new Set(chooseBranch(combinator, failed));
    const branchErrors = new Set(failed.flat());
    const next: ErrorObject[] = [];
    for (const e of result) {
      if (e === combinator) {
        // A merged type error is new: it takes the combinator's place.
        for (const k of kept) if (!branchErrors.has(k)) next.push(k);
      } else if (!branchErrors.has(e) || kept.has(e)) {
        next.push(e);
      }
    }
    result = next;
  }
  return result;
}

/** oneOf that matched several branches: an error of its own, not a cascade. */
function matchedSeveral(error: ErrorObject): boolean {
  const passing = (error.params as { passingSchemas?: unknown }).passingSchemas;
  return Array.isArray(passing) && passing.length > 1;
}

function isWithin(instancePath: string, parent: string): boolean {
  return instancePath === parent || instancePath.startsWith(`${parent}/`);
}

function depth(instancePath: string): number {
  return instancePath === '' ? 0 : instancePath.split('/').length - 1;
}

function chooseBranch(combinator: ErrorObject, branches: ErrorObject[][]): ErrorObject[] {
  const typeErrorHere = (branch: ErrorObject[]) => branch.find((e) => e.keyword === 'type' && e.instancePath === combinator.instancePath);
  const mismatched = branches.filter((b) => typeErrorHere(b) !== undefined);
  if (mismatched.length === branches.length) {
    // The value has the wrong type for every branch: one error naming every type that would do.
    const types = mismatched.flatMap((b) => typesOf(typeErrorHere(b)!));
    const first = typeErrorHere(mismatched[0])!;
    return [{ ...first, parentSchema: combinator.parentSchema, params: { type: [...new Set(types)] } }];
  }
  const candidates = branches.filter((b) => typeErrorHere(b) === undefined);
  candidates.sort((a, b) => maxDepth(b) - maxDepth(a) || a.length - b.length);
  return candidates[0];
}

function maxDepth(branch: ErrorObject[]): number {
  return Math.max(...branch.map((e) => depth(e.instancePath)));
}

function typesOf(error: ErrorObject): string[] {
  const type = (error.params as { type?: unknown }).type;
  return Array.isArray(type) ? type.map(String) : String(type).split(',');
}

/** Which schema nodes can be reached from a schema node, following local `#/...` references. */
class SchemaReach {
  private readonly cache = new Map<object, Set<object>>();

  constructor(private readonly root: unknown) {}

  contains(from: unknown, node: unknown): boolean {
    if (typeof from !== 'object' || from === null || typeof node !== 'object' || node === null) return false;
    return this.nodesOf(from).has(node);
  }

  private nodesOf(from: object): Set<object> {
    let nodes = this.cache.get(from);
    if (!nodes) {
      nodes = new Set();
      this.collect(from, nodes);
      this.cache.set(from, nodes);
    }
    return nodes;
  }

  private collect(node: unknown, into: Set<object>): void {
    if (typeof node !== 'object' || node === null || into.has(node)) return;
    into.add(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') this.collect(this.resolve(value), into);
      else this.collect(value, into);
    }
  }

  private resolve(ref: string): unknown {
    if (!ref.startsWith('#')) return undefined;
    let node: unknown = this.root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    }
    return node;
  }
}
