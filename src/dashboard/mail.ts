/**
 * Outgoing mail. With `SMTP_URL`, over SMTP through nodemailer (bounded timeouts). Without it (the
 * embedded default), each mail is written to the log and to a file in `MAIL_DIR` (default
 * `<DATA_DIR>/mail`), so someone trying Kolo locally can read their code; with a `memory://` data
 * directory and no MAIL_DIR, mails are kept in memory (`sentMails`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import type { Services } from '../services.ts';

/** A mail to send: plain text only. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

const transporters = new WeakMap<Config, Transporter>();
const memory = new WeakMap<Config, Mail[]>();
const MEMORY_LIMIT = 200;

/** Mails kept in memory for this configuration (only when no SMTP and no mail directory). */
export function sentMails(config: Config): Mail[] {
  return memory.get(config) ?? [];
}

/** The directory mails are written to without SMTP, or null (memory only). */
export function mailDirectory(config: Config): string | null {
  if (config.mailDir) return config.mailDir;
  if (config.dataDir.startsWith('memory://')) return null;
  return join(config.dataDir, 'mail');
}

/** Sends `mail`. SMTP failures are thrown (the caller decides); file failures are logged. */
export async function sendMail(services: Pick<Services, 'config' | 'log' | 'clock' | 'ids'>, mail: Mail): Promise<void> {
  const { config } = services;
  if (config.smtpUrl) {
    let transporter = transporters.get(config);
    if (!transporter) {
      transporter = nodemailer.createTransport(config.smtpUrl, {
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      } as object);
      transporters.set(config, transporter);
    }
    await transporter.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text });
    services.log.info({ subject: mail.subject }, 'mail sent over SMTP');
    return;
  }
  // No SMTP: the mail goes to MAIL_DIR. Its text carries one-time codes, which never go to the
  // log at info level; at debug level (LOG_LEVEL=debug, local use) the log shows it too.
  services.log.info({ subject: mail.subject, directory: mailDirectory(config) ?? null }, 'mail (no SMTP configured)');
  services.log.debug({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail text (no SMTP configured)');
  const directory = mailDirectory(config);
  if (!directory) {
    const list = memory.get(config) ?? [];
    list.push(mail);
    if (list.length > MEMORY_LIMIT) list.shift();
    memory.set(config, list);
    return;
  }
  const stamp = services.clock.now().toISOString().replace(/[:.]/g, '-');
  const safeTo = mail.to.replace(/[^A-Za-z0-9@._-]/g, '_');
  const body = `From: ${config.mailFrom}\nTo: ${mail.to}\nSubject: ${mail.subject}\nDate: ${services.clock.now().toUTCString()}\n\n${mail.text}\n`;
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await writeFile(join(directory, `${stamp}-${safeTo}-${services.ids.hex(3)}.txt`), body, { mode: 0o600 });
  } catch (error) {
    services.log.warn({ err: error }, 'could not write mail file');
  }
}
