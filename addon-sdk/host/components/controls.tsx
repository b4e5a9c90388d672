/**
 * Host renderings of the interactive components. Callbacks are the add-on's listeners (bridged); they are
 * only ever called with plain strings or booleans, never with DOM events.
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { SelectOption } from '../../protocol/components.ts';

type Children = { children?: ComponentChildren };
type Callback<T> = ((value: T) => void) | undefined;

/** A button; a click calls the add-on's onPress with no arguments. */
export function Button({ variant, disabled, onPress, children }: { variant?: string; disabled?: boolean; onPress?: () => void } & Children) {
  return (
    <button type="button" class={`addon-kit-button addon-kit-button-${variant ?? 'secondary'}`} disabled={disabled} onClick={() => onPress?.()}>
      {children}
    </button>
  );
}

interface FieldProps {
  label?: string;
  value?: string;
  placeholder?: string;
  disabled?: boolean;
  onInput?: Callback<string>;
  onChange?: Callback<string>;
}

/** A labelled one-line input; onInput/onChange get the value. */
export function TextField({ label, type, onInput, onChange, ...rest }: FieldProps & { type?: string }) {
  const id = useId();
  return (
    <div class="addon-kit-field">
      {label ? <label for={id}>{label}</label> : null}
      <input
        id={id}
        type={type ?? 'text'}
        value={rest.value ?? ''}
        placeholder={rest.placeholder}
        disabled={rest.disabled}
        onInput={(e) => onInput?.(e.currentTarget.value)}
        onChange={(e) => onChange?.(e.currentTarget.value)}
      />
    </div>
  );
}

/** A labelled multi-line input; onInput/onChange get the value. */
export function TextArea({ label, rows, onInput, onChange, ...rest }: FieldProps & { rows?: number }) {
  const id = useId();
  return (
    <div class="addon-kit-field">
      {label ? <label for={id}>{label}</label> : null}
      <textarea
        id={id}
        rows={rows ?? 4}
        value={rest.value ?? ''}
        placeholder={rest.placeholder}
        disabled={rest.disabled}
        onInput={(e) => onInput?.(e.currentTarget.value)}
        onChange={(e) => onChange?.(e.currentTarget.value)}
      />
    </div>
  );
}

/** A labelled choice; onChange gets the chosen value. */
export function Select({ label, value, options, disabled, onChange }: { label?: string; value?: string; options?: SelectOption[]; disabled?: boolean; onChange?: Callback<string> }) {
  const id = useId();
  return (
    <div class="addon-kit-field">
      {label ? <label for={id}>{label}</label> : null}
      <select id={id} value={value} disabled={disabled} onChange={(e) => onChange?.(e.currentTarget.value)}>
        {(options ?? []).map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  );
}

/** A labelled checkbox; onChange gets the checked state. */
export function Checkbox({ label, checked, disabled, onChange }: { label?: string; checked?: boolean; disabled?: boolean; onChange?: Callback<boolean> }) {
  return (
    <label class="addon-kit-checkbox">
      <input type="checkbox" checked={checked ?? false} disabled={disabled} onChange={(e) => onChange?.(e.currentTarget.checked)} />
      {label}
    </label>
  );
}
