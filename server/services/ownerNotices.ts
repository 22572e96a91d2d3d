/**
 * Notices to the person a data source belongs to (the user who made it), by e-mail through the
 * configured SMTP server: today, that it needs reconnecting (the vendor refused its grant, SPEC.md
 * section 1's connections; the connector kit marks it, server/connectors/kit/grant.ts). Without an
 * SMTP server, or without an owner who can be reached, the notice is the activity history's event
 * and the screens' badge alone, and the log says so. A notice never fails the work that found the
 * problem: a mail that cannot be sent is logged.
 */
import type { Logger } from 'pino';
import { ROUTES } from '../../src/domain/screens.ts';
import type { Config } from '../config.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import type { ReconnectNotices } from '../connectors/kit/grant.ts';
import { escapeHtml, smtpSender, type MailMessage, type ResetMailer } from '../identity/resetDelivery.ts';

/** tells a data source's owner it needs reconnecting, and why; never throws */
export type OwnerNotices = ReconnectNotices;

/** The mail: what happened, why, and where to connect again. */
export function reconnectMail(dataSource: { displayName: string; system: string }, reason: string): MailMessage {
  const system = systemName(dataSource.system);
  return {
    what: 'notice',
    subject: `${dataSource.displayName} needs reconnecting`,
    text: (name, link) => `Hello ${name},\n\nThe data source ${dataSource.displayName} (${system}) needs reconnecting: ${reason}\n\n`
      + `Until it is connected again, the formulas that use it wait. Open it in Connections (${link}) and connect again.\n`,
    html: (name, link) => `<p>Hello ${escapeHtml(name)},</p><p>The data source <strong>${escapeHtml(dataSource.displayName)}</strong> (${escapeHtml(system)}) `
      + `needs reconnecting: ${escapeHtml(reason)}</p><p>Until it is connected again, the formulas that use it wait. `
      + `<a href="${escapeHtml(link)}">Open it in Connections</a> and connect again.</p>`,
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
        const owner = await tenant.dataSources.owner(dataSource.id);
        if (!owner) {
          log.info({ dataSourceId: dataSource.id }, 'the data source needing reconnecting has no owner to tell by e-mail');
          return;
        }
        const link = `${deps.config.publicUrl}${ROUTES.connections}`;
        await mailer.send(owner, link, reconnectMail(dataSource, reason));
        log.info({ dataSourceId: dataSource.id }, 'the data source\'s owner was told by e-mail that it needs reconnecting');
      } catch (err) {
        log.warn({ err, dataSourceId: dataSource.id }, 'the data source\'s owner could not be told that it needs reconnecting');
      }
    },
  };
}
