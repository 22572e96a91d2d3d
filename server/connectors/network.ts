/**
 * Where connectors may connect. Every address a host name leads to is normalised first (IPv4
 * written inside IPv6: mapped, compatible, NAT64, 6to4, Teredo) and then classified; only global
 * unicast addresses are allowed. Loopback and private networks are refused unless the operator
 * sets CONNECTOR_ALLOW_PRIVATE_HOSTS=true (an on-premises SFTP server, say); link-local, cloud
 * metadata and reserved addresses are refused always.
 *
 * A host is resolved once, and the connection goes to the address that was checked (see
 * `pinnedLookup`), so a DNS answer that changes between the check and the connection (DNS
 * rebinding) cannot lead anywhere else. Vendor base URLs set by the operator
 * (CONNECTOR_BASE_URL_*) are trusted as they are.
 */
import dns from 'node:dns/promises';
import type { LookupAddress, LookupOneOptions } from 'node:dns';
import net from 'node:net';
import { refused } from './connector.ts';

/** What the operator allows beyond the public internet. */
export interface NetworkPolicy {
  /** loopback, private (RFC 1918, unique local, CGNAT) and site-local addresses */
  allowPrivateHosts: boolean;
}

/** The default: the public internet only. */
export const PUBLIC_ONLY: NetworkPolicy = { allowPrivateHosts: false };

export type AddressKind =
  /** global unicast */
  | 'public'
  /** loopback and private networks: allowed only with CONNECTOR_ALLOW_PRIVATE_HOSTS=true */
  | 'private'
  /** link-local, "this network" and cloud metadata services: never */
  | 'metadata'
  /** multicast, documentation, benchmarking, broadcast and other special ranges: never */
  | 'reserved';

type V4 = [number, number, number, number];

function parseV4(text: string): V4 | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : NaN));
  return out.every((n) => n >= 0 && n <= 255) ? out as V4 : null;
}

