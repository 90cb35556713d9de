import { performance } from 'node:perf_hooks';
import { configPath, loadConfig, type LatchConfig } from '../datadir/config.js';
import { readRetiredMandateKeys, retiredMandateKeysPath, type RetiredMandateKey } from '../datadir/mandate-retired.js';
import { DATA_FILES, dataFilePath } from '../datadir/home.js';
import { assertHomeSecure } from '../datadir/permissions.js';
import { pausePath, readPause, type PauseState } from '../datadir/pause.js';
import { readToken, tokenPath } from '../datadir/token.js';
import type { Logger } from '../log/logger.js';
import type { Policy } from '../policy/policy-types.js';
import { StateStore } from '../datadir/state-store.js';
import { latchVersion } from '../version.js';
import { PolicyInForce } from './policy-in-force.js';
import { policySource } from './policy-source.js';
import { oncePerTurn, reloadOnChange } from './reload-on-change.js';

/**
 * DaemonServices is what route handlers may use: local state of one daemon, as plain functions.
 * Each getter re-reads its file when the file changed (see reloadOnChange), so `latch token
 * rotate`, `latch setup` and config edits take effect without a restart, and a file (or the data
 * directory) made unsafe while the daemon runs is refused at the next use.
 */
export interface DaemonServices {
  /** The absolute data directory. */
  readonly home: string;
  /** package.json's version. */
  readonly version: string;
  /** When this daemon was created. */
  readonly startedAt: Date;
  readonly logger: Logger;
  /** The environment the daemon was started with (LATCH_CLOUD_URL overrides config, for example). */
  readonly env: NodeJS.ProcessEnv;
  /** uptimeSeconds is whole seconds since start, from a monotonic clock. */
  uptimeSeconds(): number;
  /** token returns the current daemon token; throws a DataDirError when the file is missing or unsafe. */
  token(): string;
  /*
   * No keys: the signer (src/signer/, built once by core-binding.ts) loads and holds them, and
   * answers their public halves (docs/decisions.md §34.1).
   */
  /** retiredMandateKeys returns the retired mandate keys GET /ap2/jwks may still list. */
  retiredMandateKeys(): RetiredMandateKey[];
  /** config returns the current config.json (defaults when absent). */
  config(): LatchConfig;
  /** paused returns the owner's emergency brake (`latch pause`), or undefined while signing runs. */
  paused(): PauseState | undefined;
  /**
   * watchedFile returns a getter of what load makes of a file in the data directory, loaded again
   * only when the file changed, like every getter here: for files asked about on every request
   * (the owner passphrase, the passkeys: is presence configured?). load's errors are not kept.
   */
  watchedFile<T>(file: string, load: () => T): () => T;
  /**
   * policy returns the effective spending policy (policy.json, or the allow-all default when it
   * is absent); throws PolicyInvalidError while the file is invalid, a DataDirError when unsafe.
   */
  policy(): Policy;
  /** The daemon's durable state, state.journal: opened by listen(), closed by close(). */
  readonly stateStore: StateStore;
}

/** What createServices needs. */
export interface ServicesOptions {
  home: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

/** createServices builds the services of one daemon; nothing is read until a getter is called. */
export function createServices(options: ServicesOptions): DaemonServices {
  const { home, logger, env } = options;
  const startedMs = performance.now();
  // The directory is checked again whenever it changes (a chmod, a chown, a repointed link), not
  // only at start: a file is only as private as the directory that holds it.
  const homeChecked = oncePerTurn(reloadOnChange(home, () => assertHomeSecure(home)));
  const inCheckedHome = <T>(file: string, load: () => T): (() => T) => {
    const get = reloadOnChange(file, load);
    return () => {
      homeChecked();
      return get();
    };
  };
  const token = inCheckedHome(tokenPath(home), () => {
    const value = readToken(home);
    // Registered before any use, so no log line can ever carry it.
    logger.addSecret(value);
    return value;
  });
  const config = inCheckedHome(configPath(home), () => loadConfig(home));
  const paused = inCheckedHome(pausePath(home), () => readPause(home));
  const retiredMandateKeys = inCheckedHome(retiredMandateKeysPath(home), () => readRetiredMandateKeys(home));
  const stateStore = new StateStore(dataFilePath(home, DATA_FILES.stateJournal), undefined, undefined, (error) =>
    logger.warn('state_journal_compaction_failed', { detail: error instanceof Error ? error.message : String(error) }),
  );
  const policyInForce = new PolicyInForce(stateStore, (error) => logger.warn('policy_in_force_not_recorded', { detail: error instanceof Error ? error.message : String(error) }));
  return {
    home,
    version: latchVersion(),
    retiredMandateKeys,
    startedAt: new Date(),
    logger,
    env,
    uptimeSeconds: () => Math.floor((performance.now() - startedMs) / 1000),
    token,
    config,
    paused,
    watchedFile: inCheckedHome,
    policy: policySource(home, policyInForce, homeChecked),
    stateStore,
  };
}
