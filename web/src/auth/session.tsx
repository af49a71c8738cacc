/**
 * The signed-in account and the display environment, for the whole app. Start-up spends the
 * refresh cookie (if any) for an access token, then reads the profile. The profile's language
 * (kept by the API per account) is applied at sign-in; without one, the page keeps the language
 * it had before login (the browser's, or the one picked on the login screen). A page that came
 * with its session already renewed (bootstrap.ts) starts signed in, without those two calls.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { onSessionLost, refreshSession, setAccessToken } from '../api/client';
import { setServerTimeZone } from '../format';
import { closeSession, createSession, fetchProfile } from '../hooks/api/session';
import { setLanguage } from '../i18n/i18n';
import type { Language } from '../i18n/messages';
import { mirrorPrefs, readPrefs, writePrefs, type Environment } from '../prefs';

/** The account as the app needs it. */
export interface User {
  accountId: string;
  email: string;
  fullName: string;
  role: string;
  /** The dashboard language the account chose; null while it has chosen none. */
  language: Language | null;
}

interface Session {
  state: 'loading' | 'out' | 'in';
  user: User | null;
  environment: Environment;
  setEnvironment(environment: Environment): void;
  /** Signs in; `otp` is the second factor's code (or a recovery code) of an account that has one. */
  logIn(email: string, password: string, otp?: string): Promise<void>;
  logOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** The session; only inside `SessionProvider`. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The signed-in account, from its profile (which also tells the server's time zone). */
async function readProfile(): Promise<User> {
  const me = await fetchProfile();
  setServerTimeZone(me.serverTimeZone);
  return { accountId: me.id, email: me.email, fullName: me.fullName, role: me.role, language: me.language };
}

/** True for ADMIN and SUPPORT accounts. */
export function isStaff(user: User | null): boolean {
  return user?.role === 'ADMIN' || user?.role === 'SUPPORT';
}

/** A session already open when the app starts: its account and the environment shown. */
export interface InitialSession {
  user: User;
  environment: Environment;
}

/**
 * Provides the session. With `initial` (a page that brought its session, or the server's
 * render of one) it starts signed in; without, it restores the session from the refresh cookie.
 */
export function SessionProvider({ children, initial }: { children: ReactNode; initial?: InitialSession }) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<Session['state']>(initial ? 'in' : 'loading');
  const [user, setUser] = useState<User | null>(initial?.user ?? null);
  const [environment, setEnvironmentState] = useState<Environment>(initial?.environment ?? readPrefs(null).environment ?? 'TEST');

  const signIn = useCallback(async (next: User) => {
    const prefs = readPrefs(next.accountId);
    if (prefs.environment) setEnvironmentState(prefs.environment);
    if (next.language) await setLanguage(next.language);
    mirrorPrefs(next.accountId);
    setUser(next);
    setState('in');
  }, []);

  useEffect(() => {
    onSessionLost(() => {
      setUser(null);
      setState('out');
      queryClient.clear();
    });
    if (initial) {
      mirrorPrefs(initial.user.accountId);
      return;
    }
    void (async () => {
      if (!(await refreshSession())) return setState('out');
      try {
        await signIn(await readProfile());
      } catch {
        setState('out');
      }
    })();
  }, [queryClient, signIn, initial]);

  const session = useMemo<Session>(
    () => ({
      state,
      user,
      environment,
      setEnvironment(next) {
        setEnvironmentState(next);
        writePrefs(user?.accountId ?? null, { environment: next });
      },
      async logIn(email, password, otp) {
        // A 6-digit answer is a TOTP code; anything else typed there is a recovery code.
        const secondFactor = otp === undefined || otp === '' ? {} : /^\d{6}$/.test(otp) ? { otp } : { recoveryCode: otp };
        const data = await createSession({ email, password, ...secondFactor });
        setAccessToken(data.accessToken);
        // The login answer has no language: the profile has it.
        await signIn(await readProfile());
      },
      async logOut() {
        try {
          await closeSession();
        } finally {
          setAccessToken(null);
          setUser(null);
          setState('out');
          queryClient.clear();
        }
      },
    }),
    [state, user, environment, signIn, queryClient],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
