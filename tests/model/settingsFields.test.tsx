/**
 * The shared settings fields on their own, rendered from real catalogue schemas: a connection's
 * settings (Secure FTP, HTTP, Salesforce) and a formula's additional settings (Salesforce as a
 * source and a destination on one page, WealthEngine's destination choice). Every field kind has
 * its label, its required marker and its error announced; a saved secret shows a shield and is
 * kept while its input stays empty; changes and blurs report the field's key.
 */
import { useState } from 'react';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import {
  CONNECTION_FIELD_MESSAGE, defaultValues, fieldApplies, formFields, INVALID_PORT_MESSAGE, INVALID_URL_MESSAGE, KEY_FIELD_MESSAGE,
  type FieldKind, type FieldMeta, type SettingsSchema,
} from '../../src/domain/connectors/fields.ts';
import { SAVED_SECRET_PLACEHOLDER, SettingsFields, type SettingsFieldsProps } from '../../src/ui/SettingsFields.tsx';

// jsdom has no document.fonts, which Mantine's autosizing textarea (the SSH key) listens to
afterEach(() => cleanup());

const SFTP = connectorFor('sftp').settings;
const HTTP = connectorFor('http').settings;
const SALESFORCE = connectorFor('salesforce');
const WEALTHENGINE = connectorFor('wealthengine');

type Props = Omit<SettingsFieldsProps, 'values' | 'onChange' | 'idPrefix'> & { idPrefix?: string; values?: Record<string, string> };

/** the fields with their values held the way a screen would hold them */
function Controlled({ values: initial, onChange, ...props }: Omit<SettingsFieldsProps, 'values'> & { values: Record<string, string> }) {
  const [values, setValues] = useState(initial);
  return (
    <SettingsFields
      {...props} values={values}
      onChange={(key, value) => { onChange(key, value); setValues((v) => ({ ...v, [key]: value })); }}
    />
  );
}

function renderFields({ schema, values = defaultValues(schema), idPrefix = 'settings', ...rest }: Props) {
  const onChange = vi.fn<(key: string, value: string) => void>();
  const onBlur = vi.fn<(key: string) => void>();
  render(
    <MantineProvider>
      <form aria-label="Settings">
        <Controlled schema={schema} values={values} idPrefix={idPrefix} onChange={onChange} onBlur={onBlur} {...rest} />
      </form>
    </MantineProvider>,
  );
  return { onChange, onBlur, user: userEvent.setup({ delay: null }) };
}

/** the input a field's label names (a choice's option list carries the same label) */
const inputOf = (label: string, container: HTMLElement = document.body) =>
  within(container).getByLabelText(new RegExp(`^${label.replace(/[()]/g, '\\$&')}( \\*)?$`), { selector: 'input, textarea' }) as HTMLInputElement | HTMLTextAreaElement;
const labelOf = (input: HTMLElement) => document.querySelector(`label[for="${input.id}"]`)!;
const describedBy = (input: HTMLElement) => (input.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean).map((id) => document.getElementById(id)!.textContent);

/** What every field shows, whatever its kind: its label on the input, the marker only when required, its error announced. */
function expectField(f: FieldMeta, idPrefix: string, error?: string) {
  const input = inputOf(f.label);
  expect(input.id).toBe(`${idPrefix}-${f.key}`);
  expect(input.getAttribute('data-field')).toBe(f.key);
  const marked = f.required && !f.requiredWhen;
  expect(labelOf(input).textContent).toBe(marked ? `${f.label} *` : f.label);
  expect(input.required).toBe(marked);
  if (f.description) expect(describedBy(input)).toContain(f.description);
  if (error) {
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy(input)).toContain(error);
  } else {
    expect(input.getAttribute('aria-invalid')).toBeNull();
  }
  return input;
}

/** how each kind of field is built */
const KIND_CHECKS: Record<FieldKind, (input: HTMLInputElement | HTMLTextAreaElement, f: FieldMeta) => void> = {
  text: (input) => { expect(input.tagName).toBe('INPUT'); expect(input.getAttribute('type')).toBe('text'); },
  url: (input) => expect(input.getAttribute('type')).toBe('url'),
  email: (input) => expect(input.getAttribute('type')).toBe('email'),
  port: (input) => { expect(input.getAttribute('type')).toBe('text'); expect(input.getAttribute('inputmode')).toBe('numeric'); },
  secret: (input) => { expect(input.getAttribute('type')).toBe('password'); expect(input.getAttribute('autocomplete')).toBe('new-password'); },
  key: (input) => { expect(input.tagName).toBe('TEXTAREA'); expect(input.getAttribute('spellcheck')).toBe('false'); },
  select: (input, f) => {
    expect(input.getAttribute('role')).toBe('combobox');
    expect(f.options!.map((o) => o.label)).toContain(input.value);
  },
};

