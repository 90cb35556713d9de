/**
 * The sandbox cloud for embedders' integration tests (`import { createSandbox } from
 * 'latch/sandbox'`): the same sandbox `latch sandbox` runs, in the test's own process, with the
 * enrollment `latch setup` performs. It is a separate entry from 'latch', so that a program that
 * embeds only the daemon loads none of it (docs/decisions.md §24.7).
 *
 * @example
 * import { createDaemon, LatchClient } from 'latch';
 * import { createSandbox, enrollThisDevice } from 'latch/sandbox';
 * const sandbox = await createSandbox({ dataDir: '/tmp/latch-test/sandbox', port: 0 });
 * const answer = await fetch(`${sandbox.url}/v1/sandbox/setup-tokens`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.adminKey}`, 'content-type': 'application/json' }, body: '{}' });
 * const { setup_token } = (await answer.json()) as { setup_token: string };
 * const home = '/tmp/latch-test/home';
 * await enrollThisDevice({ home, env: {}, setupToken: setup_token, cloudUrl: sandbox.url, reconnect: false });
 * const daemon = createDaemon({ home, portA: 0, variantB: false, env: {} });
 * const { portA } = await daemon.listen();
 * const client = new LatchClient({ home, baseUrl: `http://127.0.0.1:${portA}` });
 * console.log((await client.health()).signing_key);
 * client.close();
 * await daemon.close();
 * await sandbox.close();
 */
export { createSandbox, type Sandbox, type SandboxOptions } from './create-sandbox.js';
export { enrollThisDevice, type EnrollThisDevice, type EnrolledDevice } from '../cli/enroll-this-device.js';
