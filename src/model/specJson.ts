import type { JsonObject } from './json.js';

/**
 * An object's spec as JSON text, when the object can give it without building the spec: a desired object whose spec
 * is still in the parse cache's shard (loadRepository's lazy specs) holds its text there, and an apply sends the
 * specs of its creates to the store as that text (COPY), with no object made of it only to be serialized again
 * (the garbage of that doubled the heap of an apply at 100,000 tables, issue 25).
 *
 * The text is exactly JSON.stringify(object.spec). Non-enumerable and keyed by a symbol, so that a copy of the object
 * (a spread, a merged write) does not keep it: only the object it was attached to, whose spec it is, answers with it.
 */
const SPEC_JSON = Symbol('dqctl.specJson');

type WithSpecJson = { [SPEC_JSON]?: () => string | undefined };

/** Attaches to `object` the text of its spec (`json`: JSON.stringify(object.spec), or undefined when not known). */
export function withSpecJson<T extends object>(object: T, json: () => string | undefined): T {
  Object.defineProperty(object, SPEC_JSON, { value: json, enumerable: false, configurable: true, writable: true });
  return object;
}

/** Removes what withSpecJson attached (the object's spec was replaced). */
export function forgetSpecJson(object: object): void {
  delete (object as WithSpecJson)[SPEC_JSON];
}

/** The text of the object's spec when it knows it without building the spec, else undefined. */
export function knownSpecJson(object: object): string | undefined {
  return (object as WithSpecJson)[SPEC_JSON]?.();
}

/** JSON.stringify(object.spec), from the text the object knows when it does. */
export function specJsonOf(object: { spec: JsonObject }): string {
  return knownSpecJson(object) ?? JSON.stringify(object.spec);
}
