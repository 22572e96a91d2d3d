/**
 * Where connectors may connect (server/connectors/network.ts): every way of writing an address
 * is judged by the address it really is, and a connection goes to the address that was checked,
 * not to whatever a second DNS answer says (DNS rebinding). Real local servers on 127.0.0.1 and
 * 127.0.0.2 stand in for a permitted host and the host an attacker swaps in.
 */
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConnectorContext } from '../../server/connectors/connector.ts';
import { httpConnector } from '../../server/connectors/http/connector.ts';
import { classifyAddress, resolveHost } from '../../server/connectors/network.ts';

describe('classifyAddress', () => {
  it.each([
    // IPv4 written inside IPv6 is the IPv4 address it carries
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'], // how the URL parser rewrites [::ffff:169.254.169.254]
    ['[::ffff:a9fe:a9fe]', 'metadata'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['0:0:0:0:0:ffff:7f00:1', 'private'],
    ['::ffff:0:a00:1', 'private'], // IPv4-translated 10.0.0.1
    ['::7f00:1', 'private'], // IPv4-compatible 127.0.0.1
    ['::a9fe:a9fe', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'], // NAT64 of 169.254.169.254
    ['64:ff9b::10.1.2.3', 'private'],
    ['64:ff9b::808:808', 'public'], // NAT64 of 8.8.8.8
    ['64:ff9b:1::a00:1', 'private'], // local-use NAT64
    ['2002:a9fe:a9fe::1', 'metadata'], // 6to4 of 169.254.169.254
    ['2002:c0a8:0101::1', 'private'], // 6to4 of 192.168.1.1
    ['2002:0808:0808::1', 'public'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'private'], // Teredo whose client is 127.0.0.1
    // IPv6's own special ranges
    ['::1', 'private'],
    ['::', 'metadata'],
    ['fe80::1', 'metadata'],
    ['febf::1', 'metadata'],
    ['fec0::1', 'private'], // site-local
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'], // AWS instance metadata over IPv6
    ['ff02::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['100::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    // IPv4
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['0.0.0.0', 'metadata'],
    ['168.63.129.16', 'metadata'], // Azure WireServer
    ['100.100.100.200', 'metadata'], // Alibaba Cloud metadata
    ['127.0.0.1', 'private'],
    ['127.255.0.9', 'private'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['172.32.0.1', 'public'],
    ['8.8.8.8', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    // not an address at all
    ['fe80::1%eth0', 'reserved'],
    ['example.org', 'reserved'],
  ])('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });
});

describe('resolveHost', () => {
  it('refuses a host when any of its addresses is not allowed', async () => {
    const spy = vi.spyOn(dnsPromises, 'lookup').mockResolvedValue([{ address: '93.184.215.14', family: 4 }, { address: '::ffff:a9fe:a9fe', family: 6 }] as never);
    try {
      await expect(resolveHost('mixed.example', { allowPrivateHosts: true })).rejects.toThrow(/not allowed/);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses private and loopback addresses unless allowed; metadata always', async () => {
    await expect(resolveHost('[::ffff:127.0.0.1]')).rejects.toThrow(/private network/);
    await expect(resolveHost('localhost')).rejects.toThrow(/private network/);
    expect(await resolveHost('[::ffff:127.0.0.1]', { allowPrivateHosts: true })).toEqual({ address: '::ffff:127.0.0.1', family: 6 });
    await expect(resolveHost('[::ffff:169.254.169.254]', { allowPrivateHosts: true })).rejects.toThrow(/not allowed/);
    await expect(resolveHost('[fd00:ec2::254]', { allowPrivateHosts: true })).rejects.toThrow(/not allowed/);
  });
});

describe('a connection goes to the address that was checked', () => {
  let good: http.Server;
  let evil: http.Server;
  let port: number;
  const seen: { server: string; host: string | undefined; headers: http.IncomingHttpHeaders }[] = [];

  const listen = (name: string, address: string, at: number) => new Promise<http.Server>((resolve, reject) => {
    const srv = http.createServer((req, res) => {
      seen.push({ server: name, host: req.headers.host, headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ id: name }]));
    });
    srv.once('error', reject);
    srv.listen(at, address, () => resolve(srv));
  });

  beforeAll(async () => {
    good = await listen('checked', '127.0.0.1', 0);
    port = (good.address() as net.AddressInfo).port;
    evil = await listen('swapped in', '127.0.0.2', port);
  });
  afterAll(async () => {
    await new Promise((r) => good.close(r));
    await new Promise((r) => evil.close(r));
  });
  afterEach(() => { vi.restoreAllMocks(); seen.length = 0; });

  const ctx = (settings: Record<string, string>): ConnectorContext => ({
    tenant: undefined as never, settings, dataDir: '/nonexistent', network: { allowPrivateHosts: true },
  });

  it('ignores a second DNS answer (rebinding) and keeps the host name in the Host header', async () => {
    // the check's lookup says 127.0.0.1; any later lookup would say 127.0.0.2
    vi.spyOn(dnsPromises, 'lookup').mockResolvedValue([{ address: '127.0.0.1', family: 4 }] as never);
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, options: unknown, cb?: (...a: unknown[]) => void) => {
      const callback = (typeof options === 'function' ? options : cb) as (...a: unknown[]) => void;
      if (typeof options === 'object' && (options as { all?: boolean }).all) callback(null, [{ address: '127.0.0.2', family: 4 }]);
      else callback(null, '127.0.0.2', 4);
    }) as never);
    const outcome = await httpConnector.test(ctx({ url: `http://rebind.test:${port}/records`, authenticationType: 'none', paging: 'none' }));
    expect(outcome.detail).toContain('1 record');
    expect(seen.map((s) => s.server)).toEqual(['checked']);
    expect(seen[0]!.host).toBe(`rebind.test:${port}`);
  });

  it('never sends a connection or cloud metadata header a user chose, even one saved before the form refused it', async () => {
    for (const header of ['Metadata-Flavor', 'X-aws-ec2-metadata-token', 'X-Google-Metadata-Request', 'Proxy-Authorization']) {
      await httpConnector.test(ctx({ url: `http://127.0.0.1:${port}/records`, authenticationType: 'api-key', apiKeyHeader: header, apiKey: 'Google', paging: 'none' }));
      expect(seen.at(-1)!.headers[header.toLowerCase()], header).toBeUndefined();
    }
    // an ordinary API key header still goes
    await httpConnector.test(ctx({ url: `http://127.0.0.1:${port}/records`, authenticationType: 'api-key', apiKeyHeader: 'X-API-Key', apiKey: 'k-1', paging: 'none' }));
    expect(seen.at(-1)!.headers['x-api-key']).toBe('k-1');
  });
});
