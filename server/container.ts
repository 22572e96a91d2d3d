/**
 * The server's services, built once per process (`npm start` in server/main.ts, `npm run worker`
 * in server/worker.ts) and handed to the routers and to the job handlers: one key box, one run
 * service, one file store, one status hub. Services never import jobs: what they queue reaches
 * them here as functions over the job queue.
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { clamavScanner, type VirusScanner } from './connectors/flatFile/clamav.ts';
import type { SecretBox } from './connectors/secrets.ts';
import type { Db } from './db/database.ts';
import { dataFileStore, type FileStore } from './connectors/fileSources/fileStore.ts';
import { passwordResetDelivery } from './identity/resetDelivery.ts';
import type { Jobs } from './jobs/boss.ts';
import { formulaRun } from './jobs/formulaRun.ts';
import { recordExport } from './jobs/recordExport.ts';
import { recordsSend } from './jobs/recordsSend.ts';
import { sandboxImport } from './jobs/sandboxImport.ts';
import { accountsService } from './services/accounts.ts';
import { connectionsService } from './services/connections.ts';
import { exportsService } from './services/exports.ts';
import { formulaRunsService } from './services/formulaRuns.ts';
import { formulaStatusHub } from './services/formulaStatusHub.ts';
import { formulasService } from './services/formulas.ts';
import { oauthConnectService } from './services/oauthConnect.ts';
import { ownerNotices } from './services/ownerNotices.ts';
import { recordReviewService } from './services/records.ts';
import { sandboxImportService } from './services/sandboxImport.ts';
import { uploadsService } from './services/uploads.ts';
import { usersService } from './services/users.ts';

export interface ServiceDeps {
  db: Db;
  config: Config;
  /** opens connector credentials (server/connectors/secrets.ts) */
  secrets: SecretBox;
  jobs: Pick<Jobs, 'enqueue' | 'runStatus' | 'find' | 'retryNow' | 'cancel'>;
  log: Logger;
  /** uploaded, imported and exported files; default a folder under DATA_DIR */
  files?: FileStore;
  /** scans uploads; default clamd when configured */
  scanner?: VirusScanner | null;
}

/** The scanner the configuration names, said once at start: uploads are reported as not scanned without one. */
export function configuredScanner(config: Pick<Config, 'clamav'>, log: Logger): VirusScanner | null {
  const scanner = config.clamav ? clamavScanner(config.clamav) : null;
  if (scanner) {
    log.info({ scanner: scanner.description }, 'Uploaded files are scanned for viruses');
    void scanner.ping().then((ok) => {
      if (!ok) log.warn({ scanner: scanner.description }, 'The virus scanner does not answer: uploads are refused until it does');
    });
  } else {
    log.warn('No virus scanner is configured (set CLAMAV_SOCKET, or CLAMAV_HOST and CLAMAV_PORT): uploaded files are accepted and reported as not scanned');
  }
  return scanner;
}

export function createServices(deps: ServiceDeps) {
  const { db, config, secrets, jobs, log } = deps;
  const files = deps.files ?? dataFileStore(config.dataDir);
  const scanner = deps.scanner !== undefined ? deps.scanner : configuredScanner(config, log);

  // a data source's and its formulas' owners hear when it needs reconnecting, whichever work found it; a formula's owner when it errors
  const notices = ownerNotices({ config, log });
  const formulaRuns = formulaRunsService({
    secrets, config, notices, formulaNotices: notices,
    runs: {
      queue: (p, startAfter) => jobs.enqueue(formulaRun, p, startAfter ? { startAfter } : {}),
      status: (id) => jobs.runStatus(formulaRun, id),
      retryNow: (id) => jobs.retryNow(formulaRun, id),
      cancel: (id) => jobs.cancel(formulaRun, id),
    },
  });
  return {
    secrets,
    files,
    notices,
    accounts: accountsService({ db }),
    users: usersService({
      db, internalEmailDomain: config.internalEmailDomain, embeddedIssuer: config.auth.embedded ? config.auth.domain : null,
      resetDelivery: passwordResetDelivery(config),
    }),
    connections: connectionsService({ box: secrets, config, notices }),
    oauthConnect: oauthConnectService({ box: secrets, config }),
    formulaRuns,
    formulas: formulasService({ box: secrets, config, runs: formulaRuns }),
    records: recordReviewService({ secrets, config, notices, sends: { queue: (p) => jobs.enqueue(recordsSend, p) } }),
    exports: exportsService({ store: files, queue: (p) => jobs.enqueue(recordExport, p) }),
    uploads: uploadsService({ store: files, scanner }),
    sandboxImport: sandboxImportService({
      store: files, limits: config.sandboxImport,
      // the import job's rows are the imports' statuses
      jobs: { queue: (p) => jobs.enqueue(sandboxImport, p), find: (by) => jobs.find(sandboxImport, by) },
    }),
    statusHub: formulaStatusHub(db.$client, log),
  };
}

export type Services = ReturnType<typeof createServices>;
