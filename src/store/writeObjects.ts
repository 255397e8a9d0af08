import { DqError, displayKey, keyId, type ObjectKey, type ObjectWrite } from '../model/index.js';
import type { SqlQueryable } from './sql/sqlClient.js';
import { chunksOfJson } from './sql/jsonChunks.js';

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
  const seen = new Set<string>();
  for (const object of objects) {
    const id = keyId(object);
    if (seen.has(id)) throw new DqError('INTERNAL', `${displayKey(object)} is written twice in one upsert`);
    seen.add(id);
  }
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
