/** JSON logs (pino); request handlers log through a child carrying the request id and correlationId. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tributary' }, redact: ['req.headers.authorization', '*.password', '*.secret'] });
}
export type { Logger };
