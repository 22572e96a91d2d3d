/** The Mantine app shell: navigation by the user's policies, tenant switcher, user menu. */
import type { ReactNode } from 'react';
import { NavLink as RouterNavLink } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { AppShell, Avatar, Burger, Group, Menu, NavLink, Select, Text, Title, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconDatabase, IconFlag, IconSitemap, IconHistory, IconInbox, IconLogout, IconPlugConnected, IconUsers, IconFunction } from '@tabler/icons-react';
import { can, type Resource } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/routes.ts';
import { flagsMachine } from '../../machines/flags.ts';
import { FlagsActorContext, useAppActors } from './actors.tsx';

const NAV: { label: string; to: string; resource: Resource; icon: typeof IconInbox }[] = [
  { label: 'Data Queue', to: ROUTES.dataQueue, resource: 'formula', icon: IconInbox },
  { label: 'Formulas', to: ROUTES.integrationsFormulas, resource: 'formula', icon: IconFunction },
  { label: 'Connections', to: ROUTES.connections, resource: 'datasource', icon: IconPlugConnected },
  { label: 'Activity History', to: ROUTES.activityHistory, resource: 'history', icon: IconHistory },
  { label: 'User Management', to: ROUTES.userManagement, resource: 'usermanagement', icon: IconUsers },
  { label: 'Feature Flags', to: ROUTES.featureFlags, resource: 'flags', icon: IconFlag },
  { label: 'Workflows', to: ROUTES.workflows, resource: 'workflows', icon: IconSitemap },
];

export function AppLayout({ children }: { children: ReactNode }) {
  const { auth } = useAppActors();
  const user = useSelector(auth, (s) => s.context.user);
  const switching = useSelector(auth, (s) => s.matches({ authenticated: 'switchingTenant' }));
  const [opened, { toggle }] = useDisclosure();
  // one flag client per signed-in tenant: a tenant switch remounts the shell and fetches anew
  const flags = useActorRef(flagsMachine, { input: {} });
  const policies = user?.policies ?? {};
  const tenants = user?.tenants ?? [];

  return (
    <FlagsActorContext.Provider value={flags}>
    <AppShell header={{ height: 60 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <IconDatabase aria-hidden />
            <Title order={3}>Tributary</Title>
            {user && <Text c="dimmed" size="sm">{user.organizationName}</Text>}
          </Group>
          <Group>
            {tenants.length > 0 && (
              <Select
                aria-label="Tenant"
                data={tenants.map((t) => ({ value: t.tenantId, label: t.name }))}
                value={user?.activeTenantId ?? null}
                allowDeselect={false}
                disabled={switching || tenants.length < 2}
                onChange={(tenantId) => { if (tenantId && tenantId !== user?.activeTenantId) auth.send({ type: 'tenant.switch', tenantId }); }}
                w={220}
              />
            )}
            <Menu position="bottom-end" withArrow>
              <Menu.Target>
                <UnstyledButton aria-label="User menu">
                  <Group gap="xs">
                    <Avatar radius="xl" size="sm" name={user?.fullName} color="initials" />
                    <Text size="sm" visibleFrom="sm">{user?.fullName}</Text>
                  </Group>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>{user?.email}</Menu.Label>
                <Menu.Item leftSection={<IconLogout size={16} />} onClick={() => auth.send({ type: 'logout' })}>Log out</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation">
        {NAV.filter((item) => can(policies, item.resource, 'view')).map((item) => (
          <NavLink key={item.to} component={RouterNavLink} to={item.to} label={item.label} leftSection={<item.icon size={18} />} />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
    </FlagsActorContext.Provider>
  );
}
