/**
 * The deployment files agree with the code and with each other: `.env.example` names only real
 * settings and, its placeholders replaced, is a configuration Kolo accepts (untouched, Kolo
 * refuses its secrets); the Dockerfile builds with scripts/build-release.sh and runs what it
 * builds as an unprivileged user with DATA_DIR on a volume; the build context keeps what the
 * script reads; the compose file and the systemd unit give the graceful stop more time than
 * SHUTDOWN_TIMEOUT_MS and keep DATA_DIR writable. (CI builds and starts a release from a clean
 * clone: .ci/run, "release".)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envSchema, loadConfig } from '../../src/config.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const defaultShutdownMs = loadConfig({}).shutdownTimeoutMs;

/** `NAME=value` lines of an env file, commented-out ones included (`# NAME=value`), quotes removed. */
function envLines(text: string): { name: string; value: string; isCommented: boolean }[] {
  return [...text.matchAll(/^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({
    name: m[2]!,
    value: m[3]!.replace(/^"(.*)"$/, '$1'),
    isCommented: m[1] !== undefined,
  }));
}

describe('.env.example', () => {
  const lines = envLines(read('.env.example'));
  // Only compose.yaml reads it (the PostgreSQL container's password).
  const composeOnly = new Set(['POSTGRES_PASSWORD']);

  it('names only variables the configuration schema reads', () => {
    const unknown = lines.map((l) => l.name).filter((name) => !composeOnly.has(name) && !Object.hasOwn(envSchema.shape, name));
    expect(unknown).toEqual([]);
    expect(lines.map((l) => l.name)).toEqual(expect.arrayContaining(['KOLO_ENV', 'PUBLIC_BASE_URL', 'DATABASE_URL', 'JWT_SECRET', 'WEBHOOK_ENCRYPTION_KEY', 'CHECKOUT_CSRF_SECRET']));
  });

  it('is refused untouched (its secrets are placeholders), and passes the production checks once they are replaced', () => {
    const env = Object.fromEntries(lines.filter((l) => !l.isCommented && !composeOnly.has(l.name)).map((l) => [l.name, l.value]));
    let refusal = '';
    try {
      loadConfig(env);
    } catch (error) {
      refusal = (error as Error).message;
    }
    for (const name of ['JWT_SECRET', 'WEBHOOK_ENCRYPTION_KEY', 'CHECKOUT_CSRF_SECRET', 'ADMIN_PASSWORD']) expect(refusal).toContain(`${name}:`);
    const replaced = Object.fromEntries(
      Object.entries(env).map(([name, value]) => [
        name,
        name === 'WEBHOOK_ENCRYPTION_KEY' ? 'ab'.repeat(32) : value.replace('CHANGE_ME', name.endsWith('_URL') ? 'password' : 'x'.repeat(48)),
      ]),
    );
    const config = loadConfig(replaced);
    expect(config.isProduction).toBe(true);
    expect(config.publicBaseUrl).toBe('https://pay.example.com');
    expect(config.demoSeed).toBe(false);
    expect(config.databaseUrl).toBe('postgres://kolo:password@postgres:5432/kolo');
  });
});

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^FROM /m).slice(1);

  it('builds with scripts/build-release.sh and runs its output as `npm start` does', () => {
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatch(/^RUN bash scripts\/build-release\.sh \/release$/m);
    expect(stages[1]).toMatch(/^COPY --from=build \/release\/ \/app\/$/m);
    expect(stages[1]).toMatch(/^WORKDIR \/app$/m);
    expect(stages[1]).toMatch(/^CMD \["sh", "scripts\/start\.sh"\]$/m);
    expect(stages[1]).toMatch(/^STOPSIGNAL SIGTERM$/m);
  });

  it('runs as an unprivileged user, DATA_DIR on a volume, a health check on /actuator/health', () => {
    const user = /^USER (\S+)$/m.exec(stages[1]!)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    const dataDir = /DATA_DIR=(\S+)/.exec(stages[1]!)?.[1];
    expect(stages[1]).toContain(`VOLUME ["${dataDir}"]`);
    expect(stages[1]).toContain(`chown kolo:kolo ${dataDir}`);
    expect(stages[1]).toMatch(/^HEALTHCHECK [\s\S]*\/actuator\/health[\s\S]*status==='UP'/m);
    expect(stages[1]).toMatch(/ENV KOLO_ENV=production /);
  });

  it('keeps in the build context every path the release script stages', () => {
    const script = read('scripts/build-release.sh');
    const staged = /^\s+(package\.json package-lock\.json .*?) \\$/m.exec(script)![1]!.split(' ');
    expect(staged).toEqual(expect.arrayContaining(['src', 'web', 'scripts']));
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'));
    for (const path of staged) {
      expect(ignored.filter((pattern) => pattern === path || pattern === `${path.split('/')[0]}`), path).toEqual([]);
    }
    expect(ignored).toEqual(expect.arrayContaining(['.git', '**/node_modules', '.env']));
  });
});

