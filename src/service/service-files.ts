/**
 * Service definitions that run `latch daemon` for the logged-in user at login: a systemd user
 * unit on Linux and a launchd agent on macOS. Both run the daemon as the user (never root), with
 * the user's LATCH_HOME, and restart it after a crash; the daemon makes fresh tokens at each start,
 * so a restart also ends any token captured while it was down.
 */
import path from 'node:path';

/** How the daemon is started: the program and the arguments before `daemon`. */
export interface LatchCommand {
  /** Absolute path of the program (the single binary, or node). */
  program: string;
  /** Arguments before `daemon` (for node: its flags and the script). */
  args: string[];
}

/** What a service definition needs. */
export interface ServiceSpec {
  command: LatchCommand;
  /** The absolute data directory (LATCH_HOME). */
  home: string;
  /** Arguments after `daemon`: the port flags `latch service install` was given (docs/decisions.md §19). */
  daemonArgs?: readonly string[];
}

/**
 * The environment the service never passes on to the daemon (SECURITY.md, "A hostile environment
 * at start"): NODE_OPTIONS and NODE_PATH load code into node, and NODE_EXTRA_CA_CERTS and
 * NODE_TLS_REJECT_UNAUTHORIZED change which certificates the cloud connection trusts. A user's
 * service manager passes its own environment (`systemctl --user set-environment`, `launchctl
 * setenv`) to every service unless the service says otherwise (docs/decisions.md §20).
 */
export const CLEARED_ENVIRONMENT = ['NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'NODE_TLS_REJECT_UNAUTHORIZED'] as const;

/** The systemd user unit's name. */
export const SYSTEMD_UNIT_NAME = 'latch.service';
/** The launchd agent's label (and file name without `.plist`). */
export const LAUNCHD_LABEL = 'dev.latch.daemon';

/** systemdUnitPath is where a user unit lives: $XDG_CONFIG_HOME/systemd/user (default ~/.config). */
export function systemdUnitPath(env: NodeJS.ProcessEnv, userHome: string): string {
  const configHome = env['XDG_CONFIG_HOME'] !== undefined && path.isAbsolute(env['XDG_CONFIG_HOME']) ? env['XDG_CONFIG_HOME'] : path.join(userHome, '.config');
  return path.join(configHome, 'systemd', 'user', SYSTEMD_UNIT_NAME);
}

/** launchdPlistPath is where a user agent lives: ~/Library/LaunchAgents. */
export function launchdPlistPath(userHome: string): string {
  return path.join(userHome, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
}

/**
 * systemdUnit returns the unit text. ExecStart words are quoted per systemd.syntax(7), so paths
 * with spaces survive; `%` is doubled since systemd expands specifiers in ExecStart.
 */
export function systemdUnit(spec: ServiceSpec): string {
  const execStart = [spec.command.program, ...spec.command.args, 'daemon', ...(spec.daemonArgs ?? [])].map(systemdWord).join(' ');
  return [
    '# Written by `latch service install`; remove with `latch service uninstall`.',
    '[Unit]',
    'Description=Latch local payment authorization daemon',
    '',
    '[Service]',
    'Type=simple',
    `Environment=${systemdWord(`LATCH_HOME=${spec.home}`)}`,
    // Empty, so that node ignores them, even under a systemd older than 235 (no UnsetEnvironment=);
    // UnsetEnvironment= then removes them altogether, whatever set them.
    ...CLEARED_ENVIRONMENT.map((name) => `Environment=${name}=`),
    `UnsetEnvironment=${CLEARED_ENVIRONMENT.join(' ')}`,
    `ExecStart=${execStart}`,
    'Restart=on-failure',
    'RestartSec=2',
    // Everything it writes is created owner-only, like the data directory itself.
    'UMask=0077',
    'NoNewPrivileges=yes',
    'PrivateTmp=yes',
    'ProtectSystem=strict',
    `ReadWritePaths=${systemdWord(spec.home)}`,
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** launchdPlist returns the launch agent's property list. */
export function launchdPlist(spec: ServiceSpec): string {
  return plistText({
    comment: 'Written by `latch service install`; remove with `latch service uninstall`.',
    arguments: [spec.command.program, ...spec.command.args, 'daemon', ...(spec.daemonArgs ?? [])],
    home: spec.home,
    // launchd has no way to unset a variable; node treats each of these as absent when empty.
    environment: CLEARED_ENVIRONMENT.flatMap((name) => [`    <key>${name}</key>`, '    <string></string>']),
    keepAlive: ['  <dict>', '    <key>SuccessfulExit</key>', '    <false/>', '  </dict>'],
  });
}

/** What differs between the launch agent's and the launch daemon's property lists. */
export interface PlistParts {
  comment: string;
  /** The account it runs as (a launch daemon's UserName); absent for a launch agent. */
  userName?: string;
  arguments: readonly string[];
  home: string;
  /** Lines added to EnvironmentVariables after LATCH_HOME. */
  environment: readonly string[];
  /** The KeepAlive value's lines. */
  keepAlive: readonly string[];
}

/** plistText writes a property list of the daemon for launchd; every value is escaped. */
export function plistText(parts: PlistParts): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    `<!-- ${parts.comment} -->`,
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${LAUNCHD_LABEL}</string>`,
    ...(parts.userName === undefined ? [] : ['  <key>UserName</key>', `  <string>${xmlText(parts.userName)}</string>`]),
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...parts.arguments.map((word) => `    <string>${xmlText(word)}</string>`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    '    <key>LATCH_HOME</key>',
    `    <string>${xmlText(parts.home)}</string>`,
    ...parts.environment,
    '  </dict>',
    '  <key>Umask</key>',
    '  <integer>63</integer>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>KeepAlive</key>',
    ...parts.keepAlive,
    '  <key>StandardErrorPath</key>',
    `  <string>${xmlText(path.join(parts.home, 'daemon.log'))}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** systemdWord quotes one word for a unit file when it needs it. */
export function systemdWord(word: string): string {
  if (/[\n\r\0]/.test(word)) throw new Error('a service path cannot contain a line break or NUL');
  const escaped = word.replace(/%/g, '%%');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function xmlText(text: string): string {
  if (/[\0-\x08\x0b\x0c\x0e-\x1f]/.test(text)) throw new Error('a service path cannot contain control characters');
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
