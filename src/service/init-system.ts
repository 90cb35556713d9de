/**
 * Whether this machine runs systemd as PID 1, the test sd_booted(3) makes: /run/systemd/system is
 * a directory only while systemd is the init system. In a container or a chroot (building an
 * image) a unit can be written but `systemctl start` has nothing to talk to.
 */
import { lstatSync, readFileSync } from 'node:fs';

/** What PID 1 is here. */
export interface InitSystem {
  systemd: boolean;
  /** PID 1's name (/proc/1/comm), when it can be read. */
  pid1: string | undefined;
}

/** initSystem looks at the running init system (Linux). */
export function initSystem(): InitSystem {
  let systemd = false;
  try {
    systemd = lstatSync('/run/systemd/system').isDirectory();
  } catch {
    systemd = false;
  }
  let pid1: string | undefined;
  try {
    pid1 = readFileSync('/proc/1/comm', 'utf8').trim() || undefined;
  } catch {
    pid1 = undefined;
  }
  return { systemd, pid1 };
}
