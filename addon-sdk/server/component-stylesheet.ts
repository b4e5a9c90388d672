/**
 * The add-on components' stylesheet (host/components/components.css): what a host page links so that the
 * components it renders for add-ons read its design tokens. Read from the package's own files, never through a
 * path the install location could break.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of the components' stylesheet in this package. */
export const COMPONENT_STYLESHEET_PATH = fileURLToPath(new URL('../host/components/components.css', import.meta.url));

/** The components' stylesheet as text. */
export function readComponentStylesheet(): string {
  return readFileSync(COMPONENT_STYLESHEET_PATH, 'utf8');
}
