/**
 * Every command's forms, positionals and options with their help text: what `parse()` accepts, what the usage
 * lines and `--help` print, in one place. Kept apart from the commands so `main` prints help without loading them.
 */
import { ENVIRONMENTS } from '../addons/index.ts';
import { AVAILABLE_EVENTS } from '../webhooks/index.ts';
import { DEFAULT_PEOPLE } from '../demo/seed/demo.ts';
import { DATABASE_OPTIONS, UsageError, type CommandForm, type CommandSpec } from './args.ts';

/** Where `addon push|promote` and `doctor` find the running host. */
const HOST_OPTION = {
  type: 'string',
  value: 'URL',
  help: 'the running host (default ADDON_KIT_BASE_URL, else http://localhost:4000)',
} as const;
const CONFIG_OPTION = {
  type: 'string',
  value: 'addon.config.json',
  help: 'the add-on config (default ./addon.config.json)',
} as const;
const DEMO_PASSWORD_HELP = 'password of the demo logins when the demo data is first seeded';
/** `--integrator URL`: the development environment's integrator, without editing the config. */
const INTEGRATOR_OPTION = {
  type: 'string',
  value: 'URL',
  help: "the development integrator's base URL (default: the config's, the host's built-in one on port 4100)",
} as const;
const NO_BROWSER_OPTION = {
  type: 'boolean',
  help: 'print the sign-in URL without opening a browser (when the CLI has to sign in)',
} as const;

export const START_FORM = {
  summary: 'the host and the add-on sandbox origin with demo data seeded on first start, and the demo unless --no-demo',
  options: {
    port: {
      type: 'string',
      value: '4000',
      help: 'TCP port of the host (default 4000, or ADDON_KIT_PORT); 0 picks free ports for all three listeners',
    },
    'sandbox-port': {
      type: 'string',
      value: 'P',
      help: "TCP port of the add-on sandbox origin (default the host's port + 1, or ADDON_KIT_SANDBOX_PORT)",
    },
    'integrator-port': {
      type: 'string',
      value: '4100',
      help: 'TCP port of the template integrator (default 4100; 0 with --port 0)',
    },
    'no-demo': {
      type: 'boolean',
      help: 'the platform alone: no demo pages, sample add-on or template integrator (also ADDON_KIT_DEMO=false)',
    },
    ...DATABASE_OPTIONS,
    'demo-password': {
      type: 'string',
      value: 'P',
      help: `${DEMO_PASSWORD_HELP}, at least 8 characters (default: generated; printed at start)`,
    },
    'base-url': {
      type: 'string',
      value: 'URL',
      help: 'public URL of the host (default http://localhost:<port>, or ADDON_KIT_BASE_URL)',
    },
  },
} as const satisfies CommandForm;

export const SEED_FORM = {
  summary: 'deterministic demo data; idempotent (a second run adds only what is missing, e.g. more people)',
  options: {
    people: {
      type: 'string',
      value: 'N',
      help: `how many generated people Demo Church has (default ${DEFAULT_PEOPLE})`,
    },
    'demo-password': {
      type: 'string',
      value: 'P',
      help: `${DEMO_PASSWORD_HELP} (default: the remembered one, else generated)`,
    },
    ...DATABASE_OPTIONS,
  },
} as const satisfies CommandForm;

export const PAT_CREATE_FORM = {
  action: 'create',
  summary: 'a personal access token for that person; client_id and secret printed once',
  options: {
    email: { type: 'string', value: 'E', required: true, help: 'e-mail of the person the token acts as' },
    name: { type: 'string', value: 'N', required: true, help: 'a name for the token' },
    json: { type: 'boolean', help: 'print {id, name, client_id, secret} as one JSON line' },
    ...DATABASE_OPTIONS,
  },
} as const satisfies CommandForm;

