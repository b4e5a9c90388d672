/** Where the add-on SDK's browser bundles live for this host (built by `start`, served by the host and the sandbox). */
import { join } from 'node:path';
import { DEFAULT_BUNDLE_DIR } from '@addon-kit/sdk/server';
import type { HostConfig } from '../../config.ts';

/** The configured directory, else `<dataDir>/addon-sdk`, else (in-memory data) the SDK's own bundle directory. */
export function addonSdkDir(config: Pick<HostConfig, 'addonSdkDir' | 'dataDir'>): string {
  if (config.addonSdkDir) return config.addonSdkDir;
  return config.dataDir === 'memory://' ? DEFAULT_BUNDLE_DIR : join(config.dataDir, 'addon-sdk');
}
