/**
 * The dashboard's entry: i18n, the query cache, the session, and the routes. Each screen is its
 * own chunk (React.lazy), so a first load fetches the shell and that screen only. A page that
 * brought its session (bootstrap.ts) starts signed in; when the server drew the home screen with
 * the display choices this browser makes, the app hydrates it, else it draws afresh.
 */
import { StrictMode, Suspense, lazy } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { QueryClient, QueryClientProvider, hydrate } from '@tanstack/react-query';
import { ApiFailure, setAccessToken } from './api/client';
import { SessionProvider, isStaff, useSession, type InitialSession } from './auth/session';
import { takeBootstrap } from './bootstrap';
import { setServerTimeZone } from './format';
import { browserLanguage, startI18n } from './i18n/i18n';
import { browserTimeZone, choicesOf, readPrefs } from './prefs';
import { Layout } from './shell/Layout';
import { Loading } from './ui';
import './styles.css';

const Login = lazy(() => import('./screens/auth/Login'));
const SignUp = lazy(() => import('./screens/auth/SignUp'));
const Forgot = lazy(() => import('./screens/auth/Forgot'));
const Join = lazy(() => import('./screens/auth/Join'));
const loadHome = () => import('./screens/home/Home');
// The home screen is the usual first screen: its chunk loads while the session is restored.
if (/^\/app\/?$/.test(location.pathname)) void loadHome();
const Home = lazy(loadHome);
const Transactions = lazy(() => import('./screens/transactions/TransactionList'));
const TransactionDetail = lazy(() => import('./screens/transactions/TransactionDetail'));
const Applications = lazy(() => import('./screens/apps/AppList'));
const ApplicationDetail = lazy(() => import('./screens/apps/AppDetail'));
const Collections = lazy(() => import('./screens/collections/Collections'));
const Payouts = lazy(() => import('./screens/payouts/Payouts'));
const Batches = lazy(() => import('./screens/batches/Batches'));
const BatchDetail = lazy(() => import('./screens/batches/BatchDetail'));
const Profile = lazy(() => import('./screens/profile/Profile'));
const Team = lazy(() => import('./screens/team/Team'));
const Merchants = lazy(() => import('./screens/admin/Merchants'));
const MerchantDetail = lazy(() => import('./screens/admin/MerchantDetail'));
const Platform = lazy(() => import('./screens/admin/Platform'));
const Rails = lazy(() => import('./screens/admin/Rails'));
const Float = lazy(() => import('./screens/admin/Float'));
const Statements = lazy(() => import('./screens/statements/Statements'));
const Audit = lazy(() => import('./screens/admin/Audit'));
const Reconciliation = lazy(() => import('./screens/admin/Reconciliation'));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal will not change by asking again; a network failure may.
      retry: (count, error) => count < 2 && !(error instanceof ApiFailure && error.status > 0),
    },
  },
});

function AppRoutes() {
  const { state, user } = useSession();
  if (state === 'loading') return <Loading />;
  if (state === 'out') {
    return (
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="/signup" element={<SignUp />} />
          <Route path="/forgot" element={<Forgot />} />
          <Route path="/join" element={<Join />} />
          <Route path="*" element={<Login />} />
        </Routes>
      </Suspense>
    );
  }
  return (
    <Routes>
      <Route element={<Layout />}>
        {isStaff(user) ? (
          <>
            <Route index element={<Navigate to="/merchants" replace />} />
            <Route path="merchants" element={<Merchants />} />
            <Route path="merchants/:id" element={<MerchantDetail />} />
            <Route path="platform" element={<Platform />} />
            <Route path="rails" element={<Rails />} />
            <Route path="reconciliation" element={<Reconciliation />} />
            <Route path="float" element={<Float />} />
            {user?.role === 'ADMIN' && <Route path="audit" element={<Audit />} />}
          </>
        ) : (
          <>
            <Route index element={<Home />} />
            <Route path="transactions" element={<Transactions />} />
            <Route path="transactions/:reference" element={<TransactionDetail />} />
            <Route path="apps" element={<Applications />} />
            <Route path="apps/:appId" element={<ApplicationDetail />} />
            <Route path="collections" element={<Collections />} />
            <Route path="payouts" element={<Payouts />} />
            <Route path="batches" element={<Batches />} />
            <Route path="batches/:id" element={<BatchDetail />} />
            <Route path="team" element={<Team />} />
            <Route path="statements" element={<Statements />} />
          </>
        )}
        <Route path="profile" element={<Profile />} />
        <Route path="*" element={<Navigate to="/" replace />} />
      </Route>
    </Routes>
  );
}

const bootstrap = takeBootstrap();
let initial: InitialSession | undefined;
let language = readPrefs(null).language ?? browserLanguage();
if (bootstrap) {
  setAccessToken(bootstrap.accessToken);
  setServerTimeZone(bootstrap.serverTimeZone);
  if (bootstrap.queries) hydrate(queryClient, bootstrap.queries);
  const choices = choicesOf(bootstrap.user.accountId, bootstrap.user.language);
  language = choices.language;
  initial = { user: bootstrap.user, environment: choices.environment };
}
await startI18n(language);
const app = (
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/app">
        <SessionProvider initial={initial}>
          <AppRoutes />
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>
);
const root = document.getElementById('root')!;
const drawnAsHere =
  bootstrap?.rendered === true &&
  /^\/app\/?$/.test(location.pathname) &&
  bootstrap.language === language &&
  bootstrap.environment === initial?.environment &&
  bootstrap.timeZone === browserTimeZone();
if (drawnAsHere) {
  hydrateRoot(root, app);
} else {
  root.replaceChildren();
  createRoot(root).render(app);
}
