/**
 * A real pseudo-terminal for CLI tests, driven as a person would: tmux runs the command in a
 * detached session on a private server socket, the test types keys and reads the screen. Reads
 * poll the pane until a deadline instead of sleeping for fixed times.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

// A bound on how long the screen may take to show something, not a timing assertion: the CLI
// starts through tsx on a busy machine.
const SCREEN_DEADLINE_MS = 45_000;

export class TmuxPane {
  private readonly socket: string;
  private readonly session = 'latch';

  constructor(name: string) {
    this.socket = `latch-test-${name}-${process.pid}`;
  }

  /** start runs command (a shell command line) in a 120×40 terminal; the pane stays after it exits. */
  start(command: string, cwd: string): void {
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-s', this.session, '-x', '120', '-y', '40', '-c', cwd, `${command}; echo "EXIT=$?"; sleep 600`]);
  }

  /** type sends literal text, as typed (no key names interpreted). */
  type(text: string): void {
    this.tmux(['send-keys', '-t', this.session, '-l', text]);
  }

  /** press sends named keys: Enter, BSpace, C-c ... */
  press(...keys: string[]): void {
    this.tmux(['send-keys', '-t', this.session, ...keys]);
  }

  /** screen is everything the pane shows, including what scrolled off. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-t', this.session, '-S', '-2000']);
  }

  /** waitFor polls the screen until pattern appears and returns the screen then; it fails at the deadline with the screen. */
  async waitFor(pattern: RegExp): Promise<string> {
    const deadline = Date.now() + SCREEN_DEADLINE_MS;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}; it shows:\n${screen}`);
      await sleep(100);
    }
  }

  /** close ends the session and its private tmux server. */
  close(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // Already gone.
    }
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}
