/**
 * Kolo's version: package.json's `version`, read once when this module loads. package.json sits
 * one level above both `src/` (run by tsx) and `dist/` (the build), so one relative path serves both.
 */
import { readFileSync } from 'node:fs';

/** The running Kolo's version (semver, from package.json), e.g. `0.1.0`. */
export const version: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
