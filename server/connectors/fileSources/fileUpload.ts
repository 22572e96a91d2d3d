/**
 * The file upload connector: files uploaded in the browser through the flat file service, which
 * keeps their headers and first 20 rows (SPEC.md section 5). Objects are the tenant's uploads.
 */
import { ConnectorInputError, NotSupported, type Connector, type ConnectorContext } from '../connector.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function upload(ctx: ConnectorContext, id: string) {
  if (!UUID.test(id)) throw new ConnectorInputError(`${id} is not an upload.`);
  const row = await ctx.tenant.uploads.get(id);
  if (!row) throw new ConnectorInputError('There is no such upload.');
  return row;
}

export const fileUploadConnector: Connector = {
  system: 'file-upload',
  async test(ctx) {
    const rows = await ctx.tenant.uploads.list(10_000);
    return { detail: `File upload is ready; ${rows.length} file${rows.length === 1 ? ' has' : 's have'} been uploaded.` };
  },
  async listObjects(ctx) {
    const rows = await ctx.tenant.uploads.list(200);
    return rows.map((r) => ({ name: r.id, label: `${r.fileName} (${r.createdOn.toISOString().slice(0, 10)})` }));
  },
  async describeFields(ctx, object) {
    const row = await upload(ctx, object);
    return row.headers.map((h) => ({ name: h, label: h, type: 'string' as const }));
  },
  async *pull(ctx, object, since) {
    const row = await upload(ctx, object);
    const done = `upload:${row.id}`;
    if (since === done) return;
    yield {
      watermark: done,
      records: row.sampleRows.map((values, i) => ({
        id: `${row.fileName}#${i + 2}`,
        fields: Object.fromEntries(row.headers.map((h, c) => [h, values[c] ?? ''])),
      })),
    };
  },
  async search() { throw new NotSupported('File upload', 'search'); },
  async upsert() { throw new NotSupported('File upload', 'writing records'); },
};
