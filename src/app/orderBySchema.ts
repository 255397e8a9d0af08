import { isJsonObject, type JsonValue, appendAll } from '../model/index.js';

/**
 * Puts the keys of a document in the order its JSON Schema lists them (`properties`, then those of `allOf`
 * branches), recursively, and the keys of free maps (columns, labels, anything the schema does not name) in
 * code-point order. The result does not depend on the order the keys arrived in (jsonb sorts them its own way),
 * so the same document always serializes to the same bytes.
 *
 * Maps are returned as `Map`s: a plain object would move integer-like keys (a column named "2024") first.
 */
export type Ordered = string | number | boolean | null | Ordered[] | Map<string, Ordered>;

type SchemaNode = Record<string, unknown>;

export class SchemaKeyOrder {
  private readonly propertyLists = new Map<SchemaNode, string[]>();

  constructor(private readonly root: SchemaNode) {}

  /** `value` ordered as the schema node at `schema` (the document root when omitted) describes it. */
  order(value: JsonValue, schema: SchemaNode | undefined = this.root): Ordered {
    if (Array.isArray(value)) {
      const items = schema ? this.itemsSchema(schema) : undefined;
      return value.map((item) => this.order(item, items));
    }
    if (!isJsonObject(value)) return value;
    const known = schema ? this.propertyNames(schema) : [];
    const present = new Set(Object.keys(value));
    const keys = known.filter((k) => present.has(k));
    const named = new Set(keys);
    appendAll(keys, [...present].filter((k) => !named.has(k)).sort(compareCodePoints));
    const out = new Map<string, Ordered>();
    for (const key of keys) out.set(key, this.order(value[key], schema ? this.childSchema(schema, key) : undefined));
    return out;
  }

  /** Follows a local `$ref` (`#/$defs/name`, `#/properties/…`); boolean schemas carry no order. */
  private resolve(node: unknown, depth = 0): SchemaNode | undefined {
    if (!isSchemaNode(node)) return undefined;
    const ref = node.$ref;
    if (typeof ref !== 'string' || depth > 32) return node;
    if (!ref.startsWith('#')) return node;
    let target: unknown = this.root;
    for (const raw of ref.slice(1).split('/').filter((s) => s !== '')) {
      const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isSchemaNode(target) ? target[segment] : undefined;
    }
    return this.resolve(target, depth + 1);
  }

  private branches(node: SchemaNode): SchemaNode[] {
    const out: SchemaNode[] = [];
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      for (const branch of list) {
        const resolved = this.resolve(branch);
        if (resolved) out.push(resolved);
      }
    }
    return out;
  }

  private propertyNames(schema: SchemaNode): string[] {
    const node = this.resolve(schema);
    if (!node) return [];
    const cached = this.propertyLists.get(node);
    if (cached) return cached;
    const names: string[] = [];
    const seen = new Set<string>();
    const add = (list: Iterable<string>) => {
      for (const name of list) {
        if (seen.has(name)) continue;
        seen.add(name);
        names.push(name);
      }
    };
    if (isSchemaNode(node.properties)) add(Object.keys(node.properties));
    for (const branch of this.branches(node)) add(this.propertyNames(branch));
    this.propertyLists.set(node, names);
    return names;
  }

  private childSchema(schema: SchemaNode, key: string): SchemaNode | undefined {
    const node = this.resolve(schema);
    if (!node) return undefined;
    if (isSchemaNode(node.properties)) {
      const own = this.resolve(node.properties[key]);
      if (own) return own;
    }
    for (const branch of this.branches(node)) {
      const found = this.childSchema(branch, key);
      if (found) return found;
    }
    if (isSchemaNode(node.patternProperties)) {
      for (const [pattern, sub] of Object.entries(node.patternProperties)) {
        if (new RegExp(pattern, 'u').test(key)) return this.resolve(sub);
      }
    }
    return this.resolve(node.additionalProperties);
  }

  private itemsSchema(schema: SchemaNode): SchemaNode | undefined {
    const node = this.resolve(schema);
    if (!node) return undefined;
    const own = this.resolve(node.items);
    if (own) return own;
    for (const branch of this.branches(node)) {
      const found = this.itemsSchema(branch);
      if (found) return found;
    }
    return undefined;
  }
}

function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Plain string order (UTF-16 code units): the same on every machine and locale, which localeCompare is not. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
