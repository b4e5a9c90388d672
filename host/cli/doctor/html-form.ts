/** The first form of an HTML page, read well enough to sign in and consent with plain form posts. */

/** A form: its action, hidden fields, submit buttons and login inputs. */
export interface HtmlForm {
  action: string;
  method: string;
  fields: Map<string, string>;
  buttons: { name: string; value: string }[];
  passwordField?: string;
  textField?: string;
}

const attr = (tag: string, name: string): string | undefined => {
  const m = tag.match(new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i'));
  const raw = m ? (m[1] ?? m[2] ?? m[3] ?? '') : undefined;
  return raw
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
};

/** Parses the first `<form>` of `html` (relative actions resolved against `pageUrl`). */
export function parseForm(html: string, pageUrl: string): HtmlForm | undefined {
  const open = html.match(/<form\b[^>]*>/i);
  if (!open) return undefined;
  const end = html.indexOf('</form>', open.index);
  const inner = html.slice(open.index, end < 0 ? undefined : end);
  const form: HtmlForm = {
    action: new URL(attr(open[0], 'action') ?? pageUrl, pageUrl).toString(),
    method: (attr(open[0], 'method') ?? 'get').toLowerCase(),
    fields: new Map(),
    buttons: [],
  };
  for (const [tag] of inner.matchAll(/<(?:input|button)\b[^>]*>/gi)) {
    const name = attr(tag, 'name');
    const type = (attr(tag, 'type') ?? (tag.toLowerCase().startsWith('<button') ? 'submit' : 'text')).toLowerCase();
    if (!name) continue;
    if (type === 'submit') form.buttons.push({ name, value: attr(tag, 'value') ?? '' });
    else if (type === 'password') form.passwordField ??= name;
    else if (type === 'text' || type === 'email') form.textField ??= name;
    else if (type === 'hidden') form.fields.set(name, attr(tag, 'value') ?? '');
  }
  return form;
}
