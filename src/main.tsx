/** Providers and composition: services are built here and handed to the machines through the views. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Auth0Provider } from '@auth0/auth0-react';
// Mantine's styles: the base ones are linked first in the page, each component's come with its code (vite.config.ts)
import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { globalErrorMessage, NOTIFICATION_TIMEOUT_MS } from './domain/errors.ts';
import { subdomainFromHost } from './domain/identity.ts';
import { accountManagement } from './services/accountManagement.ts';
import { loadAppConfig } from './services/appConfig.ts';
import { auth0Adapter, auth0ProviderOptions } from './services/auth.ts';
import { onApiError } from './services/gateway.ts';
import { appInspector } from './services/inspection.ts';
import { cssVariablesResolver, theme } from './ui/theme.ts';
import { App } from './views/shell/App.tsx';
import { lazyScreen } from './views/shell/screens.tsx';

const ConnectionsPage = lazyScreen(() => import('./views/connections/ConnectionsPage.tsx').then((m) => m.ConnectionsPage));

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
        <Notifications autoClose={NOTIFICATION_TIMEOUT_MS} />
        <Auth0Provider {...auth0ProviderOptions(config)}>
          <App
            production={import.meta.env.PROD}
            screens={{ connections: <ConnectionsPage /> }}
            inspect={appInspector()}
            authInput={(current) => ({ auth: auth0Adapter(current, config.auth.clientId), accounts: accountManagement, subdomain })}
          />
        </Auth0Provider>
      </MantineProvider>
    </StrictMode>,
  );
}

void boot();
