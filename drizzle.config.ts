import { defineConfig } from 'drizzle-kit';

// drizzle-kit reads every schema file; one set of SQL migrations serves PGlite and PostgreSQL.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/db/schema.ts', './src/db/schema-*.ts'],
  out: './src/db/migrations',
});
