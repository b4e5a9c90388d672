/**
 * `addon-kit doctor`: checks a running integrator over HTTP against what the add-on handshake needs (no host
 * needed), as a list of named steps. Destructive checks (a refresh token replayed, a code reused) come last:
 * an integrator may revoke the grant for them.
 */
import { checkApiAcceptsToken, checkApiRefusesBadToken } from './checks/api.ts';
import { authorizationRequest } from './checks/authorization-request.ts';
import {
  checkAuthorizePage,
  checkConsentReturnsState,
  checkUnknownClient,
  checkUnregisteredRedirect,
} from './checks/authorize.ts';
import { checkCompletion } from './checks/completion.ts';
import { checkConfigUrls } from './checks/config-urls.ts';
import { checkRefresh, checkRotation } from './checks/refresh.ts';
import { checkTokenExchange } from './checks/token-exchange.ts';
import { checkBadCode, checkCodeReuse, checkPkce, checkWrongSecret } from './checks/token-refusals.ts';
import type { DoctorCheck } from './doctor-checks.ts';
import type { DoctorOptions } from './doctor-options.ts';
import { DoctorSession } from './doctor-session.ts';
import { formatJson, formatTable } from './report.ts';

export { DOCTOR_CHECKS, type DoctorCheck, type DoctorCheckId, type DoctorStatus } from './doctor-checks.ts';
export type { ApiRoute, DoctorOptions } from './doctor-options.ts';

/** Runs the checks and returns the rows in the table's order (no output). */
export async function collectChecks(options: DoctorOptions): Promise<DoctorCheck[]> {
  const session = new DoctorSession(options);
  await checkConfigUrls(session);
  // Before the authorize checks, as in the handshake (step 2 before step 4): a development integrator serving any
  // add-on learns the application from the completion URL, for this session (the doctor keeps its cookies).
  await checkCompletion(session);
  const first = authorizationRequest(session);
  const page = await checkAuthorizePage(session, first);
  const code = await checkConsentReturnsState(session, first, page);
  await checkUnknownClient(session);
  await checkUnregisteredRedirect(session);
  const exchange = await checkTokenExchange(session, code, first);
  await checkBadCode(session, exchange);
  await checkWrongSecret(session);
  const refreshed = await checkRefresh(session, exchange);
  await checkApiAcceptsToken(session, refreshed?.access_token ?? exchange.tokens?.access_token);
  await checkApiRefusesBadToken(session);
  await checkRotation(session, exchange.tokens, refreshed);
  await checkCodeReuse(session, code, first, exchange);
  await checkPkce(session, code !== undefined, exchange);
  return session.results();
}

/**
 * Runs the checks against a running integrator, writes the table (or the JSON report) to `out`, and returns
 * the exit code: 0 when nothing failed, 1 otherwise.
 */
export async function runDoctor(
  options: DoctorOptions,
  out: { write(text: string): unknown },
  format: 'table' | 'json' = 'table',
): Promise<number> {
  const checks = await collectChecks(options);
  out.write(format === 'json' ? formatJson(checks) : formatTable(checks));
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}
