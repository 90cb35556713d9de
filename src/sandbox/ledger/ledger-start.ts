import { promises as fs } from 'node:fs';
import { Journal, JournalCorruptError } from '../../store/journal.js';
import { resumeAfter } from './journal-resume.js';
import { readSnapshotFile } from './snapshot-file.js';
import { apply } from './apply.js';
import type { JournalRecord } from './events.js';
import { checkInvariants } from './invariants.js';
import { decodeState, readSnapshotMeta } from './snapshot.js';
import { emptyState, type SandboxState } from './state.js';

/** How a ledger found its state at start. */
export interface LedgerStart {
  /** `snapshot`: the snapshot and the records after it; `journal`: every record of the journal. */
  from: 'snapshot' | 'journal';
  /** Why a snapshot that was there was not used (and removed); undefined when none was found or it was used. */
  snapshotIgnored?: string;
  /** The seq the snapshot in use covers (0 when the whole journal was replayed). */
  snapshotSeq: number;
  /** How many journal records were replayed. */
  replayedRecords: number;
  /** Bytes of a torn last record dropped from the journal. */
  droppedBytes: number;
}

/**
 * openFromSnapshot opens the journal and rebuilds the state, from the snapshot when it is whole,
 * consistent and continued by the journal (the frame it names is at the offset it names), else
 * from the whole journal (docs/decisions.md §15.9). The journal is the source of truth and is never
 * compacted, so ignoring a snapshot costs time, never data. Damage before the journal's last
 * record still refuses with JournalCorruptError, whichever way the journal is read.
 */
export async function openFromSnapshot(journalPath: string, snapshotPath: string | undefined): Promise<{ journal: Journal; state: SandboxState; start: LedgerStart }> {
  let snapshotIgnored: string | undefined;
  if (snapshotPath !== undefined) {
    try {
      const resumed = await resumeFromSnapshot(journalPath, snapshotPath);
      if (resumed !== undefined) return resumed;
    } catch (error) {
      if (error instanceof JournalCorruptError) throw error;
      snapshotIgnored = error instanceof Error ? error.message : String(error);
    }
  }
  const { journal, contents } = await Journal.open(journalPath);
  try {
    const state = replay(contents.payloads);
    // A snapshot the journal does not continue would be read and refused at every start; a
    // fresh one is written from the replayed state instead.
    if (snapshotIgnored !== undefined && snapshotPath !== undefined) await fs.unlink(snapshotPath).catch(() => undefined);
    const start: LedgerStart = { from: 'journal', snapshotSeq: 0, replayedRecords: contents.payloads.length, droppedBytes: contents.droppedBytes };
    return { journal, state, start: snapshotIgnored === undefined ? start : { ...start, snapshotIgnored } };
  } catch (error) {
    await journal.close();
    throw error;
  }
}

/** resumeFromSnapshot returns the ledger's start from the snapshot, undefined when there is none, or throws why it cannot be used. */
async function resumeFromSnapshot(journalPath: string, snapshotPath: string): Promise<{ journal: Journal; state: SandboxState; start: LedgerStart } | undefined> {
  const found = await readSnapshotFile(snapshotPath);
  if (found === undefined) return undefined;
  const covered = readSnapshotMeta(found.meta);
  const state = decodeState(found.body);
  if (state.seq !== covered.seq) throw new Error('the snapshot state is not at the seq its meta names');
  // A checksum guards against damage, not against a snapshot written by a buggy build.
  if (checkInvariants(state).length > 0) throw new Error('the snapshot state breaks the ledger invariants');
  const { journal, contents } = await Journal.open(journalPath, { readContents: resumeAfter(covered.resumeAfter) });
  try {
    replay(contents.payloads, state);
  } catch (error) {
    await journal.close();
    throw error;
  }
  return { journal, state, start: { from: 'snapshot', snapshotSeq: covered.seq, replayedRecords: contents.payloads.length, droppedBytes: contents.droppedBytes } };
}

/** replay folds the journal's records into state (a fresh one by default) with apply(). */
export function replay(payloads: readonly Uint8Array[], state: SandboxState = emptyState()): SandboxState {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const payload of payloads) apply(state, JSON.parse(decoder.decode(payload)) as JournalRecord);
  return state;
}
