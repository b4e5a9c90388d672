/**
 * Host renderings of the interactive components. Callbacks are the add-on's listeners (bridged); they are
 * only ever called with plain strings or booleans, never with DOM events.
 */
import type { ComponentChildren, VNode } from 'preact';
import { useId } from 'preact/hooks';
import type { SelectOption } from '../../protocol/components.ts';

type Children = { children?: ComponentChildren };
type Callback<T> = ((value: T) => void) | undefined;

/** A button (variants primary, secondary, plain, destructive); a click calls the add-on's onPress with no arguments. */
export function Button({
  variant,
  disabled,
  onPress,
  children,
}: { variant?: string; disabled?: boolean; onPress?: () => void } & Children) {
  return (
    <button
      type="button"
      class={`addon-kit-button addon-kit-button-${variant ?? 'secondary'}`}
      disabled={disabled}
      onClick={() => onPress?.()}
    >
      {children}
    </button>
  );
}

interface FieldProps {
  label?: string;
  value?: string;
  placeholder?: string;
  disabled?: boolean;
  /** A message saying what is wrong with the value; the control is then marked invalid. */
  error?: string;
  onInput?: Callback<string>;
  onChange?: Callback<string>;
}

/**
 * A control with its label and its error, both tied to it; a control without a label is named by its placeholder
 * (never left unnamed).
 */
function Field(props: { label?: string; error?: string; placeholder?: string; children: (aria: object) => VNode }) {
  const { label, error, placeholder } = props;
  const id = useId();
  const aria = {
    id,
    placeholder,
    'aria-label': label ? undefined : placeholder,
    'aria-invalid': error ? 'true' : undefined,
    'aria-describedby': error ? `${id}e` : undefined,
  };
  return (
    <div class="addon-kit-field">
      {label ? <label for={id}>{label}</label> : null}
      {props.children(aria)}
      {error ? (
        <p id={`${id}e`} class="addon-kit-field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled one-line input; onInput/onChange get the value. */
export function TextField({ type, onInput, onChange, ...rest }: FieldProps & { type?: string }) {
  return (
    <Field {...rest}>
      {(aria) => (
        <input
          {...aria}
          type={type ?? 'text'}
          value={rest.value ?? ''}
          disabled={rest.disabled}
          onInput={(e) => onInput?.(e.currentTarget.value)}
          onChange={(e) => onChange?.(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** A labelled multi-line input; onInput/onChange get the value. */
export function TextArea({ rows, onInput, onChange, ...rest }: FieldProps & { rows?: number }) {
  return (
    <Field {...rest}>
      {(aria) => (
        <textarea
          {...aria}
          rows={rows ?? 4}
          value={rest.value ?? ''}
          disabled={rest.disabled}
          onInput={(e) => onInput?.(e.currentTarget.value)}
          onChange={(e) => onChange?.(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** A labelled choice; onChange gets the chosen value. */
export function Select({
  value,
  options,
  disabled,
  onChange,
  ...rest
}: {
  label?: string;
  value?: string;
  options?: SelectOption[];
  disabled?: boolean;
  error?: string;
  onChange?: Callback<string>;
}) {
  return (
    <Field {...rest}>
      {(aria) => (
        <select {...aria} value={value} disabled={disabled} onChange={(e) => onChange?.(e.currentTarget.value)}>
          {(options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A labelled checkbox; onChange gets the checked state. */
export function Checkbox({
  label,
  checked,
  disabled,
  onChange,
}: {
  label?: string;
  checked?: boolean;
  disabled?: boolean;
  onChange?: Callback<boolean>;
}) {
  return (
    <label class="addon-kit-checkbox">
      <input
        type="checkbox"
        checked={checked ?? false}
        disabled={disabled}
        onChange={(e) => onChange?.(e.currentTarget.checked)}
      />
      {label}
    </label>
  );
}
