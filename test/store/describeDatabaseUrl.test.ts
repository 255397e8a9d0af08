import { describe, expect, it } from 'vitest';
import { describeDatabaseUrl } from '../../src/store/sql/describeDatabaseUrl.js';

describe('describeDatabaseUrl', () => {
  it.each([
    ['postgres://alice:s3cret@db.example.com:6543/dq', 'postgres://alice@db.example.com:6543/dq'],
    ['postgresql://alice@db/dq?sslmode=require&password=s3cret', 'postgres://alice@db:5432/dq'],
    ['postgres://us%40er:pw@h/my%20db', 'postgres://us@er@h:5432/my db'],
    ['postgres:///dq?host=/var/run/postgresql', 'postgres://localhost:5432/dq (socket /var/run/postgresql)'],
  ])('%s → %s', (url, expected) => {
    expect(describeDatabaseUrl(url)).toBe(expected);
  });

  it('rejects what is not a postgres URL, without echoing it', () => {
    expect(() => describeDatabaseUrl('not a url with s3cret')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    try {
      describeDatabaseUrl('not a url with s3cret');
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret');
    }
    expect(() => describeDatabaseUrl('mysql://u:p@h/db')).toThrow(/must start with postgres:\/\//);
  });
});
