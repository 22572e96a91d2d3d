/**
 * Notices to the people a data source or a formula belongs to (the users who made them), by e-mail
 * through the configured SMTP server: that a data source needs reconnecting (the vendor refused its
 * grant; the connector kit marks it, server/connectors/kit/grant.ts), told to its maker and to the
 * makers of the formulas that use it; and that a formula errored after its retries, told to its
 * maker. Each user may turn these e-mails off (users.owner_notices). Without an SMTP server, or
 * without anyone who can be reached, the notice is the activity history's event and the screens'
 * badge alone, and the log says so. A notice never fails the work that found the problem: a mail
 * that cannot be sent is logged.
 */
import type { Logger } from 'pino';
import { OWNER_NOTICES_LABEL } from '../../src/domain/api/accountManagement.ts';
import { ROUTES } from '../../src/domain/screens.ts';
import type { Config } from '../config.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import type { ReconnectNotices } from '../connectors/kit/grant.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { escapeHtml, smtpSender, type MailMessage, type ResetMailer } from '../identity/resetDelivery.ts';

/** tells a formula's owner it errored, and why; never throws */
export interface FormulaNotices {
  formulaErrored(tenant: TenantScope, formula: { id: string; name: string }, reason: string): Promise<void>;
}

/** tells the owners of a data source, and of the formulas that use it, that it needs reconnecting; and a formula's owner that it errored */
export type OwnerNotices = ReconnectNotices & FormulaNotices;

/** The mail: which formula, why it stopped, and where to dismiss the error and retry. */
export function formulaErroredMail(formula: { name: string }, reason: string): MailMessage {
  return {
    what: 'notice',
    subject: `${formula.name} has errored`,
    text: (name, link) => `Hello ${name},\n\nThe formula ${formula.name} stopped with an error after its retries: ${reason}\n\n`
      + `It collects nothing more until the error is dismissed. Open it in the Data Queue (${link}) to read the error, dismiss it and retry.\n\n`
      + `${WHY_FORMULA}\n`,
    html: (name, link) => `<p>Hello ${escapeHtml(name)},</p><p>The formula <strong>${escapeHtml(formula.name)}</strong> stopped with an error after its retries: `
      + `${escapeHtml(reason)}</p><p>It collects nothing more until the error is dismissed. <a href="${escapeHtml(link)}">Open it in the Data Queue</a> `
      + `to read the error, dismiss it and retry.</p><p>${escapeHtml(WHY_FORMULA)}</p>`,
    failure: (detail) => new DomainError('server-error', detail),
  };
}

/** why the mail came, and how to stop such mails */
const why = (made: string) => `You receive this because you made ${made}. To stop these e-mails, untick "${OWNER_NOTICES_LABEL}" in the user menu.`;
const WHY_FORMULA = why('this formula');
const WHY_DATA_SOURCE = why('this data source or a formula that uses it');

/** The mail: what happened, why, and where to connect again. */
export function reconnectMail(dataSource: { displayName: string; system: string }, reason: string): MailMessage {
  const system = systemName(dataSource.system);
  return {
    what: 'notice',
    subject: `${dataSource.displayName} needs reconnecting`,
    text: (name, link) => `Hello ${name},\n\nThe data source ${dataSource.displayName} (${system}) needs reconnecting: ${reason}\n\n`
      + `Until it is connected again, the formulas that use it wait. Open it in Connections (${link}) and connect again.\n\n${WHY_DATA_SOURCE}\n`,
    html: (name, link) => `<p>Hello ${escapeHtml(name)},</p><p>The data source <strong>${escapeHtml(dataSource.displayName)}</strong> (${escapeHtml(system)}) `
      + `needs reconnecting: ${escapeHtml(reason)}</p><p>Until it is connected again, the formulas that use it wait. `
      + `<a href="${escapeHtml(link)}">Open it in Connections</a> and connect again.</p><p>${escapeHtml(WHY_DATA_SOURCE)}</p>`,
    failure: (detail) => new DomainError('server-error', detail),
  };
}

const systemName = (system: string) => {
  try { return connectorFor(system as never).name; } catch { return system; }
};

export function ownerNotices(deps: { config: Pick<Config, 'smtp' | 'publicUrl'>; log: Logger; mailer?: ResetMailer | null }): OwnerNotices {
  const mailer = deps.mailer !== undefined ? deps.mailer : deps.config.smtp ? smtpSender(deps.config.smtp) : null;
  const { log } = deps;
  return {
    async needsReconnecting(tenant, dataSource, reason) {
      try {
        if (!mailer) {
          log.info({ dataSourceId: dataSource.id }, 'no SMTP server is configured: the data source needing reconnecting is told in the activity history only');
          return;
        }
        const people = await tenant.dataSources.peopleToTell(dataSource.id);
        if (people.length === 0) {
          log.info({ dataSourceId: dataSource.id }, 'the data source needing reconnecting has no owner to tell by e-mail');
          return;
        }
        const link = `${deps.config.publicUrl}${ROUTES.connections}`;
        for (const person of people) await mailer.send(person, link, reconnectMail(dataSource, reason));
        log.info({ dataSourceId: dataSource.id, told: people.length }, 'the owners of the data source and of its formulas were told by e-mail that it needs reconnecting');
      } catch (err) {
        log.warn({ err, dataSourceId: dataSource.id }, 'the data source\'s owner could not be told that it needs reconnecting');
      }
    },
    async formulaErrored(tenant, formula, reason) {
      try {
        if (!mailer) {
          log.info({ formulaId: formula.id }, 'no SMTP server is configured: the errored formula is told in the activity history and its card only');
          return;
        }
        const owner = await tenant.formulas.ownerToTell(formula.id);
        if (!owner) {
          log.info({ formulaId: formula.id }, 'the errored formula has no owner to tell by e-mail');
          return;
        }
        await mailer.send(owner, `${deps.config.publicUrl}${ROUTES.dataQueue}`, formulaErroredMail(formula, reason));
        log.info({ formulaId: formula.id }, 'the formula\'s owner was told by e-mail that it errored');
      } catch (err) {
        log.warn({ err, formulaId: formula.id }, 'the formula\'s owner could not be told that it errored');
      }
    },
  };
}
