/** Providers and composition: services are built here and handed to the machines through the views. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// Mantine's styles: the base ones are linked first in the page, each component's come with its code (vite.config.ts)
import { MantineProvider } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { globalErrorMessage, NOTIFICATION_TIMEOUT_MS } from './domain/errors.ts';
import { subdomainFromHost } from './domain/identity.ts';
import { accountManagement } from './services/accountManagement.ts';
import { loadAppConfig } from './services/appConfig.ts';
import { auth0Adapter, auth0ProviderOptions, sessionMayExist } from './services/auth.ts';
import { onApiError } from './services/gateway.ts';
import { appInspector } from './services/inspection.ts';
import { NotificationsWhenShown } from './ui/NotificationsWhenShown.tsx';
import { cssVariablesResolver, theme } from './ui/theme.ts';
import { App, preloadSignedIn } from './views/shell/App.tsx';
import { AuthSdkHost, loadAuthSdk } from './views/shell/authSdk.tsx';
import { lazyScreen } from './views/shell/screens.tsx';

const ConnectionsPage = lazyScreen(() => import('./views/connections/ConnectionsPage.tsx').then((m) => m.ConnectionsPage));

// read before anything else: where a session may exist the SDK, and the shell it will most likely
// open, load alongside the configuration
const sdkAtOnce = sessionMayExist({
  search: window.location.search,
  cookie: () => document.cookie,
  storageKeys: () => Object.keys(window.localStorage),
});
if (sdkAtOnce) {
  loadAuthSdk().catch(() => { /* tried again, and told, by AuthSdkHost */ });
  preloadSignedIn();
}

/**
 * Notifications sit at the top centre, clear of the corners: at the bottom right a wizard step's
 * '... has been saved' lay over the next step's Save and continue, and on a phone, where the
 * wizard fills the screen, a full-width one would lie over its close button (and the menu's).
 */
const NOTIFICATIONS_WIDTH = 'clamp(0px, calc(100vw - 9rem), 440px)';

async function boot() {
  const config = await loadAppConfig();
  const subdomain = subdomainFromHost(window.location.hostname, config.defaultSubdomain);

  // the global HTTP error handling of SPEC.md section 8
  onApiError((error) => {
    const message = globalErrorMessage({
      status: error.status,
      problem: error.problem,
      silent: error.options.silent,
      formula: error.options.formulaId ? { id: error.options.formulaId } : undefined,
    });
    if (message) notifications.show({ color: 'red', title: 'Error', message });
  });

  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
        <NotificationsWhenShown position="top-center" containerWidth={NOTIFICATIONS_WIDTH} autoClose={NOTIFICATION_TIMEOUT_MS} />
        <AuthSdkHost options={auth0ProviderOptions(config)} sessionMayExist={sdkAtOnce}>
          <App
            production={import.meta.env.PROD}
            screens={{ connections: <ConnectionsPage /> }}
            inspect={appInspector()}
            authInput={(current) => ({ auth: auth0Adapter(current, config.auth.clientId), accounts: accountManagement, subdomain })}
          />
        </AuthSdkHost>
      </MantineProvider>
    </StrictMode>,
  );
}

void boot();
