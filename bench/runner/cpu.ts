/**
 * CPU time a process has used, read from /proc (Linux): what a server spends per request does not move when other
 * processes take the machine's cores, as its throughput does, so figures print it beside the throughput ratio.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** User + system CPU seconds the process has used so far. */
export function processCpuSeconds(pid: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After "pid (comm) ": state is field 3, utime field 14, stime field 15 (proc(5)).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}
