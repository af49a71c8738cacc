/**
 * The signed-in frame of every screen: the brand, the TEST/LIVE switch, the language switch,
 * logging out, and the navigation (merchant or staff).
 */
import { Suspense } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isStaff, useSession } from '../auth/session';
import { saveLanguage } from '../hooks/api/session';
import { setLanguage } from '../i18n/i18n';
import type { Language } from '../i18n/messages';
import { writePrefs, type Environment } from '../prefs';
import { Loading } from '../ui';

/** TEST / LIVE, as two toggle buttons. */
function EnvironmentSwitch() {
  const { t } = useTranslation();
  const { environment, setEnvironment } = useSession();
  return (
    <div className="env-switch" role="group" aria-label={t('shell.environment')}>
      {(['TEST', 'LIVE'] as Environment[]).map((env) => (
        <button key={env} type="button" aria-pressed={environment === env} className={environment === env ? `on env-${env.toLowerCase()}` : ''} onClick={() => setEnvironment(env)}>
          {env === 'TEST' ? t('shell.test') : t('shell.live')}
        </button>
      ))}
    </div>
  );
}

/**
 * FR / EN. Signed in (`accountId` set), the choice is the account's, kept by the API (profile
 * `language`) and applied at its next login in any browser; on the login screens it is this
 * browser's until someone logs in.
 */
export function LanguageSwitch({ accountId }: { accountId: string | null }) {
  const { t, i18n } = useTranslation();
  return (
    <label className="lang-switch">
      <span className="visually-hidden">{t('shell.language')}</span>
      <select
        value={i18n.language}
        onChange={(event) => {
          const language = event.target.value as Language;
          if (accountId) saveLanguage(language);
          else writePrefs(null, { language });
          void setLanguage(language);
        }}
      >
        <option value="fr">FR</option>
        <option value="en">EN</option>
      </select>
    </label>
  );
}

export function Layout() {
  const { t } = useTranslation();
  const { user, environment, logOut } = useSession();
  const staff = isStaff(user);
  const links: [string, string][] = staff
    ? [
        ['/merchants', t('shell.merchants')],
        ['/platform', t('shell.platform')],
        ['/rails', t('shell.rails')],
        ['/reconciliation', t('shell.reconciliation')],
        ['/float', t('shell.float')],
        // The audit log is ADMIN's only (the API refuses SUPPORT).
        ...(user?.role === 'ADMIN' ? ([['/audit', t('shell.audit')]] as [string, string][]) : []),
        ['/profile', t('shell.profile')],
      ]
    : [
        ['/', t('shell.home')],
        ['/transactions', t('shell.transactions')],
        ['/payouts', t('shell.payouts')],
        ['/batches', t('shell.batches')],
        ['/statements', t('shell.statements')],
        ['/collections', t('shell.collections')],
        ['/apps', t('shell.applications')],
        ['/team', t('shell.team')],
        ['/profile', t('shell.profile')],
      ];
  return (
    <>
      <a className="skip" href="#main">
        {t('shell.skip')}
      </a>
      <header className="top">
        <span className="brand">{t('brand')}</span>
        <div className="top-tools">
          {!staff && <EnvironmentSwitch />}
          <LanguageSwitch accountId={user?.accountId ?? null} />
          <button type="button" className="link" onClick={() => void logOut()}>
            {t('shell.logout')}
          </button>
        </div>
      </header>
      <nav aria-label={t('shell.nav')} className="nav">
        <ul>
          {links.map(([to, label]) => (
            <li key={to}>
              <NavLink to={to} end={to === '/'}>
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      {!staff && environment === 'TEST' && <p className="test-banner">{t('shell.testBanner')}</p>}
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </>
  );
}
