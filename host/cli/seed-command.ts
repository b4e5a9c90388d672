/** `addon-kit seed [--people N]`: deterministic demo data, idempotent. */
import { DEFAULT_PEOPLE, seedDemo } from '../demo/seed/demo.ts';
import { generateDemoPassword, readDemoPassword, rememberDemoPassword } from '../demo/seed/demo-password.ts';
import { integer, parse } from './args.ts';
import { SEED_FORM } from './command-specs.ts';
import type { CommandIo } from './io.ts';
import { withStorage } from './storage.ts';

export async function seedCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parse(argv, SEED_FORM.options);
  const people = integer(values.people, 'people', 0, 1_000_000) ?? DEFAULT_PEOPLE;
  return withStorage({ argv: ['seed', ...argv], creates: true }, values, io, async ({ db, dataDir }) => {
    const password = values['demo-password'] ?? (await readDemoPassword(dataDir)) ?? generateDemoPassword();
    const result = await seedDemo(db, { people, password, log: io.err });
    if (result.created) await rememberDemoPassword(dataDir, password);
    io.out(
      result.created
        ? `seeded the demo data (${result.peopleAdded} people)`
        : `demo data present; added ${result.peopleAdded} people`,
    );
    return 0;
  });
}
