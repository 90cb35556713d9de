/**
 * The separate-user service definitions of `latch service install --system` (docs/decisions.md
 * §21): a systemd system unit that runs the daemon as its own system user, hardened so that it
 * sees only its data directory, and a launchd daemon property list with `UserName`. The service
 * environment is clean (a system unit inherits nothing from the shell that installed it): only
 * LATCH_HOME is set.
 */
import { LAUNCHD_LABEL, plistText, systemdWord, type LatchCommand } from './service-files.js';

/** Where the system unit's device key passphrase is kept, when device.key is encrypted (root's, 0400). */
export const KEY_PASSPHRASE_FILE = '/etc/latch/key-passphrase';

/** What a system service definition needs. */
export interface SystemServiceSpec {
  command: LatchCommand;
  /** The service user the daemon runs as. */
  user: string;
  /** The absolute data directory (the service user's home). */
  home: string;
  /** Arguments after `daemon` (the ports, when chosen). */
  daemonArgs?: string[];
  /** Whether the passphrase file exists, so the unit loads it as a credential (else the line is a comment). */
  keyPassphraseFile?: boolean;
}

/** Where the system unit lives. */
export const SYSTEM_UNIT_PATH = '/etc/systemd/system/latch.service';
/** The variable naming another place for the system unit (for tests, which must not touch /etc/systemd). */
export const SYSTEM_UNIT_ENV = 'LATCH_SYSTEM_UNIT';

/** systemUnitPath is LATCH_SYSTEM_UNIT when set to an absolute path, else /etc/systemd/system/latch.service. */
export function systemUnitPath(env: NodeJS.ProcessEnv): string {
  const named = env[SYSTEM_UNIT_ENV];
  return named !== undefined && named.startsWith('/') ? named : SYSTEM_UNIT_PATH;
}
/** Where the launchd daemon lives. */
export const LAUNCH_DAEMON_PATH = `/Library/LaunchDaemons/${LAUNCHD_LABEL}.plist`;

/** systemdSystemUnit returns the system unit's text. */
export function systemdSystemUnit(spec: SystemServiceSpec): string {
  const execStart = [spec.command.program, ...spec.command.args, 'daemon', ...(spec.daemonArgs ?? [])].map(systemdWord).join(' ');
  return [
    '# Written by `latch service install --system`.',
    '[Unit]',
    `Description=Latch local payment authorization daemon (as the system user ${spec.user})`,
    'After=network.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${systemdWord(spec.user)}`,
    `Group=${systemdWord(spec.user)}`,
    // A clean environment: nothing from the installing shell, only the data directory.
    `Environment=${systemdWord(`LATCH_HOME=${spec.home}`)}`,
    // The device key's passphrase never goes in Environment= (systemctl show prints it to anyone).
    '# When device.key is encrypted, its passphrase comes from a systemd credential, never from',
    '# Environment=: put it in a file only root can read, then uncomment the next line and run',
    '# systemctl daemon-reload (the daemon reads $CREDENTIALS_DIRECTORY/latch-key-passphrase):',
    `#   sudo install -m 0400 -o root -g root /dev/stdin ${KEY_PASSPHRASE_FILE}   (type it, then Ctrl-D)`,
    `${spec.keyPassphraseFile === true ? '' : '#'}LoadCredential=latch-key-passphrase:${KEY_PASSPHRASE_FILE}`,
    `ExecStart=${execStart}`,
    'Restart=on-failure',
    'RestartSec=2',
    'UMask=0077',
    'NoNewPrivileges=yes',
    'ProtectHome=yes',
    'ProtectSystem=strict',
    `ReadWritePaths=${systemdWord(spec.home)}`,
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** launchdDaemonPlist returns the launch daemon's property list (runs as UserName). */
export function launchdDaemonPlist(spec: SystemServiceSpec): string {
  return plistText({
    comment: 'Written by `latch service install --system`.',
    userName: spec.user,
    arguments: [spec.command.program, ...spec.command.args, 'daemon', ...(spec.daemonArgs ?? [])],
    home: spec.home,
    environment: [],
    keepAlive: ['  <true/>'],
  });
}
