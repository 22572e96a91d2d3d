/** The Auth0 SDK's provider, loaded when the app first needs it (authSdk.tsx), reporting the SDK's state to the app. */
import { useEffect } from 'react';
import { Auth0Provider, useAuth0, type Auth0ProviderOptions } from '@auth0/auth0-react';
import type { AuthSdkState } from '../../machines/auth.ts';

export interface Auth0SdkProps {
  options: Auth0ProviderOptions;
  onState: (state: AuthSdkState) => void;
}

function Report({ onState }: Pick<Auth0SdkProps, 'onState'>) {
  const sdk = useAuth0();
  useEffect(() => onState(sdk), [sdk, onState]);
  return null;
}

export function Auth0Sdk({ options, onState }: Auth0SdkProps) {
  return <Auth0Provider {...options}><Report onState={onState} /></Auth0Provider>;
}
