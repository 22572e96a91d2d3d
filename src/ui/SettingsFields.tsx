/**
 * The inputs of a catalogue settings schema: a connection's settings, or a formula's additional
 * settings for its source or destination. Each field's kind, label and rules come from the
 * schema's field metadata; only the fields that apply to the current values are shown. A saved
 * secret shows behind a shield and stays saved while its input is left empty.
 *
 * Presentational: the caller owns the values and decides which errors to show (after a blur,
 * after a submit). The inputs come as siblings, so they sit in the caller's own layout.
 */
import { PasswordInput, Select, Textarea, TextInput } from '@mantine/core';
import { IconShieldLock } from '@tabler/icons-react';
import { fieldApplies, formFields, type FieldMeta, type SettingsSchema } from '../domain/connectors/fields.ts';

export const SAVED_SECRET_PLACEHOLDER = 'Saved. Leave empty to keep it.';

export function SavedShield({ label }: { label: string }) {
  return <IconShieldLock size={16} aria-label={`${label} is saved`} role="img" data-testid="saved-secret-shield" />;
}

export interface SettingsFieldsProps {
  /** a catalogue settings schema: `ConnectorDefinition.settings` or one of its `additionalSettings` */
  schema: SettingsSchema;
  values: Readonly<Record<string, string | undefined>>;
  /** the message to show under each field, by field key */
  errors?: Readonly<Record<string, string | undefined>>;
  /** secret fields with a saved value */
  savedSecrets?: readonly string[];
  onChange(key: string, value: string): void;
  onBlur?(key: string): void;
  disabled?: boolean;
  /**
   * each input's id is `${idPrefix}-${key}` (its label, description and error ids follow), so
   * two settings forms on one page (a formula's source and destination) never share an id
   */
  idPrefix: string;
  /** fields not offered to this user (a refresh token only an Administrator may paste) */
  hidden?: readonly string[];
}

export function SettingsFields({ schema, values, errors = {}, savedSecrets = [], onChange, onBlur, disabled, idPrefix, hidden = [] }: SettingsFieldsProps) {
  const fields = formFields(schema).filter((f) => fieldApplies(f, values) && !hidden.includes(f.key));
  return (
    <>
      {fields.map((f) => (
        <SettingsField
          key={f.key} field={f} value={values[f.key]} error={errors[f.key]} saved={savedSecrets.includes(f.key)}
          onChange={onChange} onBlur={onBlur} disabled={disabled} idPrefix={idPrefix}
        />
      ))}
    </>
  );
}

interface SettingsFieldProps extends Pick<SettingsFieldsProps, 'onChange' | 'onBlur' | 'disabled' | 'idPrefix'> {
  field: FieldMeta;
  value: string | undefined;
  error: string | undefined;
  saved: boolean;
}

function SettingsField({ field: f, value, error, saved, onChange, onBlur, disabled, idPrefix }: SettingsFieldProps) {
  // a field required only under a condition carries no marker: the message says so when it applies
  const required = f.required && !f.requiredWhen ? true : undefined;
  const common = {
    id: `${idPrefix}-${f.key}`,
    label: f.label,
    description: f.description,
    required,
    value: value ?? '',
    error,
    // Mantine's PasswordInput marks its input only with data-invalid; this announces the error too
    'aria-invalid': error ? true : undefined,
    disabled,
    onChange: (e: { currentTarget: { value: string } }) => onChange(f.key, e.currentTarget.value),
    onBlur: () => onBlur?.(f.key),
    'data-field': f.key,
  };
  switch (f.kind) {
    case 'select':
      return (
        <Select
          {...common} data={f.options ?? []} value={value ?? null} allowDeselect={false}
          onChange={(chosen) => chosen !== null && onChange(f.key, chosen)}
        />
      );
    case 'secret':
      return (
        <PasswordInput
          {...common} autoComplete="new-password"
          // a saved secret is kept when left empty, so it is no longer required
          required={saved ? undefined : required}
          placeholder={saved ? SAVED_SECRET_PLACEHOLDER : f.placeholder}
          leftSection={saved ? <SavedShield label={f.label} /> : undefined}
        />
      );
    case 'key':
      return (
        <Textarea
          {...common} autosize minRows={3} maxRows={10} spellCheck={false} ff="monospace"
          required={saved ? undefined : required}
          placeholder={saved ? SAVED_SECRET_PLACEHOLDER : '-----BEGIN OPENSSH PRIVATE KEY-----'}
          leftSection={saved ? <SavedShield label={f.label} /> : undefined}
        />
      );
    default:
      return (
        <TextInput
          {...common} type={f.kind === 'email' ? 'email' : f.kind === 'url' ? 'url' : 'text'}
          inputMode={f.kind === 'port' ? 'numeric' : undefined} placeholder={f.placeholder}
        />
      );
  }
}
