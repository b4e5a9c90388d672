/**
 * One push of an add-on version: the config (placeholders filled, see addon-application.ts) and the built bundle
 * to the host's registry (`PUT /addons/v1/applications/{id}/environments/{env}`). The host adds a version (201), or
 * answers the live one (200) when bundle and settings are unchanged — then nothing new is registered. Used by
 * `addon push` and, on every rebuild, `addon dev`.
 */
import type { AddonConfig, Environment } from '../addons/index.ts';
import type { RegistryAuth } from './auth/registry-auth.ts';
import type { CommandIo } from './io.ts';
import { printRefusal, registryRequest } from './registry-client.ts';

/** What one push sends. */
export interface PushRequest {
  /** The host's base URL, no trailing slash. */
  host: string;
  target: Environment;
  /** The config for `target`, placeholders filled. */
  config: AddonConfig;
  /** The built add-on (classic script). */
  bundle: string;
}

/** What a push did. */
export interface PushOutcome {
  /** 0 when the host registered it (or had it already), 1 otherwise. */
  code: number;
  /** The one line that says so (undefined when refused: the refusal was printed). */
  line?: string;
  /** A page of the host that mounts the add-on, when the host named one. */
  preview?: string | undefined;
}

/** Sends the push; prints the host's refusal, if any, to `io.err`. */
export async function pushAddon(io: CommandIo, auth: RegistryAuth, request: PushRequest): Promise<PushOutcome> {
  const { host, target, config } = request;
  const id = config.oauth_application_id;
  const answer = await registryRequest(auth, `${host}/addons/v1/applications/${id}/environments/${target}`, 'PUT', {
    config,
    bundle: request.bundle,
  });
  const a = answer.payload?.data?.attributes;
  if ((answer.status !== 201 && answer.status !== 200) || !a) {
    printRefusal(io, answer);
    return { code: 1 };
  }
  const what = `version ${String(a.version)} (bundle sha256 ${String(a.bundle_sha256)})`;
  return {
    code: 0,
    line:
      answer.status === 201
        ? `pushed add-on ${id} to ${target}: ${what}`
        : `add-on ${id} in ${target} is unchanged: ${what} is live`,
    preview: answer.payload?.links?.preview,
  };
}
