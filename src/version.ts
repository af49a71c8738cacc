import { createRequire } from 'node:module';

/** Kolo's version: the `version` field of package.json. */
export const version: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
