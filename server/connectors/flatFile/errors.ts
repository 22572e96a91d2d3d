/** The parser's own typed error: every refusal names the upload outcome it stands for (SPEC.md section 4). */
import type { UploadOutcome } from '../../../src/domain/upload.ts';

export type ParseOutcome = Extract<UploadOutcome, 'unsupported-type' | 'size-too-big' | 'empty' | 'wrong-structure'>;

export class FlatFileError extends Error {
  override readonly name = 'FlatFileError';
  constructor(readonly outcome: ParseOutcome, detail: string) {
    super(detail);
  }
}
