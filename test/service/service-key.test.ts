/**
 * What root reads of the service user's data directory to pin it (docs/decisions.md §30.2): the
 * key id of config.json, which the old pin step never got (its owner check refused the service
 * user's file when run as root, and said "not enrolled yet"). The service user may have put a
 * symbolic link or another user's file there: root reads none of them. Making files of another
 * uid needs root.
 */
import assert from 'node:assert/strict';
import { chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { serviceKeyId } from '../../src/service/service-key.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const SERVICE = { name: 'l36svc', uid: 54_322, gid: 54_322, home: '/nonexistent' };
const KEY_ID = 'K'.repeat(43);

test("root reads the service user's key id, and nothing the service user could point elsewhere", { skip: isRoot ? false : 'needs root to make files of another uid' }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'latch-l36-servicekey-'));
  try {
    const home = path.join(root, 'data');
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, SERVICE.uid, SERVICE.gid);
    const config = path.join(home, 'config.json');
    assert.equal(serviceKeyId(home, SERVICE), undefined, 'not enrolled yet');
    writeFileSync(config, JSON.stringify({ key_id: KEY_ID }), { mode: 0o600 });
    chownSync(config, SERVICE.uid, SERVICE.gid);
    assert.equal(serviceKeyId(home, SERVICE), KEY_ID, "the service user's own config.json, read as root");

    chownSync(config, 0, 0);
    assert.equal(serviceKeyId(home, SERVICE), undefined, 'a config.json that is not the service user\'s');
    rmSync(config);
    const elsewhere = path.join(root, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ key_id: KEY_ID }));
    symlinkSync(elsewhere, config);
    assert.equal(serviceKeyId(home, SERVICE), undefined, 'a symbolic link is not followed');
    rmSync(config);
    writeFileSync(config, JSON.stringify({ key_id: 'not a key id' }));
    chownSync(config, SERVICE.uid, SERVICE.gid);
    assert.equal(serviceKeyId(home, SERVICE), undefined, 'a malformed key id');
    const linkedHome = path.join(root, 'linked-data');
    symlinkSync(home, linkedHome);
    assert.equal(serviceKeyId(linkedHome, SERVICE), undefined, 'a data directory reached through a link');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
