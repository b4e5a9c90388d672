/** Runs the template integrator on its own: `npx tsx integrator-template/main.ts` (INTEGRATOR_* variables configure it). */
import { IntegratorConfigError } from './config.ts';
import { startIntegrator } from './server.ts';

try {
  const integrator = await startIntegrator();
  process.stdout.write(
    `template integrator listening on ${integrator.url} (public URL ${integrator.config.baseUrl})\n`,
  );
  const stop = () => void integrator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  if (error instanceof IntegratorConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
