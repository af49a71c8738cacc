/**
 * A real nginx in front of a test's Kolo, configured by the production example
 * `deploy/nginx/kolo.conf` itself: only its upstream address, its listen addresses and its
 * certificate paths are replaced (by a self-signed certificate made with openssl for 127.0.0.1),
 * and it is wrapped in a main context of its own (foreground, the current user, every path in a
 * temporary folder). Each replacement must match exactly once, so a template that changes shape
 * fails here, loudly, instead of being tested half.
 * Also a client bound to its own loopback address (127.0.0.N), over HTTP or HTTPS, so that nginx
 * sees distinct customers the way it would see distinct hosts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/cli.ts';

const TEMPLATE = fileURLToPath(new URL('../../deploy/nginx/kolo.conf', import.meta.url));

/** A running nginx: its HTTPS and HTTP base URLs, the CA that signed its certificate, a stop. */
export interface Nginx {
  httpsUrl: string;
  httpUrl: string;
  /** PEM of the self-signed certificate, to trust it in a client. */
  ca: string;
  stop(): Promise<void>;
}

/** Throws, naming the fix, when a command the test needs is missing. */
export function requireCommand(command: string, args: string[], install: string): void {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  if (result.error || result.status !== 0) {
    throw new Error(`${command} is required by this test and could not be run (${result.error?.message ?? `exit ${result.status}`}): ${install}`);
  }
}

/** `text` with the one occurrence of `from` replaced by `to`; throws when there is not exactly one. */
function replaceOnce(text: string, from: string, to: string): string {
  const count = text.split(from).length - 1;
  if (count !== 1) throw new Error(`deploy/nginx/kolo.conf: expected "${from}" once, found it ${count} times`);
  return text.replace(from, () => to);
}

/** The template, as this test runs it: upstream `127.0.0.1:koloPort`, loopback listeners, the test's certificate. */
function testConfig(dir: string, koloPort: number, httpPort: number, httpsPort: number): string {
  let server = readFileSync(TEMPLATE, 'utf8');
  server = replaceOnce(server, 'server 127.0.0.1:8080;', `server 127.0.0.1:${koloPort};`);
  server = replaceOnce(server, '    listen 80;\n', `    listen 127.0.0.1:${httpPort};\n`);
  server = replaceOnce(server, '    listen [::]:80;\n', '');
  server = replaceOnce(server, '    listen 443 ssl http2;\n', `    listen 127.0.0.1:${httpsPort} ssl http2;\n`);
  server = replaceOnce(server, '    listen [::]:443 ssl http2;\n', '');
  server = replaceOnce(server, '/etc/letsencrypt/live/pay.example.com/fullchain.pem', join(dir, 'cert.pem'));
  server = replaceOnce(server, '/etc/letsencrypt/live/pay.example.com/privkey.pem', join(dir, 'key.pem'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `    ${kind}_temp_path ${join(dir, kind)};`);
  return [
    'daemon off;',
    // As root, workers would switch to `nobody`, who cannot read the temporary folder.
    ...(userInfo().uid === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    `    access_log ${join(dir, 'access.log')};`,
    ...temp,
    server,
    '}',
    '',
  ].join('\n');
}

/**
 * Starts nginx in front of the Kolo listening on 127.0.0.1:`koloPort`, and waits until
 * `GET /actuator/health` answers through it. A port taken between `freePort` and nginx's bind
 * is retried on new ports. Throws with nginx's error log when it does not start.
 */
export async function startNginx(koloPort: number): Promise<Nginx> {
  requireCommand('nginx', ['-v'], 'install it with `apt-get install -y nginx` (.ci/run does)');
  requireCommand('openssl', ['version'], 'install it with `apt-get install -y openssl`');
  const dir = mkdtempSync(join(tmpdir(), 'kolo-nginx-'));
  const made = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl could not make the test certificate: ${made.stderr}`);
  const ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
  for (const kind of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, kind));

  for (let attempt = 1; ; attempt += 1) {
    const [httpPort, httpsPort] = [await freePort(), await freePort()];
    writeFileSync(join(dir, 'nginx.conf'), testConfig(dir, koloPort, httpPort, httpsPort));
    const child = spawn('nginx', ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let exited = false;
    const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
    const nginx: Nginx = {
      httpsUrl: `https://127.0.0.1:${httpsPort}`,
      httpUrl: `http://127.0.0.1:${httpPort}`,
      ca,
      async stop() {
        if (!exited) {
          child.kill('SIGQUIT');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exit;
          clearTimeout(killer);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
    if (await isAnswering(nginx, child, () => exited)) return nginx;
    const log = `${output}\n${readLog(join(dir, 'error.log'))}`;
    if (!exited) child.kill('SIGKILL');
    await exit;
    if (attempt === 3 || !/Address already in use/.test(log)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start with deploy/nginx/kolo.conf:\n${log}`);
    }
  }
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** True once Kolo's health check answers through nginx; false if nginx exits or 30 s pass. */
async function isAnswering(nginx: Nginx, child: ChildProcess, hasExited: () => boolean): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !hasExited() && child.exitCode === null) {
    const answer = await sendFrom('127.0.0.1', `${nginx.httpsUrl}/actuator/health`, { ca: nginx.ca }).catch(() => null);
    if (answer?.status === 200 && answer.body.includes('"UP"')) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** An HTTP answer: status, headers and body text. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends one request from `localAddress` (a 127.0.0.0/8 address) to `url`, over HTTPS trusting only `ca` when given. */
export function sendFrom(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; ca?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const isHttps = url.startsWith('https:');
    const send = isHttps ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress, agent: false, ...(isHttps ? { ca: options.ca } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * A customer at `localAddress` talking to `baseUrl` (nginx, or Kolo directly): keeps the checkout
 * cookie like a browser, reads the page's CSRF field, and may add headers of its own (a forged
 * X-Forwarded-For) to every request.
 */
export function customerFrom(localAddress: string, baseUrl: string, options: { ca?: string; headers?: Record<string, string> } = {}) {
  let cookie = '';
  const headers = (extra: Record<string, string> = {}) => ({ ...options.headers, ...(cookie ? { cookie } : {}), ...extra });
  const remember = (answer: Answer) => {
    const set = answer.headers['set-cookie'];
    if (set && set.length > 0) cookie = set[0]!.split(';')[0]!;
  };
  return {
    localAddress,
    /** GET `path`; the answer and the page's `_csrf` field (or null). */
    async get(path: string): Promise<Answer & { csrf: string | null }> {
      const answer = await sendFrom(localAddress, `${baseUrl}${path}`, { headers: headers(), ca: options.ca });
      remember(answer);
      const match = /name="_csrf" value="([^"]+)"/.exec(answer.body);
      return { ...answer, csrf: match ? match[1]! : null };
    },
    /** POST an urlencoded form to `path`. */
    async postForm(path: string, fields: Record<string, string>): Promise<Answer> {
      const body = new URLSearchParams(fields).toString();
      const answer = await sendFrom(localAddress, `${baseUrl}${path}`, {
        method: 'POST',
        headers: headers({ 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) }),
        body,
        ca: options.ca,
      });
      remember(answer);
      return answer;
    },
    /** POST a JSON body to `path`. */
    async postJson(path: string, value: unknown): Promise<Answer> {
      const body = JSON.stringify(value);
      return sendFrom(localAddress, `${baseUrl}${path}`, {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        body,
        ca: options.ca,
      });
    },
  };
}
