/** The frame of the signed-out screens: brand, language switch, a card. */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from '../../shell/Layout';

export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <main className="auth" id="main">
      <div className="auth-top">
        <span className="brand">{t('brand')}</span>
        <LanguageSwitch accountId={null} />
      </div>
      <section className="card">
        <h1>{title}</h1>
        {children}
      </section>
    </main>
  );
}
