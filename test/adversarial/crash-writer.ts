/**
 * A child process for crash-daemon.test.ts (not a test itself): it repeats one command that
 * rewrites the data directory, through the real CLI, until it is killed, printing one line per
 * completed run so the parent knows writes are under way.
 *
 *     node --import tsx test/adversarial/crash-writer.ts rotate       latch token rotate, forever
 *     node --import tsx test/adversarial/crash-writer.ts reconnect    latch setup --reconnect, forever
 *
 * LATCH_HOME names the data directory. For reconnect, LATCH_CLOUD_URL, CRASH_ADMIN_KEY and
 * CRASH_ACCOUNT_ID let it mint a fresh setup token for each run from the sandbox.
 */
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { AdminClient } from '../support/sandbox-client.js';

const mode = process.argv[2];
const env = process.env;
const quiet = (): PassThrough => new PassThrough().resume();

async function run(args: string[]): Promise<void> {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await runCli(args, { stdout: quiet(), stderr, env });
  if (code !== 0) throw new Error(`latch ${args[0]} exited ${code}: ${text}`);
}

async function main(): Promise<void> {
  if (mode === 'rotate') {
    for (let n = 1; ; n++) {
      await run(['token', 'rotate']);
      process.stdout.write(`rotated ${n}\n`);
    }
  }
  if (mode === 'reconnect') {
    const admin = new AdminClient(env['LATCH_CLOUD_URL'] as string, env['CRASH_ADMIN_KEY'] as string);
    for (let n = 1; ; n++) {
      const { setup_token: token } = await admin.setupToken(env['CRASH_ACCOUNT_ID']);
      await run(['setup', '--reconnect', '--token', token]);
      process.stdout.write(`reconnected ${n}\n`);
    }
  }
  throw new Error('usage: crash-writer.ts rotate|reconnect');
}

main().catch((error: unknown) => {
  process.stderr.write(`crash-writer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
