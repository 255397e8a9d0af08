import nodemailer from 'nodemailer';
import { DqError, type JsonObject } from '../model/index.js';
import { emailSubject } from '../incidents/index.js';
import type { SmtpSettings } from './deliverySettings.js';
import { networkReason, type SendOutcome } from './sendAttempt.js';

/**
 * An e-mail message, as plain text (names stay text, never HTML): the summary line, then the message's fields.
 * The SMTP password is a `${ENV}` reference resolved here. An SMTP 5xx refusal is permanent; a 4xx, a refused
 * or dropped connection and a timeout are retried.
 */
export async function sendEmail(to: string, body: JsonObject, idempotencyKey: string, smtp: SmtpSettings | undefined, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<SendOutcome> {
  if (!smtp) return { kind: 'permanent', reason: 'no SMTP server is configured (notifications.smtp in dqctl.yaml) for e-mail addresses' };
  let password: string | undefined;
  if (smtp.password !== undefined) {
    try {
      password = /\$\{/.test(smtp.password) ? resolveSecret(smtp.password, env) : smtp.password;
    } catch (error) {
      return { kind: 'permanent', reason: (error as Error).message };
    }
  }
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: password ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // a local or self-signed test server offers STARTTLS without a trusted certificate
    tls: { rejectUnauthorized: false },
  });
  const fields = Object.entries(body)
    .filter(([key]) => key !== 'text')
    .map(([key, value]) => `${key}: ${value === null ? '' : String(value)}`)
    .join('\n');
  try {
    await transport.sendMail({
      from: smtp.from,
      to,
      subject: emailSubject(body),
      text: `${String(body.text ?? '')}\n\n${fields}\n`,
      headers: { 'X-Idempotency-Key': idempotencyKey },
      messageId: `<${idempotencyKey}@dqctl>`,
    });
    return { kind: 'delivered' };
  } catch (error) {
    const code = (error as { responseCode?: unknown }).responseCode;
    if (typeof code === 'number') {
      const reason = `the SMTP server refused the message (${code}): ${String((error as { response?: unknown }).response ?? '').slice(0, 200)}`;
      return code >= 500 ? { kind: 'permanent', reason } : { kind: 'transient', reason };
    }
    return { kind: 'transient', reason: networkReason(error) };
  } finally {
    transport.close();
  }
}

function resolveSecret(reference: string, env: NodeJS.ProcessEnv): string {
  return reference.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined) throw new DqError('SECRET_UNRESOLVED', `the environment variable ${name} of the SMTP password is not set`);
    return value;
  });
}
