/** `addon-kit oauth-app create …`: an OAuth application of an organization, secret printed once. */
import { SCOPES } from '../auth/require-scope.ts';
import { loadPersonByEmail } from '../auth/person.ts';
import { organizationIdBySlug } from '../directory/index.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import { DEMO_ORGANIZATION } from '../demo/seed/demo.ts';
import { createOAuthApplication } from '../oauth/applications.ts';
import { loadOrCreateSecrets } from '../secrets.ts';
import { configFromEnvironment } from '../config.ts';
import { parse, required, UsageError } from './args.ts';
import { OAUTH_APP_CREATE_FORM, unknownAction } from './command-specs.ts';
import type { CommandIo } from './io.ts';
import { withStorage } from './storage.ts';

/** An absolute http(s) URI without a fragment. @see RFC 6749 §3.1.2 */
export function checkRedirectUri(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new UsageError(`--redirect-uri must be an absolute URL, got ${JSON.stringify(uri)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`--redirect-uri must be http(s), got ${JSON.stringify(uri)}`);
  if (url.hash || uri.includes('#'))
    throw new UsageError(`--redirect-uri must not contain a fragment, got ${JSON.stringify(uri)}`);
  return uri;
}

export async function oauthAppCommand(argv: string[], io: CommandIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== OAUTH_APP_CREATE_FORM.action) throw unknownAction('oauth-app', action);
  const { values } = parse(rest, OAUTH_APP_CREATE_FORM.options);
  const name = required(values.name, 'name');
  const redirectUris = (values['redirect-uri'] ?? []).map(checkRedirectUri);
  const scopes = (values.scopes ?? '').split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new UsageError(`unknown scope(s) ${unknown.join(', ')}; known: ${SCOPES.join(' ')}`);

  return withStorage({ argv: ['oauth-app', ...argv], creates: false }, values, io, async (storage) => {
    const { db } = storage;
    let organizationId: string | undefined;
    let createdById: string | null = null;
    if (values.email) {
      const person = await loadPersonByEmail(db, values.email);
      if (!person) throw new UsageError(`no person with the e-mail ${values.email}`);
      organizationId = person.organization_id;
      createdById = person.id;
    } else {
      organizationId = await organizationIdBySlug(db, DEMO_ORGANIZATION.slug);
      if (!organizationId)
        throw new UsageError('the demo organization does not exist yet; run `addon-kit seed` or pass --email');
    }
    const env = configFromEnvironment();
    const keys = env.encryptionKeys ?? (await loadOrCreateSecrets(storage.dataDir)).encryptionKeys;
    const app = await createOAuthApplication(db, createSecretBox(keys), {
      organizationId,
      name,
      description: values.description ?? '',
      url: values.url ?? '',
      redirectUris,
      public: values.public ?? false,
      addOnScopes: scopes.join(' '),
      createdById,
    });
    const result = {
      id: Number(app.id),
      client_id: app.client_id,
      ...(app.client_secret ? { client_secret: app.client_secret } : {}),
    };
    if (values.json) io.out(JSON.stringify(result));
    else {
      io.out(`OAuth application "${name}" (${values.public ? 'public' : 'confidential'})`);
      io.out(`application ID: ${result.id}    (the integer: ADDON_OAUTH_APPLICATION_ID, URLs of the handshake)`);
      io.out(`client ID:      ${result.client_id}`);
      if (result.client_secret) io.out(`client secret:  ${result.client_secret}`);
      if (result.client_secret) io.out('The client secret is shown only now.');
    }
    return 0;
  });
}
