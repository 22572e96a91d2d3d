/**
 * The Auth0 SDK's state as the app reads it, and the host that loads the SDK (the largest package
 * of the app) only when it is needed: at once when a session may exist (sessionMayExist in
 * src/services/auth.ts), otherwise when a guest first asks it for something, which is signing in.
 * Until it has loaded the app sees a signed-out SDK (loading, where a session may exist) whose
 * calls load the real one and hand over to it. The SDK renders beside the app, never around it,
 * so its arrival does not remount the app.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ComponentType, type ReactNode } from 'react';
import type { Auth0ProviderOptions, GetTokenSilentlyOptions } from '@auth0/auth0-react';
import type { AuthSdkState } from '../../machines/auth.ts';
import type { Auth0SdkProps } from './Auth0Sdk.tsx';

export const AuthSdkContext = createContext<AuthSdkState | null>(null);

export function useAuthSdk(): AuthSdkState {
  const sdk = useContext(AuthSdkContext);
  if (!sdk) throw new Error('useAuthSdk outside AuthSdkHost');
  return sdk;
}

let loading: Promise<ComponentType<Auth0SdkProps>> | null = null;

/** The SDK's module, loaded once; a load that failed is tried again on the next call. */
export function loadAuthSdk(): Promise<ComponentType<Auth0SdkProps>> {
  loading ??= import('./Auth0Sdk.tsx').then((m) => m.Auth0Sdk, (error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

interface Deferred<T> { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void }
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  // nobody may be waiting when a load fails: the failure is shown through the state instead
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export function AuthSdkHost({ options, sessionMayExist, children }: { options: Auth0ProviderOptions; sessionMayExist: boolean; children: ReactNode }) {
  const [Sdk, setSdk] = useState<ComponentType<Auth0SdkProps> | null>(null);
  const [reported, setReported] = useState<AuthSdkState | null>(null);
  const [loadError, setLoadError] = useState<Error | null>(null);
  // the SDK's first state: what calls made before it loaded wait for
  const first = useRef<Deferred<AuthSdkState> | null>(null);
  first.current ??= deferred();
  const requested = useRef(false);

  const request = useCallback((): Promise<AuthSdkState> => {
    const waiting = first.current!;
    if (!requested.current) {
      requested.current = true;
      loadAuthSdk().then((component) => setSdk(() => component), (error: unknown) => {
        requested.current = false;
        first.current = deferred();
        setLoadError(error instanceof Error ? error : new Error(String(error)));
        waiting.reject(error);
      });
    }
    return waiting.promise;
  }, []);
  useEffect(() => {
    if (sessionMayExist) void request();
  }, [sessionMayExist, request]);
  const onState = useCallback((state: AuthSdkState) => {
    first.current!.resolve(state);
    setReported(state);
  }, []);

  const standIn = useMemo<AuthSdkState>(() => ({
    isLoading: sessionMayExist,
    isAuthenticated: false,
    error: undefined,
    user: undefined,
    loginWithRedirect: async (o) => (await request()).loginWithRedirect(o),
    logout: async (o) => (await request()).logout(o),
    getAccessTokenSilently: (async (o?: GetTokenSilentlyOptions) => (await request()).getAccessTokenSilently(o)) as AuthSdkState['getAccessTokenSilently'],
  }), [sessionMayExist, request]);
  // a session may exist but the SDK did not load: the app says so, and signing in tries again
  const value = reported ?? (loadError ? { ...standIn, isLoading: false, error: loadError } : standIn);

  return (
    <>
      {Sdk && <Sdk options={options} onState={onState} />}
      <AuthSdkContext.Provider value={value}>{children}</AuthSdkContext.Provider>
    </>
  );
}
