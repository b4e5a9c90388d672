/** The doctor's output: a plain-text table (check, result, what it saw, the fix) or JSON for CI. */
import { DOCTOR_CHECKS, type DoctorCheck } from './doctor-checks.ts';

/** The checks as a table, with a last line saying whether everything passed. */
export function formatTable(checks: DoctorCheck[]): string {
  const rows = [
    ['Check', 'Result', 'Saw', 'Fix'],
    ...checks.map((c) => [c.id, c.status.toUpperCase(), c.detail, c.status === 'pass' ? '' : (c.fix ?? '')]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell))
      .join('  ')
      .trimEnd();
  const failed = checks.filter((c) => c.status === 'fail').length;
  const summary = failed === 0 ? 'All checks passed.' : `${failed} check(s) failed.`;
  return [
    line(rows[0]!),
    `${widths.map((w) => '-'.repeat(w)).join('  ')}  ---`,
    ...rows.slice(1).map(line),
    '',
    summary,
    '',
  ].join('\n');
}

/** The JSON report: `ok`, and each row with its id, what it checks, status, what it saw and the fix. */
export function formatJson(checks: DoctorCheck[]): string {
  const report = {
    ok: !checks.some((c) => c.status === 'fail'),
    checks: checks.map((c) => ({
      id: c.id,
      checks: DOCTOR_CHECKS[c.id],
      status: c.status,
      detail: c.detail,
      ...(c.fix !== undefined ? { fix: c.fix } : {}),
    })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}
