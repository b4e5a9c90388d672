/**
 * The UI allow-list: every element an add-on may render, its properties (with types) and its events.
 * The worker defines remote elements from it; the host validates every mutation record against it and
 * maps each name to a preact component. Nothing else reaches the host DOM.
 */

/**
 * Property value kinds the host accepts (checked on every update). A `url` must also be on one of the
 * origins the add-on's config declares (`ui_origins`), which the host checks with {@link isDeclaredUrl}.
 */
export type PropertyKind = 'string' | 'number' | 'boolean' | 'url' | 'options' | `enum:${string}`;

/** One allow-listed element: property kinds and the events it may listen to. */
export interface ComponentSpec {
  properties: Record<string, PropertyKind>;
  events: readonly string[];
}

/** Element name → spec. Names are the remote custom element tags. */
export const COMPONENTS = {
  'ui-heading': { properties: { level: 'enum:1|2|3' }, events: [] },
  'ui-text': { properties: { tone: 'enum:default|subdued|critical|success', strong: 'boolean' }, events: [] },
  'ui-button': {
    properties: { variant: 'enum:primary|secondary|plain|destructive', disabled: 'boolean' },
    events: ['press'],
  },
  'ui-text-field': {
    properties: {
      label: 'string',
      value: 'string',
      placeholder: 'string',
      disabled: 'boolean',
      error: 'string',
      type: 'enum:text|email|number|search',
    },
    events: ['input', 'change'],
  },
  'ui-text-area': {
    properties: {
      label: 'string',
      value: 'string',
      placeholder: 'string',
      disabled: 'boolean',
      error: 'string',
      rows: 'number',
    },
    events: ['input', 'change'],
  },
  'ui-select': {
    properties: { label: 'string', value: 'string', options: 'options', disabled: 'boolean', error: 'string' },
    events: ['change'],
  },
  'ui-checkbox': { properties: { label: 'string', checked: 'boolean', disabled: 'boolean' }, events: ['change'] },
  'ui-list': { properties: { ordered: 'boolean' }, events: [] },
  'ui-list-item': { properties: {}, events: [] },
  'ui-link': { properties: { href: 'url' }, events: [] },
  'ui-image': { properties: { src: 'url', alt: 'string', width: 'number', height: 'number' }, events: [] },
  'ui-stack': {
    properties: { direction: 'enum:vertical|horizontal', gap: 'enum:none|small|medium|large' },
    events: [],
  },
  'ui-banner': { properties: { tone: 'enum:info|success|warning|critical', title: 'string' }, events: [] },
  'ui-spinner': { properties: { label: 'string' }, events: [] },
} as const satisfies Record<string, ComponentSpec>;

/** An allow-listed element name. */
export type ComponentName = keyof typeof COMPONENTS;

/** One choice of a Select. */
export interface SelectOption {
  value: string;
  label: string;
}

/** True when `value` is acceptable for a property of kind `kind` (null/undefined clear a property). */
export function isPropertyValue(kind: PropertyKind, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (kind === 'string') return typeof value === 'string' && value.length <= 16 * 1024;
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value);
  if (kind === 'boolean') return typeof value === 'boolean';
  if (kind === 'url') return isWebUrl(value);
  if (kind === 'options') {
    return (
      Array.isArray(value) &&
      value.length <= 500 &&
      value.every(
        (o: unknown) =>
          typeof o === 'object' &&
          o !== null &&
          'value' in o &&
          typeof o.value === 'string' &&
          'label' in o &&
          typeof o.label === 'string',
      )
    );
  }
  return typeof value === 'string' && kind.slice(5).split('|').includes(value);
}

/** Absolute http(s) URLs only: no javascript:, data:, blob: or relative URLs from an add-on. */
export function isWebUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 4096) return false;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * True for an http(s) URL on one of `origins` (the add-on config's `ui_origins`, which are https outside
 * development): the only URLs an add-on's images and links may use, so its UI opens no channel elsewhere.
 */
export function isDeclaredUrl(value: unknown, origins: readonly string[]): value is string {
  return isWebUrl(value) && origins.includes(new URL(value).origin);
}
