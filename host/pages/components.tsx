/** The shared pieces of a page body: the CSRF field of every form, banners, labelled fields and scrollable tables. */
import { CSRF_FORM_FIELD } from '@addon-kit/sdk/protocol';
import type { ComponentChildren, VNode } from 'preact';

/** The hidden CSRF field of every form. */
export function CsrfField(props: { token: string }): VNode {
  return <input type="hidden" name={CSRF_FORM_FIELD} value={props.token} />;
}

/** Tones of a banner: what it tells. */
export type BannerTone = 'info' | 'success' | 'warning' | 'critical';

/** A message as a banner; critical ones are alerts, the others status messages. */
export function Banner(props: { tone: BannerTone; title?: string; id?: string; children?: ComponentChildren }): VNode {
  return (
    <div
      class={`ak-banner ak-banner--${props.tone}`}
      role={props.tone === 'critical' ? 'alert' : 'status'}
      {...(props.id ? { id: props.id } : {})}
    >
      {props.title ? <p class="ak-banner-title">{props.title}</p> : null}
      {props.children}
    </div>
  );
}

/**
 * A labelled form control with its hint and its error, both tied to the control (`aria-describedby`), the control
 * marked invalid when there is an error. `children` is the control, given `id`, `describedBy` and `invalid`.
 */
export function Field(props: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string | undefined;
  children: (aria: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: 'true' }) => VNode;
}): VNode {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  const errorId = props.error ? `${props.id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return (
    <div class="ak-field">
      <label for={props.id}>{props.label}</label>
      {props.children({
        id: props.id,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        ...(errorId ? { 'aria-invalid': 'true' } : {}),
      })}
      {props.hint ? (
        <p class="ak-hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="ak-field-error" id={errorId}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** A table in a bordered, horizontally scrollable box (wide tables stay readable on a phone). */
export function Table(props: { label: string; children: ComponentChildren }): VNode {
  return (
    <div class="ak-table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      <table>{props.children}</table>
    </div>
  );
}

/** A timestamp as the pages show it: UTC to the minute. */
export function shownTime(at: Date | string): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
