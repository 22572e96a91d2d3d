/**
 * How a password-reset link reaches its user. The link comes from the embedded provider (a one-time
 * link of its own) or, with a real Auth0 tenant, from the Auth0 Management API (a password change
 * ticket); it goes out by e-mail when SMTP is configured, else into the server log for whoever runs
 * Tributary to pass on. A failure anywhere is 'User password has not been reset.' with a detail
 * that says what went wrong, never a 500.
 */
import nodemailer from 'nodemailer';
import type { PasswordResetDelivery as Delivery, UserInvitation } from '../../src/domain/api/accountManagement.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { Config, SmtpSettings } from '../config.ts';

export type { Delivery };

export interface ResetRecipient {
  auth0Id: string;
  email: string;
  fullName: string;
}

export interface ResetLog {
  info(obj: object, msg: string): void;
}

export interface ResetRequest {
  to: ResetRecipient;
  /** makes the embedded provider's link; only called when the embedded provider keeps passwords */
  embeddedLink: () => Promise<string>;
  log: ResetLog;
}

export interface EmailConfirmationRequest {
  /** the new address, which the link goes to */
  to: ResetRecipient;
  /** makes the embedded provider's confirmation link */
  embeddedLink: () => Promise<string>;
  log: ResetLog;
}

export interface InvitationRequest extends ResetRequest {
  /** the name of whoever added the user */
  invitedBy: string;
}

export interface PasswordResetDeliverer {
  deliverPasswordReset(request: ResetRequest): Promise<Delivery>;
  /** A new user's invitation: a link to choose their first password, sent the way reset links go. */
  deliverInvitation(request: InvitationRequest): Promise<Extract<UserInvitation, 'email' | 'server-log'>>;
  /** A link that confirms a new sign-in e-mail, sent the way reset links go. */
  deliverEmailConfirmation(request: EmailConfirmationRequest): Promise<Exclude<Delivery, 'auth0'>>;
}

/** network calls give up after this, so a hung mail server or Auth0 never holds the request */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Auth0 tickets are made to last as long as the embedded provider's links */
const TICKET_LIFETIME_SECONDS = 24 * 60 * 60;

const notReset = (detail: string) => new DomainError('password-not-reset', detail);
const notUpdated = (detail: string) => new DomainError('user-not-updated', detail);

/** What a mail says, around its link. */
export interface MailMessage {
  /** what the mail is, in the words of its failure ('The reset e-mail could not be sent…') */
  what: string;
  subject: string;
  text(name: string, link: string): string;
  html(name: string, link: string): string;
  /** the error when it cannot be sent */
  failure(detail: string): DomainError;
}

export const RESET_MAIL: MailMessage = {
  what: 'reset',
  subject: 'Reset your Tributary password',
  text: (name, link) => `Hello ${name},\n\nA password reset was asked for your Tributary account. Open this link to choose a new password:\n\n${link}\n\nThe link works once, for a day. If you did not expect it, you can ignore this e-mail.\n`,
  html: (name, link) => `<p>Hello ${escapeHtml(name)},</p><p>A password reset was asked for your Tributary account. `
    + `<a href="${escapeHtml(link)}">Choose a new password</a>.</p><p>The link works once, for a day. If you did not expect it, you can ignore this e-mail.</p>`,
  failure: notReset,
};

export const EMAIL_CONFIRMATION_MAIL: MailMessage = {
  what: 'confirmation',
  subject: 'Confirm your new Tributary sign-in e-mail',
  text: (name, link) => `Hello ${name},\n\nThis address was given as the sign-in e-mail of your Tributary account. Open this link to confirm it; until then you sign in with your previous address:\n\n${link}\n\nThe link works once, for a day. If you did not expect it, you can ignore this e-mail.\n`,
  html: (name, link) => `<p>Hello ${escapeHtml(name)},</p><p>This address was given as the sign-in e-mail of your Tributary account. `
    + `<a href="${escapeHtml(link)}">Confirm it</a>; until then you sign in with your previous address.</p><p>The link works once, for a day. If you did not expect it, you can ignore this e-mail.</p>`,
  failure: notUpdated,
};

/** The invitation of a new user: who added them, and the link that sets their first password. */
export function invitationMail(invitedBy: string): MailMessage {
  return {
    what: 'invitation',
    subject: 'You have been added to Tributary',
    text: (name, link) => `Hello ${name},\n\n${invitedBy} added you to Tributary. Open this link to choose your password; then sign in with this e-mail address:\n\n${link}\n\n`
      + 'The link works once, for a day. If it has expired, ask whoever added you to reset your password.\n',
    html: (name, link) => `<p>Hello ${escapeHtml(name)},</p><p>${escapeHtml(invitedBy)} added you to Tributary. `
      + `<a href="${escapeHtml(link)}">Choose your password</a>; then sign in with this e-mail address.</p>`
      + '<p>The link works once, for a day. If it has expired, ask whoever added you to reset your password.</p>',
    failure: (detail) => new DomainError('user-not-created', detail),
  };
}

/** Chosen from the configuration: Auth0 tickets with a real tenant, else the embedded links; sent by SMTP when configured, else logged. */
export function passwordResetDelivery(config: Pick<Config, 'auth' | 'smtp' | 'auth0Management'>): PasswordResetDeliverer {
  const mailer = config.smtp ? smtpSender(config.smtp) : null;
  if (config.auth.embedded) return mailer ? embeddedByEmail(mailer) : embeddedToLog();
  return auth0Tickets(config.auth.domain, config.auth0Management, mailer);
}

