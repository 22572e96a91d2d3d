import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // one file per area under schema/
  schema: './server/db/schema',
  out: './server/db/migrations',
});
