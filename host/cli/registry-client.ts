/**
 * Requests to a host's add-on registry (`/addons/v1`) with the CLI's credentials (auth/registry-auth.ts): one retry
 * with renewed credentials after a 401, the answer read as JSON, the host's refusals printed one per line.
 */
import type { RegistryAuth } from './auth/registry-auth.ts';
import type { CommandIo } from './io.ts';

/** The JSON:API answer of the registry, as far as the CLI reads it. */
export interface RegistryPayload {
  data?: { id?: string; attributes?: Record<string, unknown> };
  links?: { preview?: string };
  errors?: {
    status: string;
    title: string;
    detail: string;
    source?: { parameter: string };
    meta?: { description?: string };
  }[];
}

/** A registry answer: its status and body. */
export interface RegistryAnswer {
  status: number;
  payload: RegistryPayload | undefined;
}

/** The host did not answer at all. */
export class HostUnreachableError extends Error {
  readonly code = 'host_unreachable';
}

/** Sends one request to `url` (a registry URL of `host`). */
export async function registryRequest(
  auth: RegistryAuth,
  url: string,
  method: 'GET' | 'PUT' | 'POST',
  body?: unknown,
): Promise<RegistryAnswer> {
  const send = async (authorization: string) => {
    try {
      return await fetch(url, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          'user-agent': 'addon-kit-cli',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new HostUnreachableError(`cannot reach the host at ${new URL(url).origin}; is it running (npm start)?`);
    }
  };
  let response = await send(await auth.header());
  if (response.status === 401) {
    const renewed = await auth.renew();
    if (renewed) response = await send(renewed);
  }
  const payload = (await response.json().catch(() => undefined)) as RegistryPayload | undefined;
  return { status: response.status, payload };
}

/** Prints the host's refusal: the status, then each error's parameter and detail. */
export function printRefusal(io: CommandIo, answer: RegistryAnswer): void {
  io.err(`the host refused the request (HTTP ${answer.status}):`);
  for (const e of answer.payload?.errors ?? [])
    io.err(
      `  - ${e.source?.parameter ? `${e.source.parameter}: ` : ''}${e.meta?.description ?? (e.detail || e.title)}`,
    );
  if (answer.status === 401)
    io.err('  sign in again with `addon-kit login` (or check ADDON_KIT_PAT_CLIENT_ID / ADDON_KIT_PAT_SECRET)');
}
