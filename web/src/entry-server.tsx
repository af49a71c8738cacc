/**
 * The server renderer (built into web/dist/server/entry-server.js, imported by Kolo's
 * src/http/web-app.ts): draws a signed-in merchant's home screen with the app's own components,
 * shell included, so the page shows the balances and the last transactions before its scripts
 * arrive; the browser then hydrates it (main.tsx). Its data comes from the dashboard API, called
 * through `fetch` with the session's access token (the same calls as the app's).
 */
import { renderToString } from 'react-dom/server';
import { StaticRouter, Route, Routes } from 'react-router';
import { QueryClient, QueryClientProvider, dehydrate, type DehydratedState } from '@tanstack/react-query';
import i18next, { type i18n } from 'i18next';
import { I18nextProvider } from 'react-i18next';
import createClient from 'openapi-fetch';
import type { paths } from './api/schema';
import { SessionProvider, type User } from './auth/session';
import { inTimeZone, readerTimeZone } from './format';
import { homeQueries } from './hooks/api/home';
import { messages, type Language } from './i18n/messages';
import type { Environment } from './prefs';
import Home, { HOME_INTERVAL } from './screens/home/Home';
import { Layout } from './shell/Layout';

/** What the home screen is drawn for. */
export interface HomeRenderInput {
  /** Answers the API calls (paths under /api/v1), carrying the session's access token. */
  fetch: (request: Request) => Promise<Response>;
  user: User;
  language: Language;
  environment: Environment;
  /** IANA time zone of the dates shown (the reader's). */
  timeZone: string;
  /** IANA time zone of the server, in which the API's zone-less timestamps are read. */
  serverTimeZone: string;
}

/** The drawn screen (the inside of #root) and the query cache it was drawn from. */
export interface HomeRender {
  html: string;
  queries: DehydratedState;
}

const translators = new Map<Language, i18n>();

/** One i18next instance per language, shared by the renders (read only once started). */
function translatorOf(language: Language): i18n {
  let translator = translators.get(language);
  if (!translator) {
    translator = i18next.createInstance();
    void translator.init({
      lng: language,
      fallbackLng: 'fr',
      resources: { fr: { translation: messages.fr }, en: { translation: messages.en } },
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    translators.set(language, translator);
  }
  return translator;
}

/**
 * Calls the home screen's API calls, then draws the screen. Rejects when a call fails (an
 * ApiFailure, e.g. 401 once the session is closed) or the time zone is unknown (RangeError):
 * the caller then sends the page undrawn.
 */
export async function renderHome(input: HomeRenderInput): Promise<HomeRender> {
  const client = createClient<paths>({ baseUrl: 'http://kolo.local', fetch: input.fetch });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  // The screen's queries, asked for the reader's days: named in the reader's zone.
  const calls = inTimeZone(input.timeZone, input.serverTimeZone, () => homeQueries(client, { environment: input.environment, timeZone: readerTimeZone(), interval: HOME_INTERVAL }));
  await Promise.all(calls.map((query) => queryClient.fetchQuery(query as Parameters<QueryClient['fetchQuery']>[0])));
  const html = inTimeZone(input.timeZone, input.serverTimeZone, () =>
    renderToString(
      <QueryClientProvider client={queryClient}>
        <I18nextProvider i18n={translatorOf(input.language)}>
          <StaticRouter basename="/app" location="/app/">
            <SessionProvider initial={{ user: input.user, environment: input.environment }}>
              <Routes>
                <Route element={<Layout />}>
                  <Route index element={<Home />} />
                </Route>
              </Routes>
            </SessionProvider>
          </StaticRouter>
        </I18nextProvider>
      </QueryClientProvider>,
    ),
  );
  const queries = dehydrate(queryClient);
  queryClient.clear();
  return { html, queries };
}
