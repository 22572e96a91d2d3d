/**
 * A fake SMTP server for the password-reset tests: just enough of the protocol (greeting, EHLO or
 * HELO, MAIL FROM, RCPT TO, DATA, RSET, NOOP, QUIT) for nodemailer to hand over a message, which it
 * records. No TLS and no AUTH are offered, so the client sends in the clear without logging in.
 */
import net from 'node:net';

export interface FakeMail {
  from: string;
  to: string[];
  /** the message as sent: headers and body, dot-stuffing undone */
  data: string;
}

export interface FakeSmtp {
  host: string;
  port: number;
  url: string;
  messages: FakeMail[];
  /** 'accept': takes every message; 'refuse': turns recipients away (550); 'mute': never greets, so the client times out */
  mode: 'accept' | 'refuse' | 'mute';
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const sockets = new Set<net.Socket>();
  const fake: FakeSmtp = {
    host: '127.0.0.1', port: 0, url: '', messages: [], mode: 'accept',
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (fake.mode === 'mute') return;
    const say = (line: string) => socket.write(`${line}\r\n`);
    let buffer = '';
    let inData = false;
    let mail: FakeMail = { from: '', to: [], data: '' };
    say('220 fake-smtp.test ESMTP fake');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail.data = buffer.slice(0, end).replace(/^\.\./gm, '.');
          buffer = buffer.slice(end + 5);
          inData = false;
          fake.messages.push(mail);
          mail = { from: '', to: [], data: '' };
          say('250 2.0.0 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') { say('250-fake-smtp.test'); say('250 8BITMIME'); }
        else if (verb === 'HELO') say('250 fake-smtp.test');
        else if (verb === 'MAIL') { mail.from = address(line); say('250 2.1.0 ok'); }
        else if (verb === 'RCPT') {
          if (fake.mode === 'refuse') say('550 5.1.1 mailbox unavailable');
          else { mail.to.push(address(line)); say('250 2.1.5 ok'); }
        } else if (verb === 'DATA') { inData = true; say('354 end with <CRLF>.<CRLF>'); }
        else if (verb === 'RSET') { mail = { from: '', to: [], data: '' }; say('250 ok'); }
        else if (verb === 'NOOP') say('250 ok');
        else if (verb === 'QUIT') { say('221 bye'); socket.end(); return; }
        else say('502 5.5.2 not implemented');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.port = (server.address() as net.AddressInfo).port;
  fake.url = `smtp://${fake.host}:${fake.port}`;
  return fake;
}

const address = (line: string) => /<([^>]*)>/.exec(line)?.[1] ?? '';

/** The message with quoted-printable soft breaks and escapes undone, enough to find a link in it. */
export function readableBody(data: string): string {
  return data.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
