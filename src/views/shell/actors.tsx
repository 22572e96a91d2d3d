/** The app's long-lived actors, reachable by every screen below the shell. */
import { createContext, useContext } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { authMachine } from '../../machines/auth.ts';
import type { routeAccessMachine } from '../../machines/routeAccess.ts';

export interface AppActors {
  auth: ActorRefFrom<typeof authMachine>;
  routeAccess: ActorRefFrom<typeof routeAccessMachine>;
}

export const ActorsContext = createContext<AppActors | null>(null);

export function useAppActors(): AppActors {
  const actors = useContext(ActorsContext);
  if (!actors) throw new Error('useAppActors outside the app shell');
  return actors;
}
