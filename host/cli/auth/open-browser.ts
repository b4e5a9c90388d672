/**
 * Opens a URL in the person's browser when this machine can: `$BROWSER` when set (the convention of many command
 * line tools), else `open` on macOS, `cmd /c start` on Windows, `xdg-open` elsewhere. Never fails: the URL is
 * printed anyway, and a machine without a browser (a server, a container) just does not open it.
 */
import { spawn } from 'node:child_process';

/** Tries to open `url`; resolves once the opener started or failed to (never rejects). */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const [command, ...args] = env.BROWSER
    ? [env.BROWSER, url]
    : process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : ['xdg-open', url];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
