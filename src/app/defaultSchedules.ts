import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import { SETTINGS_OBJECT_NAME } from '../manifest/objectPaths.js';
import { DqError, isJsonObject, type JsonObject } from '../model/index.js';
import { validateDocument } from '../schema/index.js';

/**
 * The default schedules (settings/defaultschedules.dqoschedules.yaml), one scheduling group at a time: read ({}
 * when unset), and replaced (the object created on its first write, validated as the file would be).
 */
export async function defaultSchedule(objects: LiveObjects, group: string): Promise<JsonObject> {
  const live = await objects.get('default_schedules', SETTINGS_OBJECT_NAME);
  return ((live && live.spec[group]) ?? {}) as JsonObject;
}

export async function replaceDefaultSchedule(objects: LiveObjects, group: string, schedule: JsonObject, writer: WriteContext): Promise<void> {
  await objects.upsert('default_schedules', SETTINGS_OBJECT_NAME, writer, (current) => {
    const spec: JsonObject = { ...(current && isJsonObject(current.spec) ? current.spec : {}), [group]: schedule };
    const violations = validateDocument('default_schedules', { apiVersion: 'dqo/v1', kind: 'default_schedules', spec });
    if (violations.length > 0) throw new DqError('BODY_INVALID', `the schedule is invalid: ${violations.map((v) => v.summary).join('; ')}`);
    return { spec };
  });
}
