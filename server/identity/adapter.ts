/**
 * oidc-provider's storage over PostgreSQL (table oidc_payloads): sessions, interactions, grants,
 * authorization codes, refresh tokens and the rest, one row per model instance.
 */
import type pg from 'pg';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Row {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

const NOT_EXPIRED = '(expires_at is null or expires_at > now())';

function toPayload(row: Row | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = row.payload;
  if (row.consumed_at && !payload.consumed) payload.consumed = Math.floor(row.consumed_at.getTime() / 1000);
  return payload;
}

export class PgAdapter implements Adapter {
  constructor(private readonly kind: string, private readonly pool: pg.Pool) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    await this.pool.query(
      `insert into oidc_payloads (kind, id, payload, grant_id, user_code, uid, expires_at)
       values ($1, $2, $3, $4, $5, $6,
               case when $7::double precision is null then null else now() + make_interval(secs => $7::double precision) end)
       on conflict (kind, id) do update set
         payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
         uid = excluded.uid, expires_at = excluded.expires_at`,
      [
        this.kind, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null,
        payload.uid ?? null, typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn : null,
      ],
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.pool.query<Row>(
      `select payload, consumed_at from oidc_payloads where kind = $1 and id = $2 and ${NOT_EXPIRED}`,
      [this.kind, id],
    );
    return toPayload(rows[0]);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.pool.query<Row>(
      `select payload, consumed_at from oidc_payloads where kind = $1 and uid = $2 and ${NOT_EXPIRED} limit 1`,
      [this.kind, uid],
    );
    return toPayload(rows[0]);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.pool.query<Row>(
      `select payload, consumed_at from oidc_payloads where kind = $1 and user_code = $2 and ${NOT_EXPIRED} limit 1`,
      [this.kind, userCode],
    );
    return toPayload(rows[0]);
  }

  async consume(id: string): Promise<void> {
    await this.pool.query(
      `update oidc_payloads
          set consumed_at = now(),
              payload = payload || jsonb_build_object('consumed', floor(extract(epoch from now()))::bigint)
        where kind = $1 and id = $2`,
      [this.kind, id],
    );
  }

  async destroy(id: string): Promise<void> {
    await this.pool.query('delete from oidc_payloads where kind = $1 and id = $2', [this.kind, id]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.pool.query('delete from oidc_payloads where kind = $1 and grant_id = $2', [this.kind, grantId]);
  }
}

export function pgAdapterFactory(pool: pg.Pool): AdapterFactory {
  return (kind: string) => new PgAdapter(kind, pool);
}

/** Removes rows that expired more than a day ago (consumed refresh tokens stay until they expire, for reuse detection), and stale sign-in counters. */
export async function purgeExpired(pool: pg.Pool): Promise<void> {
  await pool.query(`delete from oidc_payloads where expires_at < now() - interval '1 day'`);
  await pool.query(`delete from login_failures where at < now() - interval '1 day'`);
  // counters whose longest window (a day) has passed and that block nothing would start over anyway
  await pool.query(`delete from sign_in_throttle
                     where window_start < now() - interval '2 days' and (blocked_until is null or blocked_until < now())`);
}
