import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * Real receivers for notification tests: a local HTTP server that records each request (headers and JSON body)
 * and answers as `respond` says, or holds it open until the test `answer`s it (`arrival` is the event of a
 * request), and a local SMTP server (smtp-server) that records each mail or refuses it.
 */
export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The body as sent (JSON.parse would round a 64-bit integer). */
  raw: string;
  at: number;
}

export interface HttpReceiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Status to answer with for the n-th request (0-based); 'hang' holds it open (until `answer`, or forever). */
  respond: (n: number) => number | 'hang';
  /** Resolves when the n-th request (0-based) has arrived (at once if it has): an event, not a poll. */
  arrival(n: number): Promise<ReceivedRequest>;
  /** Answers the n-th request, held open by 'hang', with this status. */
  answer(n: number, status: number): void;
  close(): Promise<void>;
}

export async function startHttpReceiver(options: { port?: number; respond?: (n: number) => number | 'hang' } = {}): Promise<HttpReceiver> {
  const received: ReceivedRequest[] = [];
  const hanging = new Map<number, ServerResponse>();
  const arrivals = new EventEmitter();
  const receiver: HttpReceiver = {
    url: '',
    port: 0,
    received,
    respond: options.respond ?? (() => 200),
    arrival: (n) =>
      received[n] !== undefined
        ? Promise.resolve(received[n])
        : new Promise((resolve) => {
            const onArrival = (index: number) => {
              if (index !== n) return;
              arrivals.off('request', onArrival);
              resolve(received[n]);
            };
            arrivals.on('request', onArrival);
          }),
    answer: (n, status) => {
      const response = hanging.get(n);
      if (!response) throw new Error(`request ${n} is not held open`);
      hanging.delete(n);
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    },
    close: async () => {
      for (const response of hanging.values()) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const n = received.length;
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(raw || '{}'), raw, at: Date.now() });
      const status = receiver.respond(n);
      if (status === 'hang') hanging.set(n, response);
      else response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      arrivals.emit('request', n);
    });
  });
  await new Promise<void>((done) => server.listen(options.port ?? 0, '127.0.0.1', () => done()));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/** `refuse`: answer every recipient with 550 (a permanent refusal). */
export async function startSmtpReceiver(options: { refuse?: boolean; user?: string; password?: string } = {}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) callback(null, { user: auth.username });
      else callback(new Error('invalid credentials'));
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse) {
        const error = new Error(`mailbox ${address.address} unavailable`) as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/** A port nothing listens on (listened once, then closed). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
