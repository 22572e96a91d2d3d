/** The Mantine app shell: navigation by the user's policies, tenant switcher, user menu. */
import type { ReactNode } from 'react';
import { NavLink as RouterNavLink } from 'react-router';
import { useSelector } from '@xstate/react';
import { AppShell, Avatar, Burger, Divider, Group, Menu, NavLink, Select, Text, Title, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconDatabase, IconFlag, IconSitemap, IconHistory, IconInbox, IconLogout, IconPlugConnected, IconUsers, IconFunction,
} from '@tabler/icons-react';
import { can } from '../../domain/roles.ts';
import { navigation, type NavIcon } from '../../domain/screens.ts';
import { useAppActors } from './actors.tsx';

const ICONS: Record<NavIcon, typeof IconInbox> = {
  inbox: IconInbox, formula: IconFunction, plug: IconPlugConnected, history: IconHistory, users: IconUsers, flag: IconFlag, sitemap: IconSitemap,
};
const NAV = navigation();

export function AppLayout({ children }: { children: ReactNode }) {
  const { auth } = useAppActors();
  const user = useSelector(auth, (s) => s.context.user);
  const switching = useSelector(auth, (s) => s.matches({ authenticated: 'switchingTenant' }));
  const [opened, { toggle }] = useDisclosure();
  const policies = user?.policies ?? {};
  const tenants = user?.tenants ?? [];

  return (
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
        {NAV.filter((item) => can(policies, item.resource, item.action)).map((item, i, shown) => {
          const Icon = ICONS[item.entry.icon];
          // developer tools sit apart from daily work
          const apart = item.entry.group === 'developer' && i > 0 && shown[i - 1]!.entry.group !== 'developer';
          return [
            apart ? <Divider key={`${item.id}-divider`} my="xs" label="Developer" labelPosition="left" /> : null,
            <NavLink key={item.id} component={RouterNavLink} to={item.path} label={item.entry.label} leftSection={<Icon size={18} />} />,
          ];
        })}
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