export const OAUTH_APP_CREATE_FORM = {
  action: 'create',
  summary: "an OAuth application of the person's organization; id, client_id and client_secret printed once",
  options: {
    name: { type: 'string', value: 'N', required: true, help: 'the application name' },
    'redirect-uri': {
      type: 'string',
      value: 'U',
      multiple: true,
      required: true,
      help: 'an allowed redirect URI: absolute http(s), no fragment',
    },
    public: { type: 'boolean', help: 'a public client: no client secret (PKCE instead)' },
    scopes: {
      type: 'string',
      value: '"people api"',
      help: 'scopes its add-on may use, space-separated (default none)',
    },
    email: { type: 'string', value: 'E', help: 'a person whose organization owns it (default: Demo Church)' },
    description: { type: 'string', value: 'D', help: 'a description shown to people asked for consent' },
    url: { type: 'string', value: 'U', help: "the application's home page" },
    json: { type: 'boolean', help: 'print {id, client_id, client_secret} as one JSON line' },
    ...DATABASE_OPTIONS,
  },
} as const satisfies CommandForm;

export const WEBHOOKS_TRIGGER_FORM = {
  action: 'trigger',
  summary:
    "a test event through the outbox to the person's active subscriptions to <event> (or the one --subscription names): signed, retried and listed by /webhooks/v2 like any event",
  positionals: [{ name: '<event>', help: `an available event: ${AVAILABLE_EVENTS.join(', ')}` }],
  options: {
    subscription: { type: 'string', value: 'ID', help: 'only this subscription of the person (it must be to <event>)' },
    email: {
      type: 'string',
      value: 'E',
      help: 'the person whose subscriptions (default: who the CLI is signed in as to --host, addon-kit login)',
    },
    host: HOST_OPTION,
    json: { type: 'boolean', help: 'print {events: [{subscription_id, event_id, uuid}]} as one JSON line' },
    ...DATABASE_OPTIONS,
  },
  notes: [
    'beside a running addon-kit start it runs in that host (its delivery worker sends at once); otherwise the events',
    '  wait in the outbox for the next host to start',
  ],
} as const satisfies CommandForm;

const CREDENTIALS_NOTE = [
  "credentials: the CLI's sign-in to the host (addon-kit login; asked for in the browser when missing), or for CI",
  '  ADDON_KIT_PAT_CLIENT_ID and ADDON_KIT_PAT_SECRET (a personal access token of an organization administrator)',
  'application: ADDON_OAUTH_APPLICATION_ID, else the one remembered in .addon-kit.json (addon dev creates it)',
];

export const LOGIN_FORM = {
  summary: "signs the CLI in to a host through the host's OAuth server (PKCE, loopback redirect) in the browser",
  options: {
    host: {
      type: 'string',
      value: 'URL',
      help: 'the host (default ADDON_KIT_BASE_URL, else http://localhost:4000)',
    },
    'no-browser': { type: 'boolean', help: 'print the sign-in URL without opening a browser' },
  },
  notes: ['tokens: $XDG_CONFIG_HOME/addon-kit/credentials.json (else ~/.config/addon-kit/), readable by you only'],
} as const satisfies CommandForm;

export const LOGOUT_FORM = {
  summary: "forgets the CLI's tokens for a host and revokes them there",
  options: { host: LOGIN_FORM.options.host },
} as const satisfies CommandForm;

export const ADDON_PUSH_FORM = {
  action: 'push',
  summary:
    "registers the add-on config (that environment's ${VAR} placeholders filled) and the built bundle with a host",
  options: {
    env: {
      type: 'string',
      choices: ENVIRONMENTS,
      required: true,
      help: 'the environment to register a new version in',
    },
    config: CONFIG_OPTION,
    bundle: { type: 'string', value: 'dist/addon.js', help: 'the built add-on bundle (default ./dist/addon.js)' },
    host: HOST_OPTION,
    integrator: INTEGRATOR_OPTION,
    'no-browser': NO_BROWSER_OPTION,
  },
  notes: CREDENTIALS_NOTE,
} as const satisfies CommandForm;

export const ADDON_PROMOTE_FORM = {
  action: 'promote',
  summary: "the live bundle of <from> becomes a new version of <to>, with <to>'s settings from the config",
  positionals: [
    { name: '<from>', help: `the environment promoted from (${ENVIRONMENTS.join(', ')})` },
    { name: '<to>', help: 'the environment promoted to' },
  ],
  options: { config: CONFIG_OPTION, host: HOST_OPTION, 'no-browser': NO_BROWSER_OPTION },
  notes: CREDENTIALS_NOTE,
} as const satisfies CommandForm;

