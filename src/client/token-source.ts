import { readAgentToken } from '../datadir/agents.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { readToken } from '../datadir/token.js';
import { LatchClientError } from './client-errors.js';

/**
 * TokenSource holds the token the client presents: the daemon token from `<home>/daemon_token`
 * (docs/decisions.md §10), or with an agent name that agent's token from `<home>/agents/NAME.token`, and never
 * the daemon token then. It is read on first use and re-read only when the daemon refuses it,
 * which is how a `latch token rotate` or `latch agent rotate` between two calls is picked up.
 */
export class TokenSource {
  private cached: string | undefined;
  private loaded = false;

  constructor(
    private readonly home: string,
    readonly agent: string | undefined = undefined,
  ) {}

  /**
   * current returns the token, reading the file on first use. A file that does not exist yet
   * gives undefined: the request then goes without a token, the daemon answers
   * missing_bearer_token, and the one retry reads the file again (a daemon that is starting
   * creates it). An unsafe or malformed file is an error at once: its contents are never sent.
   */
  current(): string | undefined {
    if (!this.loaded) {
      this.cached = readTokenFile(this.home, this.agent, false);
      this.loaded = true;
    }
    return this.cached;
  }

  /** reload reads the file again after a refusal; now a missing file is an error. */
  reload(): string {
    this.loaded = false;
    this.cached = undefined;
    const token = readTokenFile(this.home, this.agent, true) as string;
    this.cached = token;
    this.loaded = true;
    return token;
  }
}

function readTokenFile(home: string, agent: string | undefined, required: boolean): string | undefined {
  try {
    return agent === undefined ? readToken(home) : readAgentToken(home, agent);
  } catch (error) {
    if (error instanceof DataDirError) {
      if (error.code === 'missing' && !required) return undefined;
      // The message names the file and the fix; it never holds the file's contents.
      throw new LatchClientError({ code: 'token_unreadable', status: null, message: error.message, remedy: error.fix });
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'an unexpected error';
    const which = agent === undefined ? 'The daemon token file' : `The token file of agent "${agent}"`;
    throw new LatchClientError({ code: 'token_unreadable', status: null, message: `${which} in ${home} cannot be read (${code}).` });
  }
}
