/** Runs the template integrator on its own: `npx tsx main.ts` (INTEGRATOR_* variables configure it). */
import { IntegratorConfigError } from './config.ts';
import { startIntegrator } from './server.ts';

try {
  const integrator = await startIntegrator();
  const { config } = integrator;
  process.stdout.write(`template integrator listening on ${integrator.url} (public URL ${config.baseUrl})\n`);
  if (config.oauthApplicationId === undefined)
    process.stdout.write(
      `  serves the add-ons of the host at ${config.hostBaseUrl} whose redirect_url is ` +
        `${config.baseUrl}/addon/complete/{oauth_application_id} (development)\n`,
    );
  const stop = () => void integrator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  if (error instanceof IntegratorConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const { code, address, port } = error as NodeJS.ErrnoException & { address?: string; port?: number };
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    process.stderr.write(
      `template integrator: cannot listen on ${address ?? ''}:${port ?? ''} (${code === 'EADDRINUSE' ? 'the port is in use' : 'not allowed'}); ` +
        'choose another port with INTEGRATOR_PORT (and INTEGRATOR_BASE_URL)\n',
    );
    process.exit(2);
  }
  throw error;
}
