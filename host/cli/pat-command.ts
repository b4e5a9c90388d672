/** `addon-kit pat create --email E --name N [--json]`: a personal access token, secret printed once. */
import { createPersonalAccessToken } from '../auth/personal-access-tokens.ts';
import { loadPersonByEmail } from '../auth/person.ts';
import { parse, required, UsageError } from './args.ts';
import { PAT_CREATE_FORM, unknownAction } from './command-specs.ts';
import type { CommandIo } from './io.ts';
import { withStorage } from './storage.ts';

export async function patCommand(argv: string[], io: CommandIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== PAT_CREATE_FORM.action) throw unknownAction('pat', action);
  const { values } = parse(rest, PAT_CREATE_FORM.options);
  const email = required(values.email, 'email');
  const name = required(values.name, 'name');
  return withStorage({ argv: ['pat', ...argv], creates: false }, values, io, async ({ db }) => {
    const person = await loadPersonByEmail(db, email);
    if (!person) throw new UsageError(`no person with the e-mail ${email}`);
    const token = await createPersonalAccessToken(db, person.id, name);
    if (values.json) io.out(JSON.stringify(token));
    else {
      io.out(`personal access token "${name}" for ${person.email}`);
      io.out(`client ID: ${token.client_id}`);
      io.out(`secret:    ${token.secret}`);
      io.out('The secret is shown only now; use them as HTTP Basic credentials (client ID:secret).');
    }
    return 0;
  });
}
