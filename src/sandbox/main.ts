/**
 * The sandbox cloud's own entry point:
 *
 *     tsx src/sandbox/main.ts --port 7780 --data-dir ~/.latch/sandbox [--host 127.0.0.1]
 *
 * Once listening it prints one JSON line `{"cloud_url", "admin_key_path"}` on stdout; logs go to
 * stderr. SIGTERM and SIGINT close it cleanly (queued operations finish, the journal is closed).
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../log/logger.js';
import { createSandbox, type Sandbox } from './create-sandbox.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' }, 'data-dir': { type: 'string' } },
    strict: true,
  });
  const port = Number(values.port);
  if (!/^[0-9]{1,5}$/.test(values.port ?? '') || port > 65_535) throw new Error('--port must be a number from 0 to 65535.');
  const dataDir = values['data-dir'];
  if (dataDir === undefined || dataDir === '') throw new Error('--data-dir is required (the CLI uses $LATCH_HOME/sandbox).');
  const log = createLogger();
  // Signal handlers go in before anything is announced: a signal that arrives between the
  // announcement and their installation would kill the process without closing the journal.
  let sandbox: Sandbox | undefined;
  let signalled = false;
  const closeAndExit = (running: Sandbox): void => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const onSignal = (): void => {
    if (signalled) return;
    signalled = true;
    if (sandbox !== undefined) closeAndExit(sandbox);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  sandbox = await createSandbox({ dataDir, port, host: values.host ?? '127.0.0.1', log });
  log.addSecret(sandbox.adminKey);
  if (sandbox.droppedJournalBytes > 0) log.warn('journal_torn_record_dropped', { bytes: sandbox.droppedJournalBytes });
  if (sandbox.ledgerStart.snapshotIgnored !== undefined) log.warn('snapshot_ignored', { reason: sandbox.ledgerStart.snapshotIgnored, replayed_records: sandbox.ledgerStart.replayedRecords });
  if (signalled) {
    closeAndExit(sandbox);
    return;
  }
  process.stdout.write(`${JSON.stringify({ cloud_url: sandbox.url, admin_key_path: sandbox.adminKeyPath })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`latch sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
