/**
 * Roles and the policies they grant (SPEC.md section 6). One table serves the login-details
 * call, the browser's navigation and every server endpoint's policy check.
 */

export const ROLES = [
  'Administrator',
  'Power User',
  'Connection Manager',
  'Formula Producer',
  'Data Processor',
  'User Manager',
  'View Only',
] as const;
export type Role = (typeof ROLES)[number];

/** `workflows`: the statechart viewer, for Administrators in production builds */
export const RESOURCES = ['formula', 'datasource', 'records', 'history', 'usermanagement', 'flags', 'workflows'] as const;
export type Resource = (typeof RESOURCES)[number];

export const ACTIONS = ['view', 'create', 'edit', 'delete', 'run', 'send'] as const;
export type Action = (typeof ACTIONS)[number];

/** Policies map a resource name to a list of actions (SPEC.md section 3). */
export type Policies = Partial<Record<Resource, Action[]>>;

const ALL: Action[] = [...ACTIONS];
const MANAGE: Action[] = ['view', 'create', 'edit', 'delete'];

export const ROLE_POLICIES: Record<Role, Policies> = {
  Administrator: Object.fromEntries(RESOURCES.map((r) => [r, ALL])) as Policies,
  'Power User': {
    datasource: MANAGE,
    formula: ['view', 'create', 'edit', 'delete', 'run'],
    records: ['view', 'edit', 'send'],
    history: ['view'],
  },
  'Connection Manager': { datasource: MANAGE },
  'Formula Producer': {
    formula: ['view', 'create', 'edit', 'delete', 'run'],
    datasource: ['view'],
    records: ['view'],
    history: ['view'],
  },
  'Data Processor': { formula: ['view'], records: ['view', 'edit', 'send'], history: ['view'] },
  // SPEC.md section 6: add, edit, deactivate, reactivate; deleting a user is an Administrator's
  'User Manager': { usermanagement: ['view', 'create', 'edit'] },
  'View Only': { formula: ['view'], datasource: ['view'], records: ['view'], history: ['view'] },
};

/** View Only is not stackable: it overrides every other role. Other roles stack. */
export function effectiveRoles(roles: readonly string[]): Role[] {
  const known = ROLES.filter((r) => roles.includes(r));
  return known.includes('View Only') ? ['View Only'] : known;
}

export function policiesFor(roles: readonly string[]): Policies {
  const merged: Policies = {};
  for (const role of effectiveRoles(roles)) {
    for (const [resource, actions] of Object.entries(ROLE_POLICIES[role]) as [Resource, Action[]][]) {
      const have = new Set(merged[resource] ?? []);
      for (const a of actions) have.add(a);
      merged[resource] = ACTIONS.filter((a) => have.has(a));
    }
  }
  return merged;
}

export function can(policies: Policies, resource: Resource, action: Action): boolean {
  return policies[resource]?.includes(action) ?? false;
}

/** Temporary access ends at its expiry date: past it the membership grants nothing. */
export function isAccessExpired(expiresOn: Date | string | null | undefined, now: Date = new Date()): boolean {
  if (expiresOn == null) return false;
  return new Date(expiresOn).getTime() <= now.getTime();
}

/** SPEC.md section 5: View Only cannot be combined with any other role. */
export const VIEW_ONLY_NOT_STACKABLE = 'View Only cannot be combined with any other role';

/**
 * The roles a caller may give in a tenant where they hold `callerRoles`: an Administrator any;
 * anyone else only the roles they hold there themselves, so no role grants more than its holder
 * has (a User Manager who is not also a Data Processor cannot make one).
 */
export function grantableRoles(callerRoles: readonly string[]): Role[] {
  const held = effectiveRoles(callerRoles);
  return held.includes('Administrator') ? [...ROLES] : held;
}
