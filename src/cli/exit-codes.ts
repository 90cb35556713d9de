/**
 * The exit codes of the `latch` CLI. Scripts and service managers switch on these, so each stays
 * stable once published (README.md lists them).
 */
export const EXIT = {
  /** Success (for `latch daemon`: stopped by SIGTERM or SIGINT after a graceful close). */
  ok: 0,
  /** An unexpected failure. */
  failure: 1,
  /** Bad command line: unknown command or flag, missing or malformed value. */
  usage: 2,
  /** The data directory is unsafe or broken: permissions, owner, corrupt file, wrong passphrase. */
  dataDir: 3,
  /** A listener's port is already in use. */
  portInUse: 4,
  /** A listener could not bind for another reason (EACCES, EADDRNOTAVAIL ...). */
  listenFailed: 5,
  /** A verification found a problem (`latch audit verify`: the chain is broken; `latch evidence verify`: the pack does not hold). */
  verifyFailed: 6,
  /** The daemon or the cloud refused or declined the request (4xx: not found, insufficient funds, expired setup token ...). */
  refused: 7,
  /** The local daemon could not be reached (docs/decisions.md §7 rule 1: a local availability problem). */
  daemonUnreachable: 8,
  /** The daemon is up but the cloud API is unavailable (docs/decisions.md §7 rule 2: upstream_unavailable). */
  upstreamUnavailable: 9,
  /** Not refused, not yet authorized: the spending policy asked the owner, whose decision is pending (`ap_…`). */
  pendingApproval: 10,
  /**
   * The process's limits leave Latch no room to run: an address-space limit (`ulimit -v`) too small
   * for fetch (fetch_unavailable, docs/decisions.md §24.1).
   */
  processLimits: 11,
  /** `latch evidence verify --require-key` and no device key named (--key-id, --jwks): nothing was checked. */
  keyNotNamed: 12,
  /** Interrupted at a prompt with Ctrl-C (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
