/** End-to-end tests drive the built app, as `npm start` serves it. */
import { ensureAppBuilt } from '../../server/appBuild.ts';

export async function setup() {
  await ensureAppBuilt();
}
