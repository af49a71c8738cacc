/**
 * i18next over the one catalogue (messages.ts). Before login the language is the one picked on
 * the login screens in this browser (prefs.ts), else the browser's (French unless it prefers
 * English); at sign-in, the account's own choice kept by the API (auth/session.tsx).
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { messages, type Language } from './messages';

/** The browser's language among ours. */
export function browserLanguage(): Language {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.slice(0, 2).toLowerCase();
    if (base === 'fr' || base === 'en') return base;
  }
  return 'fr';
}

/** Starts i18next in `language`. */
export async function startI18n(language: Language): Promise<void> {
  await i18next.use(initReactI18next).init({
    lng: language,
    fallbackLng: 'fr',
    resources: { fr: { translation: messages.fr }, en: { translation: messages.en } },
    interpolation: { escapeValue: false },
  });
  document.documentElement.lang = language;
}

/** Switches the language of the whole app. */
export async function setLanguage(language: Language): Promise<void> {
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
}
