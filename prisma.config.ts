// Prisma CLI configuration. DATABASE_URL is read with a fallback because env() throws when
// unset, which would break `npm install` (postinstall runs `prisma generate`).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/marketplace' },
});
