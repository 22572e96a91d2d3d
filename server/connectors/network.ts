/**
 * Outbound connections to hosts a user typed (generic HTTP, Secure FTP, Blackbaud CRM...). Cloud
 * metadata and link-local addresses are always refused; loopback and private networks are
 * refused in production unless CONNECTOR_ALLOW_PRIVATE_HOSTS=true (an on-premises SFTP server,
 * say). Vendor base URLs set by the operator (CONNECTOR_BASE_URL_*) are trusted as they are.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { refused } from './connector.ts';

function allowPrivate(): boolean {
  const flag = process.env.CONNECTOR_ALLOW_PRIVATE_HOSTS;
  if (flag !== undefined) return flag === 'true';
  return process.env.NODE_ENV !== 'production';
}

const v4 = (ip: string) => ip.split('.').map(Number) as [number, number, number, number];

/** 'metadata' for link-local and unspecified addresses, 'private' for loopback and private ranges. */
export function classifyAddress(ip: string): 'public' | 'private' | 'metadata' {
  let addr = ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  if (mapped) addr = mapped[1]!;
  if (net.isIPv4(addr)) {
    const [a, b] = v4(addr);
    if (a === 169 && b === 254) return 'metadata';
    if (a === 0) return 'metadata';
    if (a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
    return 'public';
  }
  const lower = addr.toLowerCase();
  if (lower === '::' || lower.startsWith('fe8') || lower.startsWith('fe9') || lower.startsWith('fea') || lower.startsWith('feb')) return 'metadata';
  if (lower === '::1' || lower.startsWith('fc') || lower.startsWith('fd')) return 'private';
  return 'public';
}

/** Resolves a host and refuses it when it leads somewhere a connector must not go. */
export async function checkHost(host: string): Promise<void> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = (await dns.lookup(bare, { all: true })).map((a) => a.address);
    } catch {
      throw refused(`The host ${host} could not be found.`);
    }
  }
  for (const a of addresses) {
    const kind = classifyAddress(a);
    if (kind === 'metadata') throw refused(`The host ${host} is not allowed.`);
    if (kind === 'private' && !allowPrivate()) throw refused(`The host ${host} is on a private network, which this installation does not allow.`);
  }
}