/** renders a schema with an error on every field, and checks each field that applies */
function checkEveryField(schema: SettingsSchema, values: Record<string, string>, idPrefix: string) {
  const shown = formFields(schema).filter((f) => fieldApplies(f, values));
  const errors = Object.fromEntries(shown.map((f) => [f.key, `${f.label}: ${CONNECTION_FIELD_MESSAGE}`]));
  renderFields({ schema, values, idPrefix, errors });
  for (const f of shown) {
    KIND_CHECKS[f.kind](expectField(f, idPrefix, errors[f.key]), f);
  }
  // the fields that do not apply to these values are not there
  for (const f of formFields(schema).filter((x) => !fieldApplies(x, values))) {
    expect(screen.queryByLabelText(new RegExp(`^${f.label}( \\*)?$`))).toBeNull();
  }
  return shown;
}

describe('SettingsFields from a connection schema', () => {
  const CASES = {
    sftpPassword: { schema: SFTP, values: defaultValues(SFTP), idPrefix: 'sftp' },
    sftpKey: { schema: SFTP, values: { ...defaultValues(SFTP), authenticationType: 'ssh-key' }, idPrefix: 'sftp' },
    http: { schema: HTTP, values: defaultValues(HTTP), idPrefix: 'http' },
    salesforce: { schema: SALESFORCE.settings, values: defaultValues(SALESFORCE.settings), idPrefix: 'salesforce' },
  };
  const run = (c: (typeof CASES)[keyof typeof CASES]) => checkEveryField(c.schema, c.values, c.idPrefix);

  it('covers every kind of field', () => {
    const kinds = new Set(Object.values(CASES).flatMap((c) => formFields(c.schema).filter((f) => fieldApplies(f, c.values)).map((f) => f.kind)));
    expect([...kinds].sort()).toEqual((['email', 'key', 'port', 'secret', 'select', 'text', 'url'] satisfies FieldKind[]).sort());
  });

  it('renders Secure FTP with a password: text, port, choice and secret, each labelled, marked and with its error', () => {
    const shown = run(CASES.sftpPassword);
    expect(shown.map((f) => f.key)).toEqual(['host', 'port', 'username', 'authenticationType', 'password', 'folder', 'hostKeyFingerprint']);
    expect(inputOf('Port').value).toBe('22');
    expect(inputOf('Authentication type').value).toBe('Password');
    expect(labelOf(inputOf('Host key fingerprint')).textContent).toBe('Host key fingerprint');
  });

  it('renders Secure FTP with an SSH key: the key textarea and the optional passphrase', () => {
    const shown = run(CASES.sftpKey);
    expect(shown.map((f) => f.key)).toEqual(['host', 'port', 'username', 'authenticationType', 'privateKey', 'passphrase', 'folder', 'hostKeyFingerprint']);
    expect(inputOf('SSH private key').getAttribute('placeholder')).toBe('-----BEGIN OPENSSH PRIVATE KEY-----');
    expect(labelOf(inputOf('Key passphrase')).textContent).toBe('Key passphrase');
  });

  it('renders HTTP: a URL field', () => {
    run(CASES.http);
    expect(inputOf('URL').getAttribute('placeholder')).toBe('https://api.example.org/v1/donations');
  });

  it('renders Salesforce: an e-mail field, and a field required only under a condition carries no marker', () => {
    const shown = run(CASES.salesforce);
    expect(shown.find((f) => f.key === 'customDomain')!.requiredWhen).toBeTruthy();
    expect(labelOf(inputOf('Custom domain (My Domain)')).textContent).toBe('Custom domain (My Domain)');
    expect(inputOf('User name').getAttribute('type')).toBe('email');
  });

  it('shows only the errors it is given, each under its own field', () => {
    renderFields({ schema: SFTP, errors: { port: INVALID_PORT_MESSAGE, host: undefined } });
    expect(describedBy(inputOf('Port'))).toEqual([INVALID_PORT_MESSAGE]);
    expect(inputOf('Host').getAttribute('aria-invalid')).toBeNull();
    expect(screen.getAllByText(INVALID_PORT_MESSAGE)).toHaveLength(1);
  });
});

describe('a saved secret', () => {
  it('shows a shield, an empty input that says it is kept, and no required marker', () => {
    renderFields({ schema: SFTP, values: { ...defaultValues(SFTP), host: 'sftp.partner.org' }, savedSecrets: ['password'] });
    const password = inputOf('Password');
    expect(screen.getByRole('img', { name: 'Password is saved' })).toBeTruthy();
    expect(password.value).toBe('');
    expect(password.getAttribute('placeholder')).toBe(SAVED_SECRET_PLACEHOLDER);
    expect(password.required).toBe(false);
    expect(labelOf(password).textContent).toBe('Password');
    // a secret not saved is still required
    expect(inputOf('Host').required).toBe(true);
  });

  it('keeps its shield while the input is emptied again, and reports the empty value that keeps it', async () => {
    const { user, onChange } = renderFields({ schema: SFTP, savedSecrets: ['password'] });
    await user.type(inputOf('Password'), 'ab');
    await user.clear(inputOf('Password'));
    expect(onChange).toHaveBeenLastCalledWith('password', '');
    expect(inputOf('Password').value).toBe('');
    expect(screen.getByRole('img', { name: 'Password is saved' })).toBeTruthy();
  });

  it('shields a saved SSH key in its textarea', () => {
    renderFields({ schema: SFTP, values: { ...defaultValues(SFTP), authenticationType: 'ssh-key' }, savedSecrets: ['privateKey'], errors: { passphrase: KEY_FIELD_MESSAGE } });
    const key = inputOf('SSH private key');
    expect(screen.getByRole('img', { name: 'SSH private key is saved' })).toBeTruthy();
    expect(key.getAttribute('placeholder')).toBe(SAVED_SECRET_PLACEHOLDER);
    expect(key.required).toBe(false);
    expect(screen.queryByRole('img', { name: 'Key passphrase is saved' })).toBeNull();
  });
});

