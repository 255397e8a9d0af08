import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactSecrets, resolveSecretReferences } from '../../src/datasource/index.js';

describe('secret references', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-secrets-'));
    await writeFile(join(dir, 'token'), 'tok-123\r\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const context = () => ({ env: { HOST: 'db1', EMPTY: '' }, credentialsDir: dir });

  it('resolves references inside a value, several at once, and reports what it resolved', async () => {
    expect(await resolveSecretReferences('${HOST}.internal:${credential://token}', context(), 'x')).toEqual({ value: 'db1.internal:tok-123', secrets: ['db1', 'tok-123'] });
    expect(await resolveSecretReferences('plain', context(), 'x')).toEqual({ value: 'plain', secrets: [] });
    expect(await resolveSecretReferences('${EMPTY}', context(), 'x')).toEqual({ value: '', secrets: [''] });
  });

  it('refuses what it cannot resolve, naming the reference and never a value', async () => {
    await expect(resolveSecretReferences('${MISSING_VAR}', context(), 'connection "c": postgresql.password')).rejects.toMatchObject({
      code: 'SECRET_UNRESOLVED',
      message: 'connection "c": postgresql.password refers to the environment variable MISSING_VAR, which is not set',
    });
    await expect(resolveSecretReferences('${sm://vault/db}', context(), 'x')).rejects.toMatchObject({ code: 'SECRET_UNRESOLVED', message: expect.stringContaining('sm://') });
    await expect(resolveSecretReferences('${not a name}', context(), 'x')).rejects.toMatchObject({ code: 'SECRET_UNRESOLVED' });
    await expect(resolveSecretReferences('${credential://../token}', context(), 'x')).rejects.toMatchObject({ code: 'SECRET_UNRESOLVED' });
    await expect(resolveSecretReferences('${credential://token}', { env: {} }, 'x')).rejects.toMatchObject({ message: expect.stringContaining('no credentials folder') });
  });

  it('redacts resolved values from messages (longest first; very short values are left alone)', () => {
    expect(redactSecrets('user "alice-admin" at alice-admin.db failed (ab)', ['alice', 'alice-admin', 'ab'])).toBe('user "(sensitive)" at (sensitive).db failed (ab)');
  });
});
