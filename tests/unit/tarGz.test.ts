/** The kit's reader of gzipped tar archives (a vendor's bulk results), against archives made as Mailchimp's are. */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tarGzFiles } from '../../server/connectors/kit/tarGz.ts';
import { tarGz } from '../support/vendors/mailchimp.ts';

const read = (archive: Buffer, maxBytes = 1024 * 1024) => tarGzFiles(archive, { name: 'Mailchimp', maxBytes });

describe('tarGzFiles', () => {
  it('reads each file whole, whatever its length against the 512-byte blocks', () => {
    const files: [string, string][] = [['a.json', '[]'], ['b.json', 'x'.repeat(512)], ['c.json', 'é'.repeat(700)]];
    expect(read(tarGz(files)).map((f) => [f.path, f.content.toString('utf8')])).toEqual(files);
    expect(read(tarGz([]))).toEqual([]);
  });

  it('refuses what is not gzip, an archive cut inside a file, and one that unpacks past its bound', () => {
    expect(() => read(Buffer.from('not an archive'))).toThrow("Mailchimp's results could not be unpacked (not a gzip archive).");
    const tar = Buffer.from(gzipSync(Buffer.alloc(0)));
    expect(read(tar)).toEqual([]);
    const whole = tarGz([['a.json', 'y'.repeat(4000)]]);
    const cut = gzipSync(gunzipSync(whole).subarray(0, 512 + 1000));
    expect(() => read(cut)).toThrow("Mailchimp's results end inside a file (a cut archive).");
    // a few kilobytes that unpack to ten megabytes
    const bomb = tarGz([['big.json', '0'.repeat(10 * 1024 * 1024)]]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => read(bomb, 1024 * 1024)).toThrow("Mailchimp's results unpack to more than 1 MB; send fewer records at once.");
  });
});