describe('changes and blurs', () => {
  it('report the key of the field typed in, chosen from, and left', async () => {
    const { user, onChange, onBlur } = renderFields({ schema: SFTP });
    await user.type(inputOf('Host'), 'sftp.x');
    expect(onChange).toHaveBeenLastCalledWith('host', 'sftp.x');
    await user.tab();
    expect(onBlur).toHaveBeenCalledWith('host');

    await user.clear(inputOf('Port'));
    await user.type(inputOf('Port'), '2222');
    expect(onChange).toHaveBeenLastCalledWith('port', '2222');

    await user.click(inputOf('Authentication type'));
    await user.click(await screen.findByRole('option', { name: 'SSH key', hidden: true }));
    expect(onChange).toHaveBeenLastCalledWith('authenticationType', 'ssh-key');
    // the fields of the new choice replace the old ones
    expect(inputOf('SSH private key')).toBeTruthy();
    expect(screen.queryByLabelText(/^Password/)).toBeNull();

    await user.type(inputOf('Key passphrase'), 'pp');
    expect(onChange).toHaveBeenLastCalledWith('passphrase', 'pp');
    expect(onChange.mock.calls.every(([key]) => ['host', 'port', 'authenticationType', 'passphrase'].includes(key))).toBe(true);
  });

  it('a URL error is shown as given, and the fields are disabled while the caller saves', () => {
    renderFields({ schema: HTTP, errors: { url: INVALID_URL_MESSAGE }, disabled: true });
    expect(describedBy(inputOf('URL'))).toContain(INVALID_URL_MESSAGE);
    for (const f of formFields(HTTP).filter((x) => fieldApplies(x, defaultValues(HTTP)))) expect(inputOf(f.label).disabled).toBe(true);
  });
});

describe('SettingsFields from additional settings', () => {
  it('renders a formula source and destination on one page with ids that never clash', async () => {
    const onChange = { source: vi.fn(), destination: vi.fn() };
    const source = SALESFORCE.additionalSettings.source!;
    const destination = SALESFORCE.additionalSettings.destination!;
    render(
      <MantineProvider>
        <fieldset aria-label="Source settings">
          <Controlled schema={source} values={defaultValues(source)} idPrefix="source-settings" onChange={onChange.source} errors={{ object: CONNECTION_FIELD_MESSAGE }} />
        </fieldset>
        <fieldset aria-label="Destination settings">
          <Controlled schema={destination} values={defaultValues(destination)} idPrefix="destination-settings" onChange={onChange.destination} />
        </fieldset>
      </MantineProvider>,
    );
    const sourceSet = screen.getByRole('group', { name: 'Source settings' });
    const destinationSet = screen.getByRole('group', { name: 'Destination settings' });
    const sourceObject = inputOf('Top-level object', sourceSet);
    const destinationObject = inputOf('Top-level object', destinationSet);
    expect(sourceObject.id).toBe('source-settings-object');
    expect(destinationObject.id).toBe('destination-settings-object');
    expect(labelOf(sourceObject).textContent).toBe('Top-level object *');
    expect(sourceObject.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy(sourceObject)).toEqual([CONNECTION_FIELD_MESSAGE]);
    expect(destinationObject.getAttribute('aria-invalid')).toBeNull();

    const report = inputOf('Report ID', sourceSet);
    expect(labelOf(report).textContent).toBe('Report ID');
    expect(describedBy(report)).toEqual(['Optional: pull the rows of a report with a standard date filter.']);

    const user = userEvent.setup({ delay: null });
    await user.type(destinationObject, 'Lead');
    expect(onChange.destination).toHaveBeenLastCalledWith('object', 'Lead');
    expect(onChange.source).not.toHaveBeenCalled();
  });

  it('renders a destination choice (WealthEngine profile) and reports it', async () => {
    const schema = WEALTHENGINE.additionalSettings.destination!;
    const { user, onChange } = renderFields({ schema, idPrefix: 'destination-settings' });
    const profile = inputOf('Profile');
    expect(profile.id).toBe('destination-settings-profile');
    expect(labelOf(profile).textContent).toBe('Profile *');
    expect(profile.value).toBe('Basic');
    await user.click(profile);
    await user.click(await screen.findByRole('option', { name: 'Full', hidden: true }));
    expect(onChange).toHaveBeenLastCalledWith('profile', 'full');
    expect(inputOf('Profile').value).toBe('Full');
  });
});
