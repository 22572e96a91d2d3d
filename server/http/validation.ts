/** Request bodies are checked with the same valibot schemas the browser uses; failures never echo input. */
import { vValidator } from '@hono/valibot-validator';
import type { GenericSchema } from 'valibot';
import { problemResponse } from './problem.ts';

/** A JSON body checked against its schema: 415 for another media type, 400 naming what is wrong. */
export const jsonBody = <S extends GenericSchema>(schema: S) =>
  vValidator('json', schema, (result, c) => {
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(c.req.header('content-type') ?? '')) return problemResponse(415, 'unsupported-media-type');
    if (!result.success) {
      const messages = result.issues.map((i) => i.message.replace(/Received .*$/, '').trim());
      return problemResponse(400, 'bad-request', [...new Set(messages)].join(' '), 'validation-failed');
    }
  });
