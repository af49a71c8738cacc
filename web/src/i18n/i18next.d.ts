/**
 * The catalogue's keys as i18next's types: `t('home.titel')` is a type error, and so is an
 * English message missing from the catalogue (messages.ts types `en` with `fr`'s keys).
 */
import type { Messages } from './messages';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: Messages };
  }
}