/** What `addon build` and `addon dev` build: the entry, the bundle, the gzip budget. */
const BUILD_OPTIONS = {
  entry: { type: 'string', value: 'src/index.tsx', help: "the add-on's entry module (default ./src/index.tsx)" },
  out: { type: 'string', value: 'dist/addon.js', help: 'the bundle to write (default ./dist/addon.js)' },
  'budget-kb': { type: 'string', value: 'KB', help: "gzip budget in kB (default the SDK's add-on budget, 25)" },
} as const;

export const ADDON_BUILD_FORM = {
  action: 'build',
  summary:
    "builds the add-on into one classic script with the SDK's vite preset; prints its gzip size against the budget",
  options: BUILD_OPTIONS,
} as const satisfies CommandForm;

export const ADDON_DEV_FORM = {
  action: 'dev',
  summary:
    'signs in and creates the OAuth application when needed, builds and pushes a development version, prints where ' +
    'it is mounted, then rebuilds and pushes on every change',
  options: {
    ...BUILD_OPTIONS,
    config: CONFIG_OPTION,
    host: HOST_OPTION,
    integrator: INTEGRATOR_OPTION,
    'no-browser': NO_BROWSER_OPTION,
  },
  notes: CREDENTIALS_NOTE,
} as const satisfies CommandForm;

export const CREATE_FORM = {
  summary: 'scaffolds an integrator or an add-on project into a new or empty folder outside this repository',
  positionals: [
    { name: 'integrator|addon', help: 'what to create' },
    { name: '<dir>', help: 'the new project folder (created when missing; refused when not empty)' },
  ],
  options: {
    'from-registry': { type: 'boolean', help: 'depend on the published @addon-kit packages (^version ranges)' },
    packages: {
      type: 'string',
      value: 'DIR',
      help: 'copy the @addon-kit tarballs from DIR into vendor/ (default: pack the installed packages there)',
    },
  },
} as const satisfies CommandForm;

export const DOCTOR_FORM = {
  summary: 'checks the running integrator the config names against what the handshake needs; prints a pass/fail table',
  options: {
    env: {
      type: 'string',
      choices: ENVIRONMENTS,
      required: true,
      help: 'the environment of the config whose integrator is checked',
    },
    config: CONFIG_OPTION,
    host: HOST_OPTION,
    integrator: INTEGRATOR_OPTION,
    username: {
      type: 'string',
      value: 'U',
      help: "sign in to the integrator as this user (development default: the template's demo user)",
    },
    password: { type: 'string', value: 'P', help: "that user's password (given together with --username)" },
    json: {
      type: 'boolean',
      help: 'print the report as JSON (ok, and each check with id, status, detail, fix) for CI',
    },
  },
} as const satisfies CommandForm;

/** The commands, in the order the general usage lists them. */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  { name: 'start', forms: [START_FORM] },
  { name: 'login', forms: [LOGIN_FORM] },
  { name: 'logout', forms: [LOGOUT_FORM] },
  { name: 'seed', forms: [SEED_FORM] },
  { name: 'pat', forms: [PAT_CREATE_FORM] },
  { name: 'oauth-app', forms: [OAUTH_APP_CREATE_FORM] },
  { name: 'webhooks', forms: [WEBHOOKS_TRIGGER_FORM] },
  { name: 'addon', forms: [ADDON_PUSH_FORM, ADDON_PROMOTE_FORM, ADDON_BUILD_FORM, ADDON_DEV_FORM] },
  { name: 'create', forms: [CREATE_FORM] },
  { name: 'doctor', forms: [DOCTOR_FORM] },
];

/** The declaration of a command by name. */
export function commandSpec(name: string): CommandSpec | undefined {
  return COMMAND_SPECS.find((c) => c.name === name);
}

/** A UsageError for an action the command does not have, naming those it has. */
export function unknownAction(command: string, action: string | undefined): UsageError {
  const actions = (commandSpec(command)?.forms ?? []).map((f) => f.action).join(', ');
  const message = `unknown ${command} action ${JSON.stringify(action ?? '')}; actions: ${actions}`;
  return new UsageError(`${message} (see addon-kit help ${command})`);
}
