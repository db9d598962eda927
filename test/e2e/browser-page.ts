import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (apt-get install chromium): playwright-core drives it and downloads nothing. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  // the lab runs as root, where chromium's sandbox cannot start
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface OpenedPage {
  readonly page: Page;
  /** console errors and uncaught page errors */
  readonly errors: string[];
  /** every request the page made beyond the document itself */
  readonly requests: string[];
  /** ms from navigation to the load event */
  readonly loadMs: number;
}

/** Opens a file in a fresh page, recording its console errors and the requests it makes. */
export async function openFile(
  browser: Browser,
  file: string,
  viewport = { width: 1280, height: 800 },
): Promise<OpenedPage> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  const requests: string[] = [];
  const url = `file://${file}`;
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  const started = performance.now();
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors, requests, loadMs: performance.now() - started };
}
