/**
 * A daemon child whose state.journal compacts after a few kilobytes instead of megabytes, so that
 * a test under approval load meets many compactions (crash-approvals-compaction.test.ts). The limit
 * is lowered in the exported default before the daemon is created; everything else is `latch
 * daemon` as shipped. Prints the daemon_listening line on stdout, as the CLI does.
 */
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { STATE_JOURNAL_LIMITS } from '../../src/datadir/state-store.js';

const home = process.env['LATCH_HOME'] as string;
(STATE_JOURNAL_LIMITS as { compactionBytesMin: number }).compactionBytesMin = Number(process.env['TEST_COMPACTION_BYTES'] ?? 8192);
const daemon = createDaemon({ home, portA: 0, portB: 0, variantB: false, env: { LATCH_HOME: home }, logStream: process.stderr });
void daemon.listen().then((ports) => process.stdout.write(`${JSON.stringify({ event: 'daemon_listening', pid: process.pid, port_a: ports.portA ?? null })}\n`));
