/**
 * The validation rules a destination field can have (the validation part): checked on the
 * transformed value, a failing record goes to the rule's custom validation-exceptions bucket.
 * The engine and the mapping preview call the same functions.
 *
 * - Every rule reads the value with surrounding spaces trimmed (a CSV's padding is not the data).
 * - Only 'required' refuses an empty value; the others pass it, so an optional e-mail may be blank.
 * - Lengths count user-perceived characters, as shorten does.
 * - A phone number has 7 to 15 digits (E.164's most) once spaces, dots, dashes and brackets are
 *   taken out, with at most one leading '+'.
 * - One of compares without regard to capitalisation ('gold' is one of Gold, Silver), as routing
 *   by default does not count capitalisation as a difference; accents do count.
 */
import { graphemeLength, valueText, type FieldValue } from './transforms.ts';
import type { Validation, ValidationRule } from './parts.ts';

export const PHONE_MIN_DIGITS = 7;
export const PHONE_MAX_DIGITS = 15;
const ONE_OF_LISTED = 5;

export const RULE_MESSAGES = {
  required: 'A value is required',
  email: 'Not a valid e-mail address',
  phone: `Not a valid phone number (${PHONE_MIN_DIGITS} to ${PHONE_MAX_DIGITS} digits)`,
  length: (min: number | undefined, max: number | undefined) => {
    if (min !== undefined && max !== undefined) return min === max ? `Must be exactly ${min} characters long` : `Must be ${min} to ${max} characters long`;
    return min !== undefined ? `Must be at least ${min} characters long` : `Must be at most ${max} characters long`;
  },
  oneOf: (values: readonly string[]) =>
    `Must be one of: ${values.slice(0, ONE_OF_LISTED).join(', ')}${values.length > ONE_OF_LISTED ? ', …' : ''}`,
} as const;

/** The rules users choose from, with their names. */
export const RULE_LABELS: Record<ValidationRule['rule'], string> = {
  required: 'Required',
  email: 'E-mail',
  phone: 'Phone',
  length: 'Length',
  'one-of': 'One of',
};

// one @, no spaces, no empty or doubled dots, a domain of at least two labels (none starting or
// ending with '-'), the last of two or more characters and not only digits
const EMAIL = /^(?!\.)(?!.*\.\.)[^\s@]+(?<!\.)@(?=.{1,253}$)(?:(?!-)[^\s@.]+(?<!-)\.)+(?!\d+$)(?!-)[^\s@.]{2,}(?<!-)$/u;
const PHONE = /^\+?[0-9]+$/;

/** A rule's verdict on a value: the failure message, or null when it passes. */
export function validateValue(rule: ValidationRule, value: FieldValue | undefined): string | null {
  const text = valueText(value ?? null).trim();
  if (rule.rule === 'required') return text === '' ? RULE_MESSAGES.required : null;
  if (text === '') return null;
  switch (rule.rule) {
    case 'email': return text.length <= 254 && EMAIL.test(text) ? null : RULE_MESSAGES.email;
    case 'phone': {
      const compact = text.replace(/[\s().-]/g, '');
      const digits = compact.replace(/^\+/, '').length;
      return PHONE.test(compact) && digits >= PHONE_MIN_DIGITS && digits <= PHONE_MAX_DIGITS ? null : RULE_MESSAGES.phone;
    }
    case 'length': {
      const n = graphemeLength(text);
      return (rule.min !== undefined && n < rule.min) || (rule.max !== undefined && n > rule.max) ? RULE_MESSAGES.length(rule.min, rule.max) : null;
    }
    case 'one-of': {
      const wanted = text.normalize('NFC').toLowerCase();
      return rule.values.some((v) => v.trim().normalize('NFC').toLowerCase() === wanted) ? null : RULE_MESSAGES.oneOf(rule.values);
    }
  }
}

/** A rule a record fails: its field, the bucket the record goes to, and why. */
export interface RuleFailure {
  destination: string;
  bucket: string;
  message: string;
}

/**
 * Every rule a record's transformed values fail, in the rules' order. A field whose transforms
 * failed is skipped: that failure is the record's problem, not a rule's.
 */
export function validateRecord(validation: Pick<Validation, 'rules'> | null | undefined, values: Record<string, FieldValue>, transformErrors: Record<string, string> = {}): RuleFailure[] {
  const failures: RuleFailure[] = [];
  for (const rule of validation?.rules ?? []) {
    if (Object.hasOwn(transformErrors, rule.destination)) continue;
    const message = validateValue(rule, Object.hasOwn(values, rule.destination) ? values[rule.destination] : null);
    if (message) failures.push({ destination: rule.destination, bucket: rule.bucket, message });
  }
  return failures;
}
