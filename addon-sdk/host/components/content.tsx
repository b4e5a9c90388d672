/** Host renderings of the display components an add-on may use. Text only ever becomes text nodes. */
import type { ComponentChildren } from 'preact';
import { isWebUrl } from '../../protocol/components.ts';

type Children = { children?: ComponentChildren };

/** Heading levels map below the host page's own h1. */
export function Heading({ level, children }: { level?: string } & Children) {
  const Tag = level === '1' ? 'h2' : level === '3' ? 'h4' : 'h3';
  return <Tag class="addon-kit-heading">{children}</Tag>;
}

/** A paragraph; tone is a class, never a style from the add-on. */
export function Text({ tone, strong, children }: { tone?: string; strong?: boolean } & Children) {
  return (
    <p class={`addon-kit-text addon-kit-tone-${tone ?? 'default'}`}>
      {strong ? <strong>{children}</strong> : children}
    </p>
  );
}

/** A bulleted or numbered list. */
export function List({ ordered, children }: { ordered?: boolean } & Children) {
  return ordered ? <ol class="addon-kit-list">{children}</ol> : <ul class="addon-kit-list">{children}</ul>;
}

/** One list item. */
export function ListItem({ children }: Children) {
  return <li>{children}</li>;
}

/**
 * Links open in a new browsing context without an opener or referrer; the record validator let through only
 * URLs on the add-on's declared origins.
 */
export function Link({ href, children }: { href?: string } & Children) {
  if (!isWebUrl(href)) return <span class="addon-kit-link">{children}</span>;
  return (
    <a class="addon-kit-link" href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

/** An image from one of the add-on's declared origins (checked by the record validator), sent without a referrer. */
export function Image({ src, alt, width, height }: { src?: string; alt?: string; width?: number; height?: number }) {
  if (!isWebUrl(src)) return null;
  return (
    <img class="addon-kit-image" src={src} alt={alt ?? ''} width={width} height={height} referrerpolicy="no-referrer" />
  );
}

/** Flex layout with a few fixed gaps: classes of the components' stylesheet, never a style from the add-on. */
export function Stack({ direction, gap, children }: { direction?: string; gap?: string } & Children) {
  const classes = `addon-kit-stack addon-kit-stack-${direction ?? 'vertical'} addon-kit-gap-${gap ?? 'medium'}`;
  return <div class={classes}>{children}</div>;
}

/** A highlighted message; critical ones are alerts. */
export function Banner({ tone, title, children }: { tone?: string; title?: string } & Children) {
  return (
    <div class={`addon-kit-banner addon-kit-tone-${tone ?? 'info'}`} role={tone === 'critical' ? 'alert' : 'status'}>
      {title ? <strong class="addon-kit-banner-title">{title}</strong> : null}
      <div>{children}</div>
    </div>
  );
}

/** A loading indicator with an accessible label. */
export function Spinner({ label }: { label?: string }) {
  return (
    <span class="addon-kit-spinner" role="progressbar" aria-label={label ?? 'Loading'}>
      {label ?? 'Loading…'}
    </span>
  );
}
