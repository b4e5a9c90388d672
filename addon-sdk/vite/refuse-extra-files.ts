/**
 * Keeps an add-on one script. The sandbox loads exactly one classic script into a worker: there is no page to
 * inject CSS into, and the host renders the add-on's UI with its own components, so CSS and asset imports
 * (which vite would emit as extra files or inline as data: URLs the host never displays) are refused with the
 * importing file named, and a build that still emits anything besides the script fails.
 */
import { relative } from 'node:path';
import { isCSSRequest, type Plugin, type ResolvedConfig } from 'vite';

/** vite's own markers (see its asset and worker plugins): `?raw` is a string, `?url`/`?worker` are files. */
const RAW = /[?&]raw\b/;
const URL_QUERY = /[?&]url\b/;
const WORKER_QUERY = /[?&](?:worker|sharedworker)\b/;

const cleanUrl = (id: string) => id.replace(/[?#].*$/, '');

/** Why `id` cannot be part of an add-on, or undefined when it can. */
function refusal(id: string, config: ResolvedConfig): string | undefined {
  if (isCSSRequest(id)) {
    return (
      "add-ons cannot ship CSS: the host page renders the add-on's UI with its own allow-listed components " +
      '(style them with their props, e.g. tone, variant, gap)'
    );
  }
  if (WORKER_QUERY.test(id))
    return 'an add-on already runs in a worker and is one script: it cannot start workers of its own';
  if (RAW.test(id)) return undefined;
  if (URL_QUERY.test(id) || config.assetsInclude(cleanUrl(id))) {
    return (
      'an add-on is one script and cannot ship asset files: the host shows images only from https URLs ' +
      '(host the file and pass its https URL to <Image src>), and `?raw` imports a text file as a string'
    );
  }
  return undefined;
}

/** The plugin; `entryFile` is the one script the build must emit (its name inside the output directory). */
export function refuseExtraFiles(entryFile: string): Plugin {
  let config: ResolvedConfig;
  const shown = (id: string) => (id.startsWith(config.root) ? relative(config.root, id) : id);
  return {
    name: 'addon-kit:refuse-extra-files',
    enforce: 'pre',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    async resolveId(source, importer, options) {
      if (!importer) return null;
      // Resolve first so a package export that points at a CSS file is caught too.
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      const reason = refusal(resolved?.id ?? source, config);
      if (reason) this.error(`${shown(cleanUrl(importer))} imports ${source}: ${reason}.`);
      return null;
    },
    // Last, so files other plugins emit in their own generateBundle are seen too.
    generateBundle: {
      order: 'post',
      handler(_output, bundle) {
        const extra = Object.keys(bundle).filter((name) => name !== entryFile);
        if (extra.length > 0) {
          this.error(
            `an add-on must build into the single script ${entryFile}, but this build also emits ${extra.join(', ')}: ` +
              'remove what needs them (workers, CSS, assets, or a plugin that emits files).',
          );
        }
      },
    },
  };
}
