/** The app's long-lived actors, reachable by every screen below the shell. */
import { createContext, useContext } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { authMachine } from '../../machines/auth.ts';
import type { routeAccessMachine } from '../../machines/routeAccess.ts';
import type { FlagsActor } from '../../machines/flags.ts';

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

/** The signed-in session's flag client (SPEC.md section 1), started by the app shell. */
export const FlagsActorContext = createContext<FlagsActor | null>(null);

export function useFlagsActor(): FlagsActor {
  const flags = useContext(FlagsActorContext);
  if (!flags) throw new Error('useFlagsActor outside the app shell');
  return flags;
}
