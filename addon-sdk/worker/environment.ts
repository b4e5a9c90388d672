/** What the add-on knows about where it runs: read synchronously from the boot data of its worker. */
import { isEnvironment, type AddOnEnvironment, type BootData } from '../protocol/messages.ts';

/** Boot data the sandbox frame prepends to the worker script (see sandbox/bootstrap.ts). */
function bootData(): BootData {
  const boot = (globalThis as { addonKitBoot?: BootData }).addonKitBoot;
  return boot && isEnvironment(boot.environment) ? boot : { environment: 'production', extension: '', props: {} };
}

/** "development", "beta" or "production": the environment of the add-on config in use. */
export function addOnEnvironment(): AddOnEnvironment {
  return bootData().environment;
}

/** The extension point the add-on is mounted at (e.g. `people.list.send_message`) and its props. */
export function addOnContext(): { extension: string; props: Readonly<Record<string, unknown>> } {
  const { extension, props } = bootData();
  return { extension, props };
}
