/**
 * The flat file connector: CSV and Excel files delivered to a tenant's drop folder on the
 * Tributary server (`<DATA_DIR>/flat-files/<tenant>/<folder>/`, by a scheduled transfer or an
 * operator), read like a Secure FTP folder.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { NotSupported, refused, type Connector, type ConnectorContext } from '../connector.ts';
import { folderFields, folderObjects, pullFolder, tabularFiles, type Folder } from './folderSource.ts';

const FOLDER = /^[A-Za-z0-9 _-]{1,64}$/;

export function dropFolderPath(dataDir: string, tenantId: string, folder: string): string {
  if (!FOLDER.test(folder)) throw refused('The folder name may have letters, digits, spaces, dashes and underscores only.');
  return path.join(dataDir, 'flat-files', tenantId, folder);
}

export function localFolder(dir: string): Folder {
  return {
    async list() {
      let names: fs.Dirent[];
      try {
        names = await fsp.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      const files = await Promise.all(names.filter((d) => d.isFile()).map(async (d) => {
        const st = await fsp.stat(path.join(dir, d.name));
        return { name: d.name, size: st.size, modifiedMs: Math.floor(st.mtimeMs) };
      }));
      return files;
    },
    async read(name, maxBytes) {
      if (name.includes('/') || name.includes('\\') || name === '..' || name === '.') throw refused(`${name} is not a file name.`);
      const file = path.join(dir, name);
      const st = await fsp.stat(file).catch(() => null);
      if (!st?.isFile()) throw refused(`There is no file named ${name}.`);
      if (st.size > maxBytes) throw refused(`${name} is larger than ${Math.round(maxBytes / 1024 / 1024)}MB.`);
      return fsp.readFile(file);
    },
  };
}

const folderOf = (ctx: ConnectorContext) => localFolder(dropFolderPath(ctx.dataDir, ctx.tenant.tenantId, ctx.settings.folder || 'incoming'));

export const flatFileConnector: Connector = {
  system: 'flat-file',
  async test(ctx) {
    const dir = dropFolderPath(ctx.dataDir, ctx.tenant.tenantId, ctx.settings.folder || 'incoming');
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const files = await tabularFiles(localFolder(dir));
    return { detail: `The drop folder "${ctx.settings.folder || 'incoming'}" is ready and holds ${files.length} .csv, .xlsx or .xls file${files.length === 1 ? '' : 's'}.` };
  },
  listObjects: (ctx) => folderObjects(folderOf(ctx)),
  describeFields: (ctx, object) => folderFields(folderOf(ctx), object),
  pull: (ctx, object, since, options) => pullFolder(folderOf(ctx), object, since, options),
  async search() { throw new NotSupported('Flat file', 'search'); },
  async upsert() { throw new NotSupported('Flat file', 'writing records'); },
};
