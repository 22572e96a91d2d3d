/** The Feature Flags screen, with the shell's flag client. */
import { useFlagsActor } from '../shell/actors.tsx';
import { FeatureFlagsPage } from './FeatureFlagsPage.tsx';

export function FeatureFlagsRoute() {
  return <FeatureFlagsPage flags={useFlagsActor()} />;
}
