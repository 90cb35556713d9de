/** The machine a run was measured on, as the report must state it. */
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  nproc: number;
  cpuModel: string;
  memoryMiB: number;
  node: string;
  platform: string;
  /** One line for the end of the table. */
  summary: string;
}

/** describeMachine reads the CPU model from /proc/cpuinfo (os.cpus() where that is missing). */
export function describeMachine(): Machine {
  const nproc = os.availableParallelism();
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match !== null) cpuModel = (match[1] as string).trim();
  } catch {
    // Not Linux: os.cpus() already answered.
  }
  const memoryMiB = Math.round(os.totalmem() / 1024 / 1024);
  const platform = `${os.platform()} ${os.release()}`;
  const node = process.version;
  return { nproc, cpuModel, memoryMiB, node, platform, summary: `Machine: ${nproc} CPUs (${cpuModel}), ${memoryMiB} MiB RAM, ${platform}, Node ${node}.` };
}