/** what tests shorten: how long to wait on the network */
export interface NetworkOptions {
  timeoutMs?: number;
}

/** (b) No mail server: the link goes to the server log (tests/e2e/userJourney.test.ts reads it there). */
export function embeddedToLog(): PasswordResetDeliverer {
  return {
    async deliverPasswordReset({ to, embeddedLink, log }) {
      logLink(log, to, await embeddedLink());
      return 'server-log';
    },
    async deliverEmailConfirmation({ to, embeddedLink, log }) {
      log.info({ user: to.auth0Id, email: to.email, emailConfirmationLink: await embeddedLink() }, 'e-mail confirmation link');
      return 'server-log';
    },
    async deliverInvitation({ to, embeddedLink, log }) {
      log.info({ user: to.auth0Id, email: to.email, invitationLink: await embeddedLink() }, 'invitation link');
      return 'server-log';
    },
  };
}

/** (a) The embedded provider's link, e-mailed. */
export function embeddedByEmail(mailer: ResetMailer): PasswordResetDeliverer {
  return {
    async deliverPasswordReset({ to, embeddedLink }) {
      await mailer.send(to, await embeddedLink());
      return 'email';
    },
    async deliverEmailConfirmation({ to, embeddedLink }) {
      await mailer.send(to, await embeddedLink(), EMAIL_CONFIRMATION_MAIL);
      return 'email';
    },
    async deliverInvitation({ to, embeddedLink, invitedBy }) {
      await mailer.send(to, await embeddedLink(), invitationMail(invitedBy));
      return 'email';
    },
  };
}

/** (c) A real Auth0 tenant keeps the passwords: it makes the link, which is e-mailed when SMTP is configured, else logged. */
export function auth0Tickets(
  domain: string, credentials: Config['auth0Management'], mailer: ResetMailer | null, { timeoutMs = DELIVERY_TIMEOUT_MS }: NetworkOptions = {},
): PasswordResetDeliverer {
  let cached: { token: string; until: number } | null = null;

  async function call(url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw notReset(timedOut ? `Auth0 did not answer ${what} within ${timeoutMs / 1000} seconds.` : `Auth0 could not be reached for ${what}.`);
    }
    const body = await res.json().catch(() => ({})) as Record<string, unknown>;
    if (!res.ok) {
      const said = typeof body.message === 'string' ? body.message : typeof body.error_description === 'string' ? body.error_description : null;
      throw notReset(`Auth0 refused ${what} (HTTP ${res.status}${said ? `: ${said}` : ''}).`);
    }
    return body;
  }

  async function managementToken(clientId: string, clientSecret: string): Promise<string> {
    if (cached && cached.until > Date.now()) return cached.token;
    const body = await call(`${domain}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: `${domain}/api/v2/` }),
    }, 'a Management API token');
    if (typeof body.access_token !== 'string') throw notReset('Auth0 answered the token request without a token.');
    // a minute early, so a token never expires between here and the ticket request
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : 0;
    cached = { token: body.access_token, until: Date.now() + (seconds - 60) * 1000 };
    return body.access_token;
  }

  return {
    async deliverPasswordReset({ to, log }) {
      if (!credentials) {
        throw notReset('Passwords are kept by Auth0; set AUTH0_MANAGEMENT_CLIENT_ID and AUTH0_MANAGEMENT_CLIENT_SECRET so Tributary may reset them, or reset it in Auth0.');
      }
      const token = await managementToken(credentials.clientId, credentials.clientSecret);
      const body = await call(`${domain}/api/v2/tickets/password-change`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ user_id: to.auth0Id, ttl_sec: TICKET_LIFETIME_SECONDS }),
      }, 'a password change ticket');
      if (typeof body.ticket !== 'string') throw notReset('Auth0 answered the ticket request without a link.');
      if (mailer) {
        await mailer.send(to, body.ticket);
        return 'email';
      }
      logLink(log, to, body.ticket);
      return 'auth0';
    },
    async deliverEmailConfirmation() {
      throw notUpdated('Sign-in e-mails are kept by Auth0: change the address there.');
    },
    async deliverInvitation() {
      // user management invites only users of the embedded provider (server/services/users.ts)
      throw new DomainError('user-not-created', 'Users of Auth0 are invited by Auth0.');
    },
  };
}

function logLink(log: ResetLog, to: ResetRecipient, link: string) {
  log.info({ user: to.auth0Id, email: to.email, passwordResetLink: link }, 'password reset link');
}

export interface ResetMailer {
  /** a password-reset mail unless another message is given */
  send(to: Pick<ResetRecipient, 'email' | 'fullName'>, link: string, message?: MailMessage): Promise<void>;
}

export function smtpSender(smtp: SmtpSettings, { timeoutMs = DELIVERY_TIMEOUT_MS }: NetworkOptions = {}): ResetMailer {
  const transport = nodemailer.createTransport({
    host: smtp.host, port: smtp.port, secure: smtp.secure,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.pass ?? '' } } : {}),
    connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
  });
  return {
    async send(to, link, message = RESET_MAIL) {
      try {
        await transport.sendMail({
          from: smtp.from,
          to: { name: to.fullName, address: to.email },
          subject: message.subject,
          text: message.text(to.fullName, link),
          html: message.html(to.fullName, link),
        });
      } catch (err) {
        const code = (err as { code?: string }).code;
        throw message.failure(`The ${message.what} e-mail could not be sent through ${smtp.host}:${smtp.port}${code ? ` (${code})` : ''}.`);
      }
    },
  };
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