describe('compose.yaml', () => {
  const compose = read('compose.yaml');

  it('starts Kolo once PostgreSQL 15 passes its health check, with the graceful stop given its time', () => {
    expect(compose).toMatch(/image: postgres:15\b/);
    expect(compose).toMatch(/healthcheck:\n\s+test: \["CMD-SHELL", "pg_isready[^\n]*"\]/);
    expect(compose).toMatch(/depends_on:\n\s+postgres:\n\s+condition: service_healthy/);
    expect(compose).toMatch(/env_file: \.env/);
    const grace = Number(/stop_grace_period: (\d+)s/.exec(compose)![1]) * 1000;
    expect(grace).toBeGreaterThan(defaultShutdownMs);
    // Published for the reverse proxy on the host's loopback only.
    expect(compose).toMatch(/- "127\.0\.0\.1:8080:8080"/);
  });
});

describe('deploy/kolo.service', () => {
  const unit = read('deploy/kolo.service');
  const setting = (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]!);

  it('runs the release start script as a dedicated user with its environment file', () => {
    expect(setting('User')).toEqual(['kolo']);
    expect(setting('ExecStart')).toEqual(['/bin/sh /opt/kolo/scripts/start.sh']);
    expect(setting('EnvironmentFile')).toEqual(['/etc/kolo/kolo.env']);
    expect(setting('Restart')).toEqual(['on-failure']);
  });

  it('listens where deploy/nginx/kolo.conf sends requests, and trusts that proxy only', () => {
    const upstream = /upstream kolo \{\s*server ([\d.]+):(\d+);/.exec(read('deploy/nginx/kolo.conf'))!;
    const environment = setting('Environment').join(' ');
    expect(environment).toContain(`HOST=${upstream[1]}`);
    expect(environment).toContain(`PORT=${upstream[2]}`);
    expect(environment).toContain(`TRUST_PROXY=${upstream[1]}`);
    expect(environment).toContain('KOLO_ENV=production');
  });

  it('stops with SIGTERM and waits longer than SHUTDOWN_TIMEOUT_MS', () => {
    expect(setting('KillSignal')).toEqual(['SIGTERM']);
    expect(Number(setting('TimeoutStopSec')[0]) * 1000).toBeGreaterThan(defaultShutdownMs);
  });

  it('is hardened with DATA_DIR the only writable path', () => {
    const dataDir = /DATA_DIR=(\S+)/.exec(setting('Environment').join(' '))![1]!;
    expect(setting('ProtectSystem')).toEqual(['strict']);
    expect(setting('ReadWritePaths')).toEqual([dataDir]);
    expect(setting('StateDirectory').map((d) => `/var/lib/${d}`)).toEqual([dataDir]);
    expect(setting('NoNewPrivileges')).toEqual(['yes']);
    expect(setting('CapabilityBoundingSet')).toEqual(['']);
  });
});
