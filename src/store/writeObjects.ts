import { DqError, displayKey, keyId, specJsonOf, type ObjectKey, type ObjectWrite } from '../model/index.js';
import type { SqlQueryable } from './sql/sqlClient.js';
import { copyPieces, copyTextField } from './sql/copyText.js';
import { chunksOfJson, MAX_CHUNK_BYTES } from './sql/jsonChunks.js';

/**
 * Bulk writes of live objects. Each statement takes ONE jsonb parameter holding an array of rows, expanded by
 * `jsonb_to_recordset` (a jsonb[] parameter with unnest is an order of magnitude slower), in chunks of about
 * 2 MB (measured: 1-2 MB chunks are fastest on both engines, one 32 MB statement is twice as slow).
 * Values are always bound, never spliced into SQL.
 *
 * Where an embedded apply's time goes (measured at 10,000 tables, 16 MB of specs, PGlite): parsing the JSON
 * into jsonb inside the WASM engine (about 2.5 s, the floor of any jsonb write: COPY or one text parameter per row
 * were no faster) and compressing the large specs for TOAST (pglz in WASM, about 3 s more; migration 0014 stores
 * them uncompressed).
 */
export async function upsertObjects(sql: SqlQueryable, objects: ObjectWrite[], revision: number): Promise<void> {
  const once = writtenOnce('upsert');
  for (const object of objects) once(object);
  // serialized chunk by chunk as the statements go (a generator): never the text of every object at once
  const rows = (function* () {
    for (const object of objects) {
      yield JSON.stringify({
        kind: object.kind,
        name: object.name,
        spec: object.spec,
        attachments: object.attachments,
        content_hash: object.contentHash,
        applied_hash: object.appliedHash,
        applied_content: object.appliedContent, // absent (SQL NULL) unless a keep-drift merge
        managed_by: object.managedBy,
        owner: object.owner,
        origin_file: object.originFile,
        origin_commit: object.originCommit,
      });
    }
  })();
  // applied_content (the base of a three-way comparison) is NULL while the live content is the applied one. An API
  // write (content and applied hash differ, no content given) to an object in sync saves the content it replaces as
  // the base; to one already drifted it keeps the base it has.
  for (const chunk of chunksOfJson(rows)) {
    await sql.query(
      `insert into dqctl.objects as o (kind, name, spec, attachments, content_hash, applied_hash, applied_content,
                                       managed_by, owner, origin_file, origin_commit, revision, created_at, updated_at)
       select r.kind, r.name, r.spec, coalesce(r.attachments, '{}'::jsonb), r.content_hash, r.applied_hash, r.applied_content,
              r.managed_by, r.owner, r.origin_file, r.origin_commit, $2, now(), now()
         from jsonb_to_recordset($1::text::jsonb) as r(kind text, name text, spec jsonb, attachments jsonb,
              content_hash text, applied_hash text, applied_content jsonb, managed_by text, owner text,
              origin_file text, origin_commit text)
       on conflict (kind, name) do update set
         applied_content = case
           when excluded.applied_content is not null then excluded.applied_content
           when excluded.content_hash = excluded.applied_hash or excluded.applied_hash is null then null
           else coalesce(o.applied_content,
                         case when o.content_hash = o.applied_hash then jsonb_build_object('spec', o.spec, 'attachments', o.attachments) end)
         end,
         spec = excluded.spec, attachments = excluded.attachments, content_hash = excluded.content_hash,
         applied_hash = excluded.applied_hash, managed_by = excluded.managed_by, owner = excluded.owner,
         origin_file = excluded.origin_file, origin_commit = excluded.origin_commit, revision = excluded.revision,
         updated_at = excluded.updated_at`,
      [chunk, revision],
    );
  }
}

/**
 * Objects new to the store (a plan's creates, whose keys the plan found absent at the revision apply checks): one
 * COPY into dqctl.objects, its rows made as they are sent, so that neither the rows nor their text are all held at
 * once. No upsert: COPY parses each spec once (jsonb_in), where the upsert's jsonb_to_recordset costs PostgreSQL
 * four to five times the CPU (measured: 30,000 tables, 7.5-9.1 s against 1.7 s of the server's CPU). A key that
 * exists after all fails the statement, and with it the transaction. Returns the number of objects written.
 */
export async function insertNewObjects(
  sql: SqlQueryable,
  objects: Iterable<ObjectWrite>,
  revision: number,
  onProgress?: (written: number) => void,
): Promise<number> {
  const once = writtenOnce('insert');
  let written = 0;
  const rows = (function* () {
    for (const object of objects) {
      once(object);
      yield `${copyTextField(object.kind)}\t${copyTextField(object.name)}\t${copyTextField(specJsonOf(object))}\t${copyTextField(
        JSON.stringify(object.attachments ?? {}),
      )}\t${copyTextField(object.contentHash)}\t${copyTextField(object.appliedHash)}\t${copyTextField(object.managedBy)}\t${copyTextField(
        object.owner,
      )}\t${copyTextField(object.originFile)}\t${copyTextField(object.originCommit)}\t${revision}\n`;
      written += 1;
      if (onProgress && written % PROGRESS_EVERY === 0) onProgress(written);
    }
  })();
  // applied_content stays NULL (the content is the applied one); created_at and updated_at default to now()
  await sql.copyFrom(
    `copy dqctl.objects (kind, name, spec, attachments, content_hash, applied_hash, managed_by, owner, origin_file, origin_commit, revision) from stdin`,
    { pieces: copyPieces(rows, MAX_CHUNK_BYTES) },
  );
  onProgress?.(written);
  return written;
}

/** How often insertNewObjects tells its caller how far it got (a terminal's progress bar). */
const PROGRESS_EVERY = 250;

/** Throws when one statement would write the same key twice (a bug of the caller: the second would win silently). */
function writtenOnce(statement: string): (object: ObjectWrite) => void {
  const seen = new Set<string>();
  return (object) => {
    const id = keyId(object);
    if (seen.has(id)) throw new DqError('INTERNAL', `${displayKey(object)} is written twice in one ${statement}`);
    seen.add(id);
  };
}

export async function deleteObjects(sql: SqlQueryable, keys: ObjectKey[]): Promise<void> {
  const rows = keys.map((key) => JSON.stringify({ kind: key.kind, name: key.name }));
  for (const chunk of chunksOfJson(rows)) {
    await sql.query(
      `delete from dqctl.objects o
        using jsonb_to_recordset($1::text::jsonb) as k(kind text, name text)
        where o.kind = k.kind and o.name = k.name`,
      [chunk],
    );
  }
}
