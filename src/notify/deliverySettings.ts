import { isJsonObject, type JsonObject } from '../model/index.js';

/**
 * How the deliverer sends: SMTP for e-mail addresses (the `notifications.smtp` block of dqctl.yaml, its password
 * a `${ENV}` reference resolved when sending), the public URL its links point to, and how long a message is
 * retried before it is marked failed.
 */
export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user?: string;
  /** As written: a `${ENV}` reference. */
  password?: string;
  from: string;
}

export interface DeliverySettings {
  smtp?: SmtpSettings;
  /** Base of the incident links in messages (default: the server's own URL). */
  publicUrl?: string;
  /** A message not delivered within this time of its creation is marked failed (default 1 h). */
  retryForMs: number;
  /** How long one send may take before it counts as a timeout (default 10 s). */
  sendTimeoutMs: number;
  /** First retry delay; doubled each attempt up to maxBackoffMs (defaults 1 s and 5 min). */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_DELIVERY: DeliverySettings = {
  retryForMs: 60 * 60_000,
  sendTimeoutMs: 10_000,
  initialBackoffMs: 1_000,
  maxBackoffMs: 5 * 60_000,
};

/** From the `spec.notifications` block of an already schema-validated dqctl.yaml. */
export function readDeliverySettings(settingsDocument: unknown): DeliverySettings {
  const spec = isJsonObject(settingsDocument) && isJsonObject(settingsDocument.spec) ? settingsDocument.spec : {};
  const n: JsonObject = isJsonObject(spec.notifications) ? spec.notifications : {};
  const settings: DeliverySettings = { ...DEFAULT_DELIVERY };
  const seconds = (v: unknown) => (typeof v === 'number' && v > 0 ? v * 1000 : undefined);
  settings.retryForMs = seconds(n.retry_for_seconds) ?? settings.retryForMs;
  settings.sendTimeoutMs = seconds(n.send_timeout_seconds) ?? settings.sendTimeoutMs;
  settings.initialBackoffMs = seconds(n.initial_backoff_seconds) ?? settings.initialBackoffMs;
  settings.maxBackoffMs = seconds(n.max_backoff_seconds) ?? settings.maxBackoffMs;
  if (typeof n.public_url === 'string') settings.publicUrl = n.public_url;
  if (isJsonObject(n.smtp) && typeof n.smtp.host === 'string' && typeof n.smtp.from === 'string') {
    const s = n.smtp;
    settings.smtp = {
      host: s.host as string,
      port: typeof s.port === 'number' ? s.port : s.secure === true ? 465 : 587,
      secure: s.secure === true,
      ...(typeof s.user === 'string' ? { user: s.user } : {}),
      ...(typeof s.password === 'string' ? { password: s.password } : {}),
      from: s.from as string,
    };
  }
  return settings;
}
