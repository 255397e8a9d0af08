import { DEFAULT_NOTIFICATIONS_NAME } from '../manifest/objectPaths.js';
import { checkAddress } from '../manifest/notificationAddresses.js';
import { DqError, isJsonObject, type JsonObject } from '../model/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';

/**
 * What incident use cases read from the live objects: a connection's spec and the default notifications
 * (settings/defaultnotifications.dqonotifications.yaml, object `default_notifications/default`), and the address
 * check every API write of notification settings goes through (the same rule as `dqctl validate`).
 */
export async function defaultNotificationsSpec(objects: LiveObjects): Promise<JsonObject | undefined> {
  return (await objects.get('default_notifications', DEFAULT_NOTIFICATIONS_NAME))?.spec;
}

export async function incidentSettingsOf(objects: LiveObjects, connection: string): Promise<{ connectionSpec: JsonObject | undefined; defaultNotifications: JsonObject | undefined }> {
  const [source, defaults] = await Promise.all([objects.get('source', connection), defaultNotificationsSpec(objects)]);
  return { connectionSpec: source?.spec, defaultNotifications: defaults };
}

const ADDRESS_FIELDS = ['incident_opened_addresses', 'incident_acknowledged_addresses', 'incident_resolved_addresses', 'incident_muted_addresses'];

/** BODY_INVALID listing every address of a notification spec (and of its filtered notifications) that is neither a URL nor an e-mail. */
export function refuseInvalidAddresses(notification: unknown, at: string): void {
  if (!isJsonObject(notification)) return;
  const violations: JsonObject[] = [];
  const fields = (holder: JsonObject, path: string) => {
    for (const field of ADDRESS_FIELDS) {
      if (typeof holder[field] !== 'string') continue;
      for (const address of (holder[field] as string).split(',').map((a) => a.trim()).filter((a) => a !== '')) {
        const checked = checkAddress(address);
        if ('invalid' in checked) violations.push({ path: `${path}/${field}`, message: checked.invalid, code: 'invalid_address' });
      }
    }
  };
  fields(notification, at);
  if (isJsonObject(notification.target)) fields(notification.target, `${at}/target`);
  const filtered = isJsonObject(notification.filtered_notifications) ? notification.filtered_notifications : {};
  for (const [name, spec] of Object.entries(filtered)) {
    if (isJsonObject(spec) && isJsonObject(spec.target)) fields(spec.target, `${at}/filtered_notifications/${name}/target`);
  }
  if (violations.length > 0) {
    throw new DqError('BODY_INVALID', `${violations[0].path}: ${violations[0].message}`, { violations });
  }
}
