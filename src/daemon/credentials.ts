/**
 * The tokens the daemon accepts and whom each one names (docs/decisions.md §15.1): the daemon token for
 * the owner, and each agent's token from `agents/NAME.token`. A request is checked against the
 * set as it is on disk at that moment, so `latch agent add | rotate | remove` take effect at the
 * next request without a restart, like `latch token rotate`.
 */
import { lstatSync } from 'node:fs';
import { agentsDir, assertAgentsDirPrivate, listAgentNames, markAgentUsed, readAgentToken, agentTokenPath } from '../datadir/agents.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import type { Logger } from '../log/logger.js';
import { OWNER, type Principal } from '../core/principal.js';
import type { Credential } from '../http/bearer-token.js';
import { reloadOnChange } from './reload-on-change.js';

export type { Credential } from '../http/bearer-token.js';

/** How often a refused agent file is logged again while it stays refused. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** How often an agent's last use is written to disk: `latch agent list` shows it to the minute. */
const LAST_USE_WRITE_INTERVAL_MS = 60_000;

/** What createCredentials needs. */
export interface CredentialsOptions {
  home: string;
  /** The daemon token; throws a DataDirError when its file is missing or unsafe. */
  ownerToken: () => string;
  logger: Logger;
  nowMs?: () => number;
}

/** The daemon's credential set. */
export interface Credentials {
  /**
   * list returns every token accepted now, the owner's first. An unsafe daemon_token throws (the
   * request is refused with 503); an unsafe agent file only takes that agent out of the set and
   * is logged with its fix, since one agent's broken file must not lock out the owner.
   */
  list(): readonly Credential[];
  /** noteUse records that a request was accepted for principal (for `latch agent list`). */
  noteUse(principal: Principal): void;
}

/** createCredentials builds the credential set of one data directory. */
export function createCredentials(options: CredentialsOptions): Credentials {
  const { home, ownerToken, logger } = options;
  const nowMs = options.nowMs ?? Date.now;
  const agentTokens = new Map<string, () => string>();
  const refusalLoggedMs = new Map<string, number>();
  const lastUseWrittenMs = new Map<string, number>();
  let folderIdentity: string | undefined;
  let folderRefused = false;

  const refuse = (key: string, error: unknown): void => {
    const last = refusalLoggedMs.get(key);
    if (last !== undefined && nowMs() - last < REFUSAL_LOG_INTERVAL_MS) return;
    refusalLoggedMs.set(key, nowMs());
    if (error instanceof DataDirError) logger.error('agent_token_refused', { file: error.file, problem: error.code, fix: error.fix });
    else logger.error('agent_token_refused', { file: key, problem: (error as NodeJS.ErrnoException).code ?? 'unknown' });
  };

  /** rescan re-reads the folder's listing when the folder changed (an agent added or removed). */
  const rescan = (): void => {
    const identity = folderIdentityOf(agentsDir(home));
    if (identity === folderIdentity) return;
    folderIdentity = identity;
    try {
      assertAgentsDirPrivate(home);
      folderRefused = false;
    } catch (error) {
      folderRefused = true;
      refuse(agentsDir(home), error);
      return;
    }
    const names = new Set(listAgentNames(home));
    for (const name of agentTokens.keys()) if (!names.has(name)) agentTokens.delete(name);
    for (const name of names) {
      if (!agentTokens.has(name)) {
        agentTokens.set(
          name,
          reloadOnChange(
            agentTokenPath(home, name),
            () => {
              const token = readAgentToken(home, name);
              logger.addSecret(token);
              return token;
            },
            // A rotated agent token is refused on the very next request (docs/decisions.md §39.3).
            { everyCall: true },
          ),
        );
      }
    }
  };

  return {
    list() {
      const credentials: Credential[] = [{ token: ownerToken(), principal: OWNER }];
      rescan();
      if (folderRefused) return credentials;
      for (const [name, token] of agentTokens) {
        try {
          credentials.push({ token: token(), principal: { kind: 'agent', name } });
        } catch (error) {
          // Removed between the listing and the read: simply not an agent any more.
          if (error instanceof DataDirError && error.code === 'missing') continue;
          refuse(agentTokenPath(home, name), error);
        }
      }
      return credentials;
    },
    noteUse(principal) {
      if (principal.kind !== 'agent') return;
      const now = nowMs();
      const last = lastUseWrittenMs.get(principal.name);
      if (last !== undefined && now - last < LAST_USE_WRITE_INTERVAL_MS) return;
      lastUseWrittenMs.set(principal.name, now);
      try {
        markAgentUsed(home, principal.name, new Date(now));
      } catch (error) {
        // Recording the last use is a convenience; failing it never fails the request.
        logger.warn('agent_last_use_not_recorded', { agent: principal.name, problem: (error as NodeJS.ErrnoException).code ?? 'unknown' });
      }
    },
  };
}

/** folderIdentityOf changes whenever an entry is added, removed or renamed, or the mode changes. */
function folderIdentityOf(folder: string): string {
  // Asked on every request: an absent folder is an answer, not an exception (which costs more than the lstat).
  const stats = lstatSync(folder, { bigint: true, throwIfNoEntry: false });
  return stats === undefined ? 'absent' : `${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.mode}:${stats.uid}`;
}
