/**
 * What `addon-kit start` does to a new database before the host starts: the deterministic development data and the
 * demo logins' password, remembered in the data directory. A later start finds the organization and seeds nothing.
 */
import type { Database } from '../../db/database.ts';
import { organizationIdBySlug } from '../../directory/index.ts';
import { DEMO_LOGINS, DEMO_ORGANIZATION, seedDemo } from './demo.ts';
import { generateDemoPassword, readDemoPassword, rememberDemoPassword } from './demo-password.ts';

/** A demo login as `start` prints it (no password when this data directory did not seed them). */
export interface DemoLogin {
  email: string;
  password: string | undefined;
}

/** Seeds the demo data when the database has none; resolves with the demo logins. */
export async function seedOnFirstStart(
  db: Database,
  options: { dataDir: string; demoPassword?: string | undefined; log?: (line: string) => void },
): Promise<DemoLogin[]> {
  const log = options.log ?? (() => {});
  const seeded = (await organizationIdBySlug(db, DEMO_ORGANIZATION.slug)) !== undefined;
  let password = await readDemoPassword(options.dataDir);
  if (!seeded) {
    const chosen = options.demoPassword ?? generateDemoPassword();
    log('addon-kit: seeding demo data (first start)…');
    // Hosts started together on an empty database all get here; the seed's lock lets one of them create the data.
    if ((await seedDemo(db, { password: chosen, log })).created) {
      password = chosen;
      await rememberDemoPassword(options.dataDir, password);
    }
  } else if (options.demoPassword && options.demoPassword !== password) {
    log('addon-kit: --demo-password applies only when the demo data is first seeded; keeping the existing passwords');
  }
  return DEMO_LOGINS.map((l) => ({ email: l.email, password }));
}
