/**
 * The Mantine app shell: navigation by the user's policies (daily work, administration, and the
 * developer tools apart at the bottom), tenant switcher, user menu. On a narrow screen the
 * navigation folds behind the burger and the tenant switcher moves into the user menu, so the
 * header keeps one row and never covers the page's title.
 */
import type { ReactNode } from 'react';
import { NavLink as RouterNavLink } from 'react-router';
import { useSelector } from '@xstate/react';
import { AppShell, Avatar, Box, Burger, Group, Menu, NavLink, ScrollArea, Select, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import {
  IconCheck, IconDatabase, IconFlag, IconSitemap, IconHistory, IconInbox, IconLogout, IconPlugConnected, IconUsers, IconFunction, IconUpload, IconEye,
} from '@tabler/icons-react';
import { can } from '../../domain/roles.ts';
import { navigation, type NavEntry, type NavIcon } from '../../domain/screens.ts';
import { useAppActors } from './actors.tsx';

const ICONS: Record<NavIcon, typeof IconInbox> = {
  inbox: IconInbox, formula: IconFunction, plug: IconPlugConnected, history: IconHistory, users: IconUsers, flag: IconFlag, sitemap: IconSitemap,
  upload: IconUpload, eye: IconEye,
};
const NAV = navigation();
const GROUP_LABELS: Record<NavEntry['group'], string> = { daily: 'Daily work', admin: 'Administration', developer: 'Developer tools' };

/** Mantine's `sm` breakpoint, where the navigation folds away */
const WIDE = '(min-width: 48em)';

export function AppLayout({ children }: { children: ReactNode }) {
  const { auth } = useAppActors();
  const user = useSelector(auth, (s) => s.context.user);
  const switching = useSelector(auth, (s) => s.matches({ authenticated: 'switchingTenant' }));
  const [opened, { toggle, close }] = useDisclosure();
  // read at once, so a wide screen never renders the narrow header first
  const wide = useMediaQuery(WIDE, undefined, { getInitialValueInEffect: false });
  const policies = user?.policies ?? {};
  const tenants = user?.tenants ?? [];
  const activeTenant = tenants.find((t) => t.tenantId === user?.activeTenantId);
  const switchTo = (tenantId: string | null) => {
    if (tenantId && tenantId !== user?.activeTenantId) auth.send({ type: 'tenant.switch', tenantId });
  };
  const shown = NAV.filter((item) => can(policies, item.resource, item.action));
  const group = (g: NavEntry['group']) => {
    const items = shown.filter((item) => item.entry.group === g);
    if (items.length === 0) return null;
    const labelId = `nav-group-${g}`;
    return (
      <Box role="group" aria-labelledby={labelId} mb="sm">
        <Text id={labelId} size="xs" fw={600} c="dimmed" tt="uppercase" px="sm" py={4}>{GROUP_LABELS[g]}</Text>
        {items.map((item) => {
          const Icon = ICONS[item.entry.icon];
          return (
            <NavLink
              key={item.id} component={RouterNavLink} to={item.path} end label={item.entry.label}
              leftSection={<Icon size={18} aria-hidden />} onClick={close}
            />
          );
        })}
      </Box>
    );
  };
  const developer = group('developer');

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger
              opened={opened} onClick={toggle} hiddenFrom="sm" size="sm"
              aria-label={opened ? 'Close navigation' : 'Open navigation'} aria-expanded={opened} aria-controls="main-navigation"
            />
            <IconDatabase aria-hidden />
            <Text fw={700} size="xl" component="span">Tributary</Text>
            {user && <Text c="dimmed" size="sm" truncate visibleFrom="md">{user.organizationName}</Text>}
            {/* where the tenant switcher is folded into the user menu, the tenant stays in sight */}
            {activeTenant && <Text c="dimmed" size="xs" truncate hiddenFrom="sm" miw={0}>{activeTenant.name}</Text>}
          </Group>
          <Group gap="sm" wrap="nowrap">
            {tenants.length > 0 && (
              <Select
                aria-label="Tenant"
                data={tenants.map((t) => ({ value: t.tenantId, label: t.name }))}
                value={user?.activeTenantId ?? null}
                allowDeselect={false}
                disabled={switching || tenants.length < 2}
                onChange={switchTo}
                w={220}
                visibleFrom="sm"
              />
            )}
            <Menu position="bottom-end" withArrow>
              <Menu.Target>
                {/* its accessible name holds the name it shows (WCAG 2.5.3), so speech input can say it */}
                <UnstyledButton aria-label={user ? `${user.fullName} (User menu)` : 'User menu'}>
                  <Group gap="xs" wrap="nowrap">
                    <Avatar radius="xl" size="sm" color="blue" alt="" />
                    <Text size="sm" visibleFrom="sm">{user?.fullName}</Text>
                  </Group>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>{user?.fullName}<br />{user?.email}</Menu.Label>
                {!wide && tenants.length > 0 && (
                  <>
                    <Menu.Divider />
                    <Menu.Label>Tenant</Menu.Label>
                    {tenants.map((t) => {
                      const active = t.tenantId === activeTenant?.tenantId;
                      return (
                        <Menu.Item
                          key={t.tenantId} disabled={switching || active} aria-current={active ? 'true' : undefined}
                          leftSection={active ? <IconCheck size={16} aria-hidden /> : <Box w={16} />}
                          onClick={() => switchTo(t.tenantId)}
                        >
                          {t.name}
                        </Menu.Item>
                      );
                    })}
                    <Menu.Divider />
                  </>
                )}
                <Menu.Item leftSection={<IconLogout size={16} aria-hidden />} onClick={() => auth.send({ type: 'logout' })}>Log out</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      {/* folded away on a phone, its links must not take focus either */}
      <AppShell.Navbar id="main-navigation" p="xs" aria-label="Main navigation" inert={!wide && !opened}>
        <AppShell.Section grow component={ScrollArea}>
          {group('daily')}
          {group('admin')}
        </AppShell.Section>
        {developer && (
          // tools for building Tributary, kept apart from the work done in it
          <AppShell.Section pt="xs" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>{developer}</AppShell.Section>
        )}
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
