import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCloudOrigin } from '../../src/cloud/cloud-client.js';
import { cloudOrigin } from '../../src/cloud/cloud-origin.js';
import { normalizeCloudUrl } from '../../src/datadir/config.js';
import { LatchError } from '../../src/errors/latch-error.js';

// One rule for config.json, LATCH_CLOUD_URL, `latch setup --cloud` and the cloud client: the
// edges where the two used to disagree are here, and each must give the same answer everywhere.
const cases: Array<[string, string | undefined]> = [
  ['https://api.latch.example', 'https://api.latch.example'],
  ['https://API.Latch.Example/', 'https://api.latch.example'],
  ['https://api.latch.example:443', 'https://api.latch.example'],
  ['http://127.0.0.1:7800', 'http://127.0.0.1:7800'],
  // Not wherever localhost resolves (::1 first on some machines, where another user may listen).
  ['http://localhost:7800/', 'http://127.0.0.1:7800'],
  ['http://LocalHost:7800', 'http://127.0.0.1:7800'],
  ['http://localhost', 'http://127.0.0.1'],
  // Over https the certificate is checked against the name, so it stays.
  ['https://localhost:8443', 'https://localhost:8443'],
  ['http://[::1]:7800', 'http://[::1]:7800'],
  ['http://127.0.0.2:7800', undefined],
  ['http://127.1:7800', 'http://127.0.0.1:7800'],
  ['http://127.0.0.1.nip.io', undefined],
  ['http://localhost.:7800', undefined],
  ['http://10.0.0.1', undefined],
  ['https://api.latch.example/?', undefined],
  ['https://api.latch.example/#', undefined],
  ['https://api.latch.example/v1', undefined],
  ['https://user@api.latch.example', undefined],
  ['ftp://api.latch.example', undefined],
  ['', undefined],
];

for (const [input, want] of cases) {
  test(`${JSON.stringify(input)} → ${want ?? 'refused'} by config and by the cloud client alike`, () => {
    assert.equal(cloudOrigin(input), want);
    assert.equal(normalizeCloudUrl(input), want);
    if (want === undefined) {
      assert.throws(() => parseCloudOrigin(input), (error: unknown) => error instanceof LatchError && error.code === 'invalid_request' && error.param === 'cloud_url');
    } else {
      assert.equal(parseCloudOrigin(input).origin, want);
    }
  });
}
