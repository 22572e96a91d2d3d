/**
 * The app shell: navigation by the user's policies (daily work, administration, and the
 * developer tools apart at the bottom), tenant switcher, user menu. On a narrow screen the
 * navigation folds behind the burger and the tenant switcher moves into the user menu, so the
 * header keeps one row and never covers the page's title. Its frame and menu are drawn in Mantine's
 * look without Mantine's AppShell, Menu and Select, whose code every signed-in screen would load
 * (the Data Queue's budget, README, Delivery).
 */
import type { ReactNode } from 'react';
import { NavLink as RouterNavLink } from 'react-router';
import { useSelector } from '@xstate/react';
import { Avatar, Box, Burger, Group, NativeSelect, NavLink, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import {
  IconCheck, IconDatabase, IconFlag, IconSitemap, IconHistory, IconInbox, IconLogout, IconPlugConnected, IconUsers, IconFunction, IconUpload, IconEye,
} from '@tabler/icons-react';
import { can } from '../../domain/roles.ts';
import { navigation, type NavEntry, type NavIcon } from '../../domain/screens.ts';
import { MenuButton, MenuDivider, MenuItem, MenuLabel } from '../../ui/MenuButton.tsx';
import { useAppActors } from './actors.tsx';
import { OwnerNoticesItem } from './OwnerNoticesItem.tsx';
import classes from './AppLayout.module.css';

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
  const orgId = useSelector(auth, (s) => s.context.orgId);
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
    <>
      <header className={classes.header}>
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
              // the browser's own list: light, and at home on every device and assistive technology
              <NativeSelect
                aria-label="Tenant"
                data={tenants.map((t) => ({ value: t.tenantId, label: t.name }))}
                value={user?.activeTenantId ?? ''}
                disabled={switching || tenants.length < 2}
                onChange={(e) => switchTo(e.currentTarget.value)}
                w={220}
                visibleFrom="sm"
              />
            )}
            <MenuButton
              // its accessible name holds the name it shows (WCAG 2.5.3), so speech input can say it
              label={user ? `${user.fullName} (User menu)` : 'User menu'}
              target={(
                <Group gap="xs" wrap="nowrap">
                  <Avatar radius="xl" size="sm" color="blue" alt="" />
                  <Text size="sm" visibleFrom="sm">{user?.fullName}</Text>
                </Group>
              )}
            >
              <MenuLabel>{user?.fullName}<br />{user?.email}</MenuLabel>
              {!wide && tenants.length > 0 && (
                <>
                  <MenuDivider />
                  <MenuLabel>Tenant</MenuLabel>
                  {tenants.map((t) => {
                    const active = t.tenantId === activeTenant?.tenantId;
                    return (
                      <MenuItem
                        key={t.tenantId} disabled={switching || active} aria-current={active ? 'true' : undefined}
                        leftSection={active ? <IconCheck size={16} aria-hidden /> : <Box w={16} />}
                        onClick={() => switchTo(t.tenantId)}
                      >
                        {t.name}
                      </MenuItem>
                    );
                  })}
                  <MenuDivider />
                </>
              )}
              {orgId && <OwnerNoticesItem orgId={orgId} />}
              <MenuDivider />
              <MenuItem leftSection={<IconLogout size={16} aria-hidden />} onClick={() => auth.send({ type: 'logout' })}>Log out</MenuItem>
            </MenuButton>
          </Group>
        </Group>
      </header>
      {/* folded away on a phone, its links must not take focus either */}
      <nav id="main-navigation" className={classes.navbar} data-opened={opened || undefined} aria-label="Main navigation" inert={!wide && !opened}>
        <div className={classes.links}>
          {group('daily')}
          {group('admin')}
        </div>
        {/* tools for building Tributary, kept apart from the work done in it */}
        {developer && <div className={classes.developer}>{developer}</div>}
      </nav>
      <main className={classes.main}>{children}</main>
    </>
  );
}