/** Eight 16-bit groups, or null when the text is not an IPv6 address (zone ids are refused). */
function parseV6(text: string): number[] | null {
  if (!net.isIPv6(text) || text.includes('%')) return null;
  let s = text.toLowerCase();
  // a dotted quad at the end becomes two groups
  const lastGroup = s.slice(s.lastIndexOf(':') + 1);
  if (lastGroup.includes('.')) {
    const q = parseV4(lastGroup);
    if (!q) return null;
    s = `${s.slice(0, -lastGroup.length)}${((q[0] << 8) | q[1]).toString(16)}:${((q[2] << 8) | q[3]).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const groups = (x: string) => (x === '' ? [] : x.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  if (tail === undefined) return h.length === 8 ? h : null;
  const t = groups(tail);
  return [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

const v4Of = (hi: number, lo: number): V4 => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
const inV4 = (a: V4, base: V4, bits: number) => {
  const n = ((a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]) >>> 0;
  const b = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((n & mask) >>> 0) === ((b & mask) >>> 0);
};

function classifyV4(a: V4): AddressKind {
  // cloud metadata services outside link-local: Azure's WireServer, Alibaba Cloud's metadata
  if (inV4(a, [168, 63, 129, 16], 32) || inV4(a, [100, 100, 100, 200], 32)) return 'metadata';
  if (inV4(a, [169, 254, 0, 0], 16) || inV4(a, [0, 0, 0, 0], 8)) return 'metadata';
  if (inV4(a, [127, 0, 0, 0], 8) || inV4(a, [10, 0, 0, 0], 8) || inV4(a, [172, 16, 0, 0], 12)
    || inV4(a, [192, 168, 0, 0], 16) || inV4(a, [100, 64, 0, 0], 10)) return 'private';
  const reserved: [V4, number][] = [
    [[192, 0, 0, 0], 24], [[192, 0, 2, 0], 24], [[192, 88, 99, 0], 24], [[198, 18, 0, 0], 15],
    [[198, 51, 100, 0], 24], [[203, 0, 113, 0], 24], [[224, 0, 0, 0], 4], [[240, 0, 0, 0], 4],
  ];
  if (reserved.some(([base, bits]) => inV4(a, base, bits))) return 'reserved';
  return 'public';
}

/** The stricter of two kinds. */
const worst = (...kinds: AddressKind[]): AddressKind => {
  for (const k of ['metadata', 'reserved', 'private'] as const) if (kinds.includes(k)) return k;
  return 'public';
};

function classifyV6(g: number[]): AddressKind {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // IPv4-mapped ::ffff:a.b.c.d, and IPv4-translated ::ffff:0:a.b.c.d (SIIT)
  if (zero(0, 5) && g[5] === 0xffff) return classifyV4(v4Of(g[6]!, g[7]!));
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return classifyV4(v4Of(g[6]!, g[7]!));
  if (zero(0, 8)) return 'metadata'; // ::, unspecified
  if (zero(0, 7) && g[7] === 1) return 'private'; // ::1, loopback
  // deprecated IPv4-compatible ::a.b.c.d
  if (zero(0, 6)) return classifyV4(v4Of(g[6]!, g[7]!));
  // NAT64: the well-known prefix carries any IPv4 address; the local-use prefix reaches private ones
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return classifyV4(v4Of(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'private';
  // AWS's instance metadata service over IPv6 sits in unique local space
  if (g[0] === 0xfd00 && g[1] === 0x0ec2) return 'metadata';
  const top = g[0]!;
  if ((top & 0xffc0) === 0xfe80) return 'metadata'; // fe80::/10 link-local
  if ((top & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 site-local (deprecated)
  if ((top & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  // 6to4 embeds an IPv4 address; Teredo its server and (inverted) client address
  if (top === 0x2002) return worst('public', classifyV4(v4Of(g[1]!, g[2]!)));
  if (top === 0x2001 && g[1] === 0) return worst(classifyV4(v4Of(g[2]!, g[3]!)), classifyV4(v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)));
  // documentation (2001:db8::/32, 3fff::/20), ORCHID and benchmarking inside 2001::/23
  if (top === 0x2001 && g[1] === 0x0db8) return 'reserved';
  if (top === 0x3fff && g[1]! < 0x1000) return 'reserved';
  if (top === 0x2001 && g[1]! < 0x0200) return 'reserved';
  // global unicast is 2000::/3; everything else (multicast ff00::/8, discard 100::/64, unassigned) is not
  if ((top & 0xe000) === 0x2000) return 'public';
  return 'reserved';
}

/** What an IP address is, with IPv4 inside IPv6 judged as the IPv4 address it carries. */
export function classifyAddress(ip: string): AddressKind {
  const bare = ip.replace(/^\[|\]$/g, '');
  const v4 = parseV4(bare);
  if (v4) return classifyV4(v4);
  const v6 = parseV6(bare);
  if (v6) return classifyV6(v6);
  return 'reserved';
}

export function isAllowed(kind: AddressKind, policy: NetworkPolicy): boolean {
  return kind === 'public' || (kind === 'private' && policy.allowPrivateHosts);
}

/** An address that was checked, for one connection. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host once and refuses it when any address it leads to is not allowed; answers the
 * address to connect to.
 */
export async function resolveHost(host: string, policy: NetworkPolicy = PUBLIC_ONLY): Promise<CheckedAddress> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  if (net.isIP(bare)) addresses = [{ address: bare, family: net.isIP(bare) }];
  else {
    try {
      addresses = await dns.lookup(bare, { all: true, order: 'verbatim' });
    } catch {
      throw refused(`The host ${host} could not be found.`);
    }
  }
  if (addresses.length === 0) throw refused(`The host ${host} could not be found.`);
  for (const a of addresses) {
    const kind = classifyAddress(a.address);
    if (kind === 'private' && !policy.allowPrivateHosts) {
      throw refused(`The host ${host} is on a private network, which this installation does not allow.`);
    }
    if (!isAllowed(kind, policy)) throw refused(`The host ${host} is not allowed.`);
  }
  return { address: addresses[0]!.address, family: addresses[0]!.family === 6 ? 6 : 4 };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net, tls and http that answers the checked address whatever the name: the
 * socket connects where the check looked, while TLS still verifies the certificate against the
 * host name (SNI and Host header keep the name).
 */
export function pinnedLookup(checked: CheckedAddress) {
  return (_hostname: string, options: LookupOneOptions | number | LookupCallback, callback?: LookupCallback) => {
    const cb = (typeof options === 'function' ? options : callback)!;
    const all = typeof options === 'object' && (options as { all?: boolean }).all;
    if (all) cb(null, [{ address: checked.address, family: checked.family }]);
    else cb(null, checked.address, checked.family);
  };
}
