/** Validation of the OAuth application form of the developer account. */
import { redirectUriProblem } from '../oauth/redirect-uri-problem.ts';
import { isKnownScope } from '../oauth/scopes.ts';

/** The OAuth application form, read. */
export interface ApplicationInput {
  name: string;
  description: string;
  url: string;
  redirectUris: string[];
  public: boolean;
  addOnScopes: string;
}

/** One message per form field in error. */
export type ApplicationProblems = Partial<
  Record<'name' | 'description' | 'url' | 'redirect_uris' | 'add_on_scopes', string>
>;

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Reads and checks the form; every problem at once. */
export function readApplicationInput(body: Record<string, unknown>): {
  input: ApplicationInput;
  problems: ApplicationProblems;
} {
  const input: ApplicationInput = {
    name: text(body.name),
    description: text(body.description),
    url: text(body.url),
    redirectUris: text(body.redirect_uris).split(/\s+/).filter(Boolean),
    public: body.client_type === 'public',
    addOnScopes: text(body.add_on_scopes).split(/\s+/).filter(Boolean).join(' '),
  };
  const problems: ApplicationProblems = {};
  if (!input.name) problems.name = 'Name is required';
  else if (input.name.length > 255) problems.name = 'Name is at most 255 characters';
  if (input.description.length > 2000) problems.description = 'Description is at most 2000 characters';
  if (input.url) {
    try {
      if (!['http:', 'https:'].includes(new URL(input.url).protocol))
        problems.url = 'URL must be an http or https address';
    } catch {
      problems.url = 'URL must be an http or https address';
    }
  }
  if (input.redirectUris.length === 0) problems.redirect_uris = 'At least one redirect URI is required';
  else {
    const problem = input.redirectUris.map(redirectUriProblem).find(Boolean);
    if (problem) problems.redirect_uris = problem;
  }
  const unknown = input.addOnScopes.split(' ').filter((s) => s && !isKnownScope(s));
  if (unknown.length) problems.add_on_scopes = `Unknown scope: ${unknown.join(' ')}`;
  return { input, problems };
}
