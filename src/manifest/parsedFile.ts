import type { Diagnostic, JsonObject } from '../model/index.js';
import type { LoadedObject } from './semanticChecks.js';

/** What loading one object file produced; kept by ParseCache (parseCache.ts) and on disk (persistedParseCache.ts). */
export interface ParsedFile {
  version: string | undefined;
  text: string;
  diagnostics: Diagnostic[];
  /** Present when the file parsed and passed its envelope and schema checks. */
  loaded?: LoadedObject;
  /**
   * The document's spec as written (after `${var.…}` substitution), when the file was parsed by this process; an
   * entry of the persisted cache has none (its normalized spec is kept instead).
   */
  rawSpec?: JsonObject;
  /** normalizeSpec(rawSpec), computed once. */
  spec?: JsonObject;
  /**
   * JSON.stringify(normalizeSpec(rawSpec)) when a parse worker made it (parseWorkers.ts) and nobody needed the object
   * yet (validate): written as it is into the parse cache's shard, parsed when a load asks for the spec.
   */
  specJson?: string;
  /** contentHash(spec, {}), for objects without attachments. */
  hash?: string;
  /**
   * The `${var.…}` the file uses and VariableScope.keyOf them when it was parsed: the entry holds substituted
   * values, so it is reused only while that key is the same (another --env, or a changed value in dqctl.yaml,
   * parses the file again). Absent: the file uses no variable, and is the same in every environment.
   */
  variables?: { names: string[]; key: string };
  /** sha256 of `text`, when known (the persisted cache's key). */
  sha?: string;
}
