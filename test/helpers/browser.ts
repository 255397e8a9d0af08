import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CONSOLE_DIR } from '../../src/server/console.js';

/**
 * A real browser for the console's tests: Debian's Chromium driven by playwright-core (no browser download).
 * A missing browser or an unbuilt console FAILS the tests that need them, with what to do; it never skips.
 */
export const CHROMIUM = process.env.DQCTL_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the console's browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium (or set DQCTL_CHROMIUM)`);
  }
  if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
    throw new Error(`the console is not built in ${CONSOLE_DIR}: run npm run build (npm test does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** The server listening on a free loopback port, and its base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the server has no port');
  return `http://127.0.0.1:${address.port}`;
}

/** A page that records what the browser's console and the page report as errors, and dialogs (an alert means script ran). */
export async function watchedPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // the browser's "Failed to load resource" names no URL: a server error is recorded with it
  page.on('response', (response) => {
    if (response.status() >= 500) problems.push(`response ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, problems };
}
