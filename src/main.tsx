/** Providers and the app's composition: services are built here and handed to the machines. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createActor } from 'xstate';
import { MantineProvider } from '@mantine/core';
import '@mantine/core/styles.css';
import { authMachine } from './machines/auth.ts';
import { loadAppConfig } from './services/appConfig.ts';
import { createAuthService } from './services/auth.ts';
import { accountManagement } from './services/accountManagement.ts';
import { setIdentitySource } from './services/gateway.ts';
import { SessionPage } from './views/session/SessionPage.tsx';

async function boot() {
  const config = await loadAppConfig();
  const auth = createAuthService(config);
  let orgId = '';
  setIdentitySource(async () => {
    const user = await auth.user();
    return { token: await auth.accessToken(), orgId, clientId: auth.clientId, userId: user?.sub ?? '', userEmail: user?.email ?? '' };
  });
  const accounts = accountManagement;
  const host = window.location.hostname.split('.');
  const subdomain = host.length > 1 && host[0] !== 'www' && !/^\d+$/.test(host[0]!) ? host[0]! : config.defaultSubdomain;
  const actor = createActor(authMachine, { input: { deps: { auth, accounts, subdomain, setOrgId: (id) => { orgId = id; } } } }).start();

  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <MantineProvider>
        <SessionPage actor={actor} />
      </MantineProvider>
    </StrictMode>,
  );
}

void boot();
